// Where the non-fused Winograd conv (winograd.ts) runs and how it is banded: the --conv option's choice
// per conv (convFormFor, 'auto' from the H200 measurements), the bands of output tiles a conv's three
// kernels are dispatched over, and the scratch (V + M of one band) the planner counts. Pure TS.
import type { OptionValue } from '../options/schema';
import type { Conv3dParams } from './conv3d';
import type { WinoParams } from './winograd';
import { winoPositions, type WinoR } from './winograd-transforms';

/**
 * Largest scratch (V + M, bytes) of one conv's band: 128 MiB, WebGPU's default maxStorageBufferBindingSize
 * (the scratch is bound whole), so Winograd never needs a larger binding than the adapter's default
 * (Wan2.1 96ch 480x832 unbanded would be 2.4 GB for F(2x2), 1.4 GB for F(4x4)). Measured on the H200 at
 * 256 MiB (call 1) and at 128 MiB (call 2), bench/results/h200/winograd-2026-12-01-df5671f.
 */
export const WINO_SCRATCH_BYTES = 128 * 2 ** 20;

const stride = (nt: number) => Math.ceil(nt / 4) * 4;

/** A conv's Winograd form in a plan: tile side r and tiles per band (a multiple of 128, or all the frame's tiles). */
export interface WinoPlan {
  r: WinoR;
  band: number;
}

/** Output tiles of an h x w frame. */
export const winoTiles = (r: WinoR, h: number, w: number): number => Math.ceil(h / r) * Math.ceil(w / r);

/** Scratch elements of a band of `band` tiles: V [E][kt*cin][band] + M [E][cout][band]. */
export function winoScratchElems(r: WinoR, band: number, cin: number, cout: number, kt: number): number {
  return winoPositions(r) * (kt * cin + cout) * stride(band);
}

/**
 * The Winograd form of a conv, or null where it stays direct: 3x3 spatial taps and >= `minCout` output
 * channels (Wan's 3x3x3 causal convs and upsample Conv2d; 1x1, 3x1x1 and the 3- or 12-channel head stay
 * direct). Tiles per band: the most (a multiple of 128) whose scratch fits `capBytes`.
 */
export function winoPlanFor(r: WinoR, s: { ks: number; kt: number; cin: number; cout: number; h: number; w: number }, minCout = 96, capBytes = WINO_SCRATCH_BYTES): WinoPlan | null {
  if (s.ks !== 3 || s.cout < Math.max(16, minCout)) return null;
  const all = winoTiles(r, s.h, s.w);
  const perTile = winoPositions(r) * (s.kt * s.cin + s.cout) * 4;
  const fit = Math.max(128, Math.floor(capBytes / perTile / 128) * 128);
  return { r, band: Math.min(fit, stride(all)) };
}

/** Bands (dispatches of each of the three kernels) of a conv with an h x w output. */
export const winoBandCount = (wp: WinoPlan, h: number, w: number): number => Math.ceil(winoTiles(wp.r, h, w) / wp.band);

/** Params of each band dispatch of a conv whose direct params are `p`. */
export function winoBandParams(wp: WinoPlan, p: Conv3dParams, kt: number): WinoParams[] {
  const all = winoTiles(wp.r, p.h, p.w);
  const m_off = winoPositions(wp.r) * kt * p.cin * stride(wp.band);
  const out: WinoParams[] = [];
  for (let t0 = 0; t0 < all; t0 += wp.band) out.push({ ...p, t0, nt: Math.min(wp.band, all - t0), m_off });
  return out;
}

/** The --conv option (src/options/schema.ts). */
export type ConvOption = OptionValue<'conv'>;

/**
 * The form of one conv under --conv: null = the direct conv. 'winograd' / 'winograd4': every 3x3 conv
 * with >= 16 output channels; 'auto': the form measured fastest for the conv's shape (AUTO_WINO below).
 */
export function convFormFor(o: ConvOption, s: { ks: number; kt: number; cin: number; cout: number; h: number; w: number }): WinoPlan | null {
  // asked for: every 3x3 conv with >= 16 output channels (the golden cases' small widths too)
  if (o === 'winograd') return winoPlanFor(2, s, 16);
  if (o === 'winograd4') return winoPlanFor(4, s, 16);
  if (o === 'auto') {
    const r = AUTO_WINO(s);
    return r ? winoPlanFor(r, s) : null;
  }
  return null;
}

/**
 * 'auto': F(4x4) for the 3x3 convs of Wan2.1's widths (output channels a multiple of 96) and of Wan2.2's 256
 * and 512 channels, F(2x2) at 1024 channels and more (there F(4x4)'s 36 GEMMs over K = 3072 lose to F(2x2)),
 * the direct conv elsewhere. Wan2.2's largest layers (H200, 2026-12-01, lead's build of 7117f36,
 * bench/results/h200/winograd-wan22-2026-12-01-7117f36/r1), ms direct / F(2x2) / F(4x4): 256ch 352x640 30.61 / 15.37 /
 * 9.15; 512ch 176x320 31.53 / 14.46 / 10.09; 1024ch 88x160 28.66 / 14.29 / 17.19. H200, 2026-12-01, build of df5671f
 * (bench/results/h200/winograd-2026-12-01-df5671f/call1), the four ANCHORS layers, ms direct / F(2x2) / F(4x4):
 * 96ch 480x832 6.84 / 4.28 / 2.66; 192ch 240x416 6.86 / 3.68 / 2.15; 384ch 120x208 6.68 / 3.48 / 2.11;
 * 384ch 60x104 1.87 / 0.95 / 0.71 (effective 70-94 TFLOP/s for F(4x4) against 26.5-29.8 direct).
 *
 * Only on frames of at least AUTO_MIN_PIXELS (60x104, the smallest layer measured): below it nothing was
 * measured, and at small decodes the fixed costs dominate (U, 4x the 3x3 weights, transformed at upload;
 * three more pipelines per conv form). On lavapipe the CLI test's 1x2x2 latent (frames of 2x2 to
 * 16x16 px) took 3 s direct and 8.5 s as F(4x4), 2026-12-01.
 */
const AUTO_MIN_PIXELS = 60 * 104;
const AUTO_WINO = (s: { ks: number; kt: number; cin: number; cout: number; h: number; w: number }): WinoR | null => {
  if (s.ks !== 3 || s.cout < 96 || s.h * s.w < AUTO_MIN_PIXELS) return null;
  if (s.cout >= 1024 && s.cout % 128 === 0) return 2;
  return s.cout % 96 === 0 || s.cout % 128 === 0 ? 4 : null;
};
