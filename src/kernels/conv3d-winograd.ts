// conv3d by Winograd F(2x2, 3x3) for the 3x3 spatial taps (shaders/conv3d-winograd.wgsl): the 3x3x3
// causal conv (KT=3) and the upsample Conv2d 3x3 (KT=1, UP=1); 1x1 and 3x1x1 convs stay on conv3d.
// Same bindings, params and semantics as conv3d; the weight binding holds U = G g G^T per tap
// (packConvWeightWinograd: 16/9 of conv3d's weights). Pure description: no GPU objects.
import src from '../../shaders/conv3d-winograd.wgsl?raw';
import common from '../../shaders/conv3d-common.wgsl?raw';
import wElem from '../../shaders/conv3d-w.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, wgslConst, type Elem, type KernelDef } from '../gpu/kernel';
import { conv3d, type Conv3dParams } from './conv3d';

const MAX_TM4 = wgslConst(src, 'MAX_TM4');
const MAX_TT = wgslConst(src, 'MAX_TT');

/**
 * Tilings: 16 positions x TX x TY invocations, each TM4 vec4 channel groups x TT tiles of one position;
 * BK input channels per staging step. `gpu`: 32 channels x 32 tiles (128 pixels) per workgroup, 256
 * invocations (8 x 2 per position, 4 vec4 channel groups x 4 tiles each: 64 multiply-adds per 8
 * workgroup-memory loads), 32 KiB of workgroup memory; the other tilings timed on the H200 are the bench's
 * WINOGRAD_TILINGS (bench/scenarios.ts). `cpu`: the same shape (lavapipe: slower than conv3d, see the README).
 */
export const winogradTuning = {
  gpu: { TX: 8, TY: 2, TM4: 4, TT: 4, BK: 8 },
  cpu: { TX: 8, TY: 2, TM4: 4, TT: 4, BK: 8 },
} as const;

/** Workgroup shape of a tiling: [tiles, output channels, invocations] per workgroup. */
export function winogradBlock(o: Record<string, number>): { bt: number; bm: number; invocations: number } {
  return { bt: o.TX! * o.TT!, bm: o.TY! * o.TM4! * 4, invocations: 16 * o.TX! * o.TY! };
}

const overrides: Record<string, number> = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, ...winogradTuning.gpu };

/** 2x2 output tiles of an h x w frame. */
export function winogradTiles(h: number, w: number): number {
  return Math.ceil(h / 2) * Math.ceil(w / 2);
}

export const conv3dWinograd: KernelDef<Conv3dParams> = {
  id: 'conv3d-winograd',
  wgsl: `${src}\n${common}\n${wElem}`,
  bindings: conv3d.bindings,
  params: conv3d.params,
  overrides,
  dispatch(p, ov) {
    const o = { ...overrides, ...ov };
    check(p, o);
    const { bt, bm } = winogradBlock(o);
    return [Math.ceil(winogradTiles(p.h, p.w) / bt), Math.ceil(p.cout / bm), 1];
  },
  /** flops: the direct conv's (the work it stands for, so rates compare with conv3d); bytes: U is 16/9 of the weights */
  cost(p, ov, elem: Elem = 'f32') {
    const o = { ...overrides, ...ov };
    const d = conv3d.cost(p, { ...o, KS: 3 }, elem);
    const extraW = p.cout * p.cin * o.KT! * (16 - 9);
    return { flops: d.flops, bytes: d.bytes + extraW * elemBytes(elem) };
  },
};

/** Plan-time checks (DecoderError 'bad-input' naming the conv and the field). */
function check(p: Conv3dParams, o: Record<string, number>): void {
  const bad = (why: string) => new DecoderError('bad-input', `conv3d-winograd ${JSON.stringify({ ...p, ...o })}: ${why}`);
  if (o.KS !== 3) throw bad('KS must be 3 (Winograd F(2x2,3x3) covers the 3x3 spatial taps only)');
  if (o.KT !== 1 && o.KT !== 3) throw bad('KT must be 1 or 3');
  if (o.TM4! < 1 || o.TM4! > MAX_TM4 || o.TT! < 1 || o.TT! > MAX_TT) throw bad(`TM4 <= ${MAX_TM4}, TT <= ${MAX_TT}`);
  if (!(o.BK! >= 1 && o.TX! >= 1 && o.TY! >= 1)) throw bad('BK, TX, TY must be >= 1');
  if (![0, 1, 2].includes(o.HAS_RES!)) throw bad('HAS_RES must be 0, 1 or 2');
  if (p.tap0 >= o.KT!) throw bad('tap0 must be < KT');
  if (o.UP && (p.h % 2 || p.w % 2)) throw bad('UP=1 needs an even output size');
}

/** Number of elements packConvWeightWinograd returns: kt x 16 x cin x cout padded to 4. */
export function winogradWeightLength(cout: number, cin: number, kt: number): number {
  return kt * 16 * cin * Math.ceil(cout / 4) * 4;
}

/**
 * PyTorch weight [cout, cin, kt, 3, 3] -> U = G g G^T per (dt, cout, cin) as [kt][16 ξ][cin][cout4*4]
 * (ξ = 4 * row + column of the 4x4 U; cout padded with zeros), computed in float64 and rounded once.
 */
export function packConvWeightWinograd(w: Float32Array, cout: number, cin: number, kt: number): Float32Array {
  if (w.length !== cout * cin * kt * 9)
    throw new DecoderError('bad-input', `packConvWeightWinograd: ${w.length} values for [${cout}, ${cin}, ${kt}, 3, 3]`);
  const co4 = Math.ceil(cout / 4) * 4;
  const out = new Float32Array(winogradWeightLength(cout, cin, kt));
  const gg = new Float64Array(12); // G g: 4 x 3
  for (let o = 0; o < cout; o++)
    for (let c = 0; c < cin; c++)
      for (let t = 0; t < kt; t++) {
        const g = (r: number, s: number) => w[(((o * cin + c) * kt + t) * 3 + r) * 3 + s]!;
        for (let s = 0; s < 3; s++) {
          gg[s] = g(0, s);
          gg[3 + s] = (g(0, s) + g(1, s) + g(2, s)) / 2;
          gg[6 + s] = (g(0, s) - g(1, s) + g(2, s)) / 2;
          gg[9 + s] = g(2, s);
        }
        for (let r = 0; r < 4; r++) {
          const a = gg[r * 3]!, b = gg[r * 3 + 1]!, d = gg[r * 3 + 2]!;
          const u = [a, (a + b + d) / 2, (a - b + d) / 2, d];
          for (let q = 0; q < 4; q++) out[((t * 16 + r * 4 + q) * cin + c) * co4 + o] = u[q]!;
        }
      }
  return out;
}

/** --conv: 'direct' (conv3d everywhere), 'winograd' (every 3x3 conv Winograd), 'auto' (WINOGRAD_AUTO's rule). */
export type ConvAlgo = 'direct' | 'winograd' | 'auto';

/**
 * The auto rule: Winograd where it was measured faster than conv3d. PLACEHOLDER until measured: the
 * rule is set from bench/results/h200/winograd-2026-12-01-s5/ (see the README's Winograd paragraph).
 */
export const WINOGRAD_AUTO = { minCin: 1 << 30 } as const;

/** Whether a conv step of this shape runs as Winograd under `algo` (only 3x3 spatial taps can). */
export function convOnWinograd(s: { cin: number; cout: number; ks: number }, algo: ConvAlgo): boolean {
  if (s.ks !== 3 || algo === 'direct') return false;
  return algo === 'winograd' || s.cin >= WINOGRAD_AUTO.minCin;
}
