// conv3d by Winograd F(m x m, 3x3) for the 3x3 spatial taps: m = 2 (shaders/conv3d-winograd.wgsl,
// 16 positions) and m = 4 (shaders/conv3d-winograd4.wgsl, 36 positions): the 3x3x3 causal conv (KT=3)
// and the upsample Conv2d 3x3 (KT=1, UP=1); 1x1 and 3x1x1 convs stay on conv3d. Same bindings, params
// and semantics as conv3d; the weight binding holds U = G g G^T per tap (packConvWeightWinograd:
// (m+2)^2/9 of conv3d's weights: 16/9 for m = 2, 4x for m = 4). Pure description: no GPU objects.
import src from '../../shaders/conv3d-winograd.wgsl?raw';
import src4 from '../../shaders/conv3d-winograd4.wgsl?raw';
import common from '../../shaders/conv3d-common.wgsl?raw';
import wElem from '../../shaders/conv3d-w.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, wgslConst, type Elem, type KernelDef } from '../gpu/kernel';
import { conv3d, type Conv3dParams } from './conv3d';

/** Output tile side m of a Winograd F(m x m, 3x3) kernel. */
export type WinogradM = 2 | 4;

/**
 * Tilings: (m+2)^2 positions x TX x TY invocations, each TM4 vec4 channel groups x TT tiles of one
 * position; BK input channels per staging step. m = 2 `gpu`: 32 channels x 32 tiles (128 pixels) per
 * workgroup, 256 invocations (8 x 2 per position, 4 vec4 channel groups x 4 tiles each: 64
 * multiply-adds per 8 workgroup-memory loads), 32 KiB of workgroup memory; the other tilings timed on
 * the H200 are the bench's WINOGRAD_TILINGS (bench/scenarios.ts). m = 4: 32 channels x 8 tiles (128
 * pixels), 144 invocations, 22.5 KiB. `cpu`: the same shapes (lavapipe: slower than conv3d, README).
 */
export const winogradTuning = {
  gpu: { TX: 8, TY: 2, TM4: 4, TT: 4, BK: 8 },
  cpu: { TX: 8, TY: 2, TM4: 4, TT: 4, BK: 8 },
} as const;
export const winograd4Tuning = {
  gpu: { TX: 2, TY: 2, TM4: 4, TT: 4, BK: 4 },
  cpu: { TX: 2, TY: 2, TM4: 4, TT: 4, BK: 4 },
} as const;

/** Workgroup shape of a tiling: [tiles, output channels, invocations] per workgroup. */
export function winogradBlock(o: Record<string, number>, m: WinogradM = 2): { bt: number; bm: number; invocations: number } {
  return { bt: o.TX! * o.TT!, bm: o.TY! * o.TM4! * 4, invocations: (m + 2) ** 2 * o.TX! * o.TY! };
}

/** m x m output tiles of an h x w frame. */
export function winogradTiles(h: number, w: number, m: WinogradM = 2): number {
  return Math.ceil(h / m) * Math.ceil(w / m);
}

function winogradDef(m: WinogradM, id: string, wgsl: string, tuning: Record<string, number>): KernelDef<Conv3dParams> {
  const overrides: Record<string, number> = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, ...tuning };
  const limits = { tm4: wgslConst(wgsl, 'MAX_TM4'), tt: wgslConst(wgsl, 'MAX_TT') };
  return {
    id,
    wgsl: `${wgsl}\n${common}\n${wElem}`,
    bindings: conv3d.bindings,
    params: conv3d.params,
    overrides,
    dispatch(p, ov) {
      const o = { ...overrides, ...ov };
      check(id, m, limits, p, o);
      const { bt, bm } = winogradBlock(o, m);
      return [Math.ceil(winogradTiles(p.h, p.w, m) / bt), Math.ceil(p.cout / bm), 1];
    },
    /** flops: the direct conv's (the work it stands for, so rates compare with conv3d); bytes: U is (m+2)^2/9 of the weights */
    cost(p, ov, elem: Elem = 'f32') {
      const o = { ...overrides, ...ov };
      const d = conv3d.cost(p, { ...o, KS: 3 }, elem);
      const extraW = p.cout * p.cin * o.KT! * ((m + 2) ** 2 - 9);
      return { flops: d.flops, bytes: d.bytes + extraW * elemBytes(elem) };
    },
  };
}

/** F(2x2, 3x3) */
export const conv3dWinograd = winogradDef(2, 'conv3d-winograd', src, winogradTuning.gpu);
/** F(4x4, 3x3) */
export const conv3dWinograd4 = winogradDef(4, 'conv3d-winograd4', src4, winograd4Tuning.gpu);

/** Plan-time checks (DecoderError 'bad-input' naming the conv and the field). */
function check(id: string, m: WinogradM, max: { tm4: number; tt: number }, p: Conv3dParams, o: Record<string, number>): void {
  const bad = (why: string) => new DecoderError('bad-input', `${id} ${JSON.stringify({ ...p, ...o })}: ${why}`);
  if (o.KS !== 3) throw bad(`KS must be 3 (Winograd F(${m}x${m},3x3) covers the 3x3 spatial taps only)`);
  if (o.KT !== 1 && o.KT !== 3) throw bad('KT must be 1 or 3');
  if (o.TM4! < 1 || o.TM4! > max.tm4 || o.TT! < 1 || o.TT! > max.tt) throw bad(`TM4 <= ${max.tm4}, TT <= ${max.tt}`);
  if (!(o.BK! >= 1 && o.TX! >= 1 && o.TY! >= 1)) throw bad('BK, TX, TY must be >= 1');
  if (![0, 1, 2].includes(o.HAS_RES!)) throw bad('HAS_RES must be 0, 1 or 2');
  if (p.tap0 >= o.KT!) throw bad('tap0 must be < KT');
  if (o.UP && (p.h % 2 || p.w % 2)) throw bad('UP=1 needs an even output size');
}

/** Number of elements packConvWeightWinograd returns: kt x (m+2)^2 x cin x cout padded to 4. */
export function winogradWeightLength(cout: number, cin: number, kt: number, m: WinogradM = 2): number {
  return kt * (m + 2) ** 2 * cin * Math.ceil(cout / 4) * 4;
}

/** G of F(m x m, 3x3): (m+2) x 3 (rows of the kernel transform U = G g G^T). */
const G: Record<WinogradM, number[][]> = {
  2: [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]],
  4: [[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6], [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]],
};

/**
 * PyTorch weight [cout, cin, kt, 3, 3] -> U = G g G^T per (dt, cout, cin) as [kt][(m+2)^2 ξ][cin][cout4*4]
 * (ξ = (m+2) * row + column of U; cout padded with zeros), computed in float64 and rounded once.
 */
export function packConvWeightWinograd(w: Float32Array, cout: number, cin: number, kt: number, m: WinogradM = 2): Float32Array {
  if (w.length !== cout * cin * kt * 9)
    throw new DecoderError('bad-input', `packConvWeightWinograd: ${w.length} values for [${cout}, ${cin}, ${kt}, 3, 3]`);
  const n = m + 2, g = G[m], nx = n * n;
  const co4 = Math.ceil(cout / 4) * 4;
  const out = new Float32Array(winogradWeightLength(cout, cin, kt, m));
  const gg = new Float64Array(n * 3); // G g: n x 3
  for (let o = 0; o < cout; o++)
    for (let c = 0; c < cin; c++)
      for (let t = 0; t < kt; t++) {
        const k = (((o * cin + c) * kt + t) * 3) * 3;
        for (let r = 0; r < n; r++)
          for (let s = 0; s < 3; s++) gg[r * 3 + s] = g[r]![0]! * w[k + s]! + g[r]![1]! * w[k + 3 + s]! + g[r]![2]! * w[k + 6 + s]!;
        for (let r = 0; r < n; r++)
          for (let q = 0; q < n; q++) {
            const u = gg[r * 3]! * g[q]![0]! + gg[r * 3 + 1]! * g[q]![1]! + gg[r * 3 + 2]! * g[q]![2]!;
            out[((t * nx + r * n + q) * cin + c) * co4 + o] = u;
          }
      }
  return out;
}

/** --conv: 'direct' (conv3d everywhere), 'winograd' / 'winograd4' (every 3x3 conv F(2x2) / F(4x4)), 'auto' (WINOGRAD_AUTO). */
export type ConvAlgo = 'direct' | 'winograd' | 'winograd4' | 'auto';

/**
 * The auto rule: Winograd for convs of at least `minCin` input channels, where it was measured faster
 * than conv3d. Measured nowhere yet (bench/results/h200/winograd-2026-12-01-s5/): on the H200 at
 * 1e4bb91 F(2x2) took 0.17x and F(4x4) 0.26x of conv3d's speed (accumulators in local memory, fixed
 * in 407e040, not re-measured), on lavapipe 0.27-0.72x: auto runs the direct conv everywhere.
 */
export const WINOGRAD_AUTO: { minCin: number; m: WinogradM } = { minCin: Infinity, m: 2 };

/** The Winograd tile m a conv step of this shape runs with under `algo`, or undefined: the direct conv (only 3x3 spatial taps can). */
export function convWinograd(s: { cin: number; cout: number; ks: number }, algo: ConvAlgo): WinogradM | undefined {
  if (s.ks !== 3 || algo === 'direct') return undefined;
  if (algo === 'winograd') return 2;
  if (algo === 'winograd4') return 4;
  return s.cin >= WINOGRAD_AUTO.minCin ? WINOGRAD_AUTO.m : undefined;
}
