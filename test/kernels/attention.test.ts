// attention (shaders/attention.wgsl): the core against a plain f64 softmax(q·k·scale)·v reference in this
// file, and the whole vae.py AttentionBlock (rms-norm -> 1x1 conv qkv -> attention -> 1x1 conv proj +
// residual) against src/cpu/ops.ts attention. Tolerances: NMSE <= 1e-7 (f32), <= 1e-4 (f16 storage,
// inputs rounded for the reference too); f32 core also |err| <= 1e-5 + 1e-4·|ref|.
import { beforeEach, describe, expect, it } from 'vitest';
import { attentionCore as cpuAttentionCore } from '../../src/cpu/ops';
import { attention as attentionRef, tensor } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import { attention, attentionOverrides, type AttentionParams } from '../../src/kernels/attention';
import { conv3d, conv3dTuning, packConvWeight } from '../../src/kernels/conv3d';
import { rmsNorm } from '../../src/kernels/rms-norm';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

/** o[c, n] = Σ_k softmax_k(scale·q_n·k_k) v[c, k] from qkv [3C, N]: the CPU reference's core, as f32. */
const attentionCore = (qkv: Float32Array, C: number, N: number, scale: number) => Float32Array.from(cpuAttentionCore(qkv, C, N, scale));

const cases = [
  { c: 8, n: 1, std: 1 },
  { c: 5, n: 35, std: 1 },
  { c: 20, n: 37, std: 3 }, // scores ~ N(0, 81): needs the running max
  { c: 300, n: 40, std: 1 }, // channels beyond 256: second register slot
  { c: 1024, n: 17, std: 1 }, // Wan2.2 head dim
  // several key blocks of 64 (the last partial) and query blocks: the online rescaling across blocks
  { c: 20, n: 150, std: 3 },
  { c: 130, n: 70, std: 2 },
];
const name = (c: (typeof cases)[number]) => `c${c.c} n${c.n} std${c.std}`;

/** `ov`: the decoder's overrides for the head dim (NJ = ceil(c / 256)) unless given (the shader's default NJ 4). */
async function runCore(k: (typeof cases)[number], elem: Elem, ov: Record<string, number> = attentionOverrides(k.c)) {
  const qkv = roundToElem(randn(3 * k.c * k.n, 41, k.std), elem);
  const scale = 1 / Math.sqrt(k.c);
  const want = attentionCore(qkv, k.c, k.n, scale);
  const got = await withDevice(async (s) => {
    const o = s.zeros(k.c * k.n, elem === 'f16' ? 2 : 4);
    const p: AttentionParams = { c: k.c, n: k.n, scale };
    await s.run(attention, p, ov, elem, [s.upload(qkv, elem, 'qkv'), o]);
    return s.read(o, elem, k.c * k.n);
  });
  const tol = elem === 'f32' ? { atol: 1e-5, rtol: 1e-4, nmse: 1e-7 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${name(k)} ${elem} NJ ${ov.NJ}` });
  console.info(`attention ${name(k)} ${elem} NJ ${ov.NJ}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

/** The AttentionBlock of one frame [C, h, w] composed from the kernels, against ops.attention. */
async function runBlock(C: number, h: number, w: number) {
  const N = h * w;
  const x = randn(C * N, 51);
  const gamma = randn(C, 52, 0.5);
  const wqkv = randn(3 * C * C, 53, 1 / Math.sqrt(C));
  const bqkv = randn(3 * C, 54, 0.1);
  const wproj = randn(C * C, 55, 1 / Math.sqrt(C));
  const bproj = randn(C, 56, 0.1);
  const want = attentionRef(tensor([C, 1, h, w], x), tensor([C], gamma), tensor([3 * C, C], wqkv), tensor([3 * C], bqkv), tensor([C, C], wproj), tensor([C], bproj)).data;
  const got = await withDevice(async (s) => {
    const xb = s.upload(x, 'f32', 'x');
    const u = s.zeros(C * N, 4, 'u');
    const qkv = s.zeros(3 * C * N, 4, 'qkv');
    const a = s.zeros(C * N, 4, 'a');
    const out = s.zeros(C * N, 4, 'out');
    const conv = { x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0, cin: C, h, w };
    const ov1 = { KT: 1, KS: 1, ...conv3dTuning.cpu };
    await s.run(rmsNorm, { c: C, hw: N, x_off: 0, y_off: 0, p0: 0, np: N }, {}, 'f32', [xb, s.upload(gamma, 'f32'), u]);
    const wq = s.upload(packConvWeight(wqkv, 3 * C, C, 1, 1), 'f32', 'wqkv');
    await s.run(conv3d, { ...conv, cout: 3 * C }, ov1, 'f32', [u, s.dummy(), wq, s.upload(bqkv, 'f32'), s.dummy(), qkv, s.dummy()]);
    await s.run(attention, { c: C, n: N, scale: 1 / Math.sqrt(C) }, {}, 'f32', [qkv, a]);
    const wp = s.upload(packConvWeight(wproj, C, C, 1, 1), 'f32', 'wproj');
    await s.run(conv3d, { ...conv, cout: C }, { ...ov1, HAS_RES: 1 }, 'f32', [a, s.dummy(), wp, s.upload(bproj, 'f32'), xb, out, s.dummy()]);
    return s.read(out, 'f32', C * N);
  });
  const r = expectClose(got, want, { nmse: 1e-7, label: `block c${C} ${h}x${w}` });
  console.info(`attention block c${C} ${h}x${w} f32: max|err| ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}`);
}

describe('attention', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCore(c, 'f32'));
  it.for(cases.map((c) => [name(c), c] as const))('f16 %s', ([, c], ctx) => {
    needF16(ctx, gpu);
    return runCore(c, 'f16');
  });
  it('f32 AttentionBlock c12 3x5 composed from kernels vs ops.attention', () => runBlock(12, 3, 5));
  it('f32 with NJ 4 for every head dim (the shader default: spare channel slots idle)', async () => {
    for (const k of cases.filter((x) => x.c === 5 || x.c === 130)) await runCore(k, 'f32', { NJ: 4 });
  });
  it('NJ per head dim: ceil(c / 256), 1 to 4 (Wan2.1 C 384 -> 2, Wan2.2 C 1024 -> 4)', () => {
    expect([1, 256, 257, 384, 512, 513, 1024].map((c) => attentionOverrides(c).NJ)).toEqual([1, 1, 2, 2, 2, 3, 4]);
  });
  it('rejects head dim > 1024, and a head dim over its pipeline NJ', () => {
    expect(() => attention.dispatch({ c: 1025, n: 4, scale: 1 }, { NJ: 4 })).toThrow(/head dim/);
    expect(() => attention.dispatch({ c: 384, n: 4, scale: 1 }, { NJ: 1 })).toThrow(/needs NJ >= 2/);
  });
});
