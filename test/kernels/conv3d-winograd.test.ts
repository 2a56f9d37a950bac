// conv3d-winograd (Winograd F(2x2,3x3), shaders/conv3d-winograd.wgsl) against the CPU reference of one
// conv step (test/helpers/conv-reference.ts, built from src/cpu/ops), one output frame.
// Tolerance (f32): |err| <= 2e-5 + 2e-5·|ref| and NMSE <= 1e-9. Why: with inputs ~N(0,1) and weights
// ~N(0, 1/fanIn) the outputs are O(1); F(2x2) multiplies transformed values that are sums of <= 4 inputs
// and <= 9 half-weights, so each product carries a few f32 roundings (~1e-7 relative) and the sum over
// K = 27·cin terms grows that by ~sqrt(K): ~1e-6..1e-5 absolute, which the direct conv's 1e-4 bound
// would not separate from a wrong transform. A wrong B, G or A matrix, a swapped tap, a misplaced tile
// or channel, or a missing temporal tap gives errors O(0.1..1) (NMSE >= 1e-3); the fused norm read
// without inv or gamma likewise. f16 storage (inputs rounded to f16 for the reference, U rounded to f16
// after the transform): NMSE <= 1e-4 as conv3d's f16 cases. F(4x4,3x3) (conv3d-winograd4): its
// transforms scale by up to 8 (A) and 1/24 (G) and sum 6 terms, ~20x F(2x2)'s rounding: |err| <= 1e-4 +
// 1e-4·|ref|, NMSE <= 1e-8 (measured 4.3e-5 / 1.2e-11 at 96 channels); a wrong point or sign is O(1).
// Frames sit at odd element offsets; tap0 > 0 cases fill the skipped cache frames with NaN (a read of
// them would poison the output); odd sizes leave partial 2x2 tiles at the right and bottom edges and
// partial channel / tile blocks.
import { beforeEach, describe, expect, it } from 'vitest';
import { rmsNorm, tensor } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import type { Conv3dParams } from '../../src/kernels/conv3d';
import { conv3dWinograd, conv3dWinograd4, packConvWeightWinograd, winograd4Tuning, winogradBlock, winogradTuning, winogradWeightLength } from '../../src/kernels/conv3d-winograd';
import { expectClose } from '../helpers/compare';
import { convReference, invRow, type ConvStep } from '../helpers/conv-reference';
import { isBrowser } from '../helpers/env';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

interface Case extends ConvStep {
  res: 0 | 1 | 2;
  tap0: number;
  tune: keyof typeof tunings;
  norm?: 0 | 1;
}

/** gpu: the shipped tiling; small: tiny blocks (many workgroups, several channel steps, odd BK) */
const tunings = {
  gpu: winogradTuning.gpu,
  small: { TX: 2, TY: 2, TM4: 1, TT: 3, BK: 3 },
  // F(4x4,3x3) (conv3d-winograd4)
  gpu4: winograd4Tuning.gpu,
} as const;
const m4 = (c: Case) => c.tune === 'gpu4';

// Six pipelines in all (five F(2x2), one F(4x4); lavapipe compiles each in ~3-20 s, the CI's cost;
// cases sharing overrides share one, and the res 0 / up 1 ones are those the decode test's lavapipe
// plan compiles too): the shipped
// tiling without residual (odd sizes, tap0 = 1 and 2, a 1x1 frame, a 96-channel layer), the small tiling
// with the fused norm and a residual binding, the upsample conv, the fused norm + SiLU in place (f32, f16).
const cases: (Case & { f16?: true })[] = [
  // odd sizes: partial tiles at the right / bottom edge, cout not a multiple of 4, cin < BK
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 0, tap0: 0, tune: 'gpu' },
  { cin: 17, cout: 6, h: 4, w: 9, kt: 3, ks: 3, up: 0, res: 0, tap0: 2, tune: 'gpu' },
  { cin: 3, cout: 4, h: 1, w: 1, kt: 3, ks: 3, up: 0, res: 0, tap0: 1, tune: 'gpu' },
  // a real decoder layer (Wan2.1 up block 3, 96 channels), small frame
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 0, tap0: 0, tune: 'gpu' },
  // tiny blocks: several workgroups both ways, channel steps with a partial last one; residual binding
  { cin: 20, cout: 40, h: 5, w: 18, kt: 3, ks: 3, up: 0, res: 1, tap0: 1, tune: 'small', norm: 0 },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'small', norm: 0 },
  // the upsample Conv2d 3x3 (nearest-2x read in place)
  { cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0, tune: 'gpu' },
  // --norm fused with SiLU (NORM=1), in-place residual (HAS_RES=2)
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 0, tune: 'gpu', norm: 1, f16: true },
  // F(4x4,3x3), one pipeline (the operand loads and epilogue variants are F(2x2)'s code): partial 4x4
  // tiles, tap0 > 0, the 96-channel layer
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 0, tap0: 0, tune: 'gpu4' },
  { cin: 17, cout: 6, h: 6, w: 9, kt: 3, ks: 3, up: 0, res: 0, tap0: 2, tune: 'gpu4' },
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 0, tap0: 0, tune: 'gpu4' },
];

const name = (c: Case) =>
  `cin${c.cin} cout${c.cout} ${c.h}x${c.w} k${c.kt}x${c.ks} up${c.up} res${c.res} tap0=${c.tap0} ${c.tune}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}`;

async function runCase(c: Case, elem: Elem) {
  const hi = c.up ? c.h / 2 : c.h;
  const wi = c.up ? c.w / 2 : c.w;
  const hwIn = hi * wi;
  const frameLen = c.cin * hwIn;
  const outLen = c.cout * c.h * c.w;
  const fanIn = c.cin * c.kt * 9;
  const raw = [0, 1, 2].slice(0, c.kt).map((i) => roundToElem(randn(frameLen, 300 + i), elem));
  const wt = roundToElem(randn(c.cout * fanIn, 27, 1 / Math.sqrt(fanIn)), elem);
  const bias = roundToElem(randn(c.cout, 28, 0.1), elem);
  const res = roundToElem(randn(outLen, 29), elem);
  const gamma = roundToElem(randn(c.cin, 30, 0.5), elem);
  const normed = c.norm === undefined ? raw : raw.map((f) => rmsNorm(tensor([c.cin, hwIn], f), tensor([c.cin], gamma), c.norm === 1).data);
  const want = convReference(c, normed, wt, bias, res);
  const frames = c.norm === undefined ? raw : raw.map((f) => {
    const g = new Float32Array(frameLen + hwIn);
    g.set(f);
    g.set(roundToElem(invRow(f, c.cin, hwIn), elem), frameLen);
    return g;
  });
  const stored = frames[0]!.length;
  // buffer layout: x at 3; cache = [pad 5][t-1][t-2] (NaN where no frame); res at 1; y at 2
  const xOff = 3, prev1Off = 5, prev2Off = 5 + stored, resOff = 1, yOff = 2;
  const xData = new Float32Array(xOff + stored);
  xData.set(frames[c.kt - 1]!, xOff);
  const cacheData = new Float32Array(prev2Off + stored).fill(NaN);
  if (c.kt === 3) {
    if (c.tap0 <= 1) cacheData.set(frames[1]!, prev1Off);
    if (c.tap0 === 0) cacheData.set(frames[0]!, prev2Off);
  }
  const resData = new Float32Array(resOff + outLen);
  resData.set(res, resOff);
  const got = await withDevice(async (s) => {
    const bpe = elem === 'f16' ? 2 : 4;
    const yInit = new Float32Array(yOff + outLen);
    if (c.res === 2) yInit.set(res, yOff);
    const y = c.res === 2 ? s.upload(yInit, elem, 'y') : s.zeros(yOff + outLen, bpe);
    const bufs = [
      s.upload(xData, elem, 'x'),
      c.kt === 3 ? s.upload(cacheData, elem, 'cache') : s.dummy(),
      s.upload(packConvWeightWinograd(wt, c.cout, c.cin, c.kt, m4(c) ? 4 : 2), elem, 'w'),
      s.upload(bias, elem, 'b'),
      c.res === 1 ? s.upload(resData, elem, 'res') : s.dummy(),
      y,
      c.norm !== undefined ? s.upload(gamma, elem, 'gamma') : s.dummy(),
    ];
    const p: Conv3dParams = { cin: c.cin, cout: c.cout, h: c.h, w: c.w, x_off: xOff, prev2_off: prev2Off, prev1_off: prev1Off, res_off: resOff, y_off: yOff, tap0: c.tap0 };
    const ov = { KT: c.kt, KS: 3, UP: c.up, HAS_RES: c.res, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0, ...tunings[c.tune] };
    await s.run(m4(c) ? conv3dWinograd4 : conv3dWinograd, p, ov, elem, bufs);
    return s.read(y, elem, outLen, yOff);
  });
  const tol = elem === 'f32' ? (m4(c) ? { atol: 1e-4, rtol: 1e-4, nmse: 1e-8 } : { atol: 2e-5, rtol: 2e-5, nmse: 1e-9 }) : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `winograd ${name(c)} ${elem}` });
  console.info(`conv3d-winograd ${name(c)} ${elem}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

const maxInv = gpu?.device.limits.maxComputeInvocationsPerWorkgroup ?? 256;
// the browser (SwiftShader) runs the two plain pipelines (F(2x2), F(4x4)): ~15-25 s of compile each there
// (measured 2026-12-01: 110 s for all of them), the CI's budget; the variants' code paths run in Node
const inBrowser = (c: Case) => !isBrowser || (c.res === 0 && !c.up && c.norm === undefined);
const runnable = (c: Case) => winogradBlock(tunings[c.tune], m4(c) ? 4 : 2).invocations <= maxInv && inBrowser(c);

describe('conv3d-winograd', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.filter(runnable).map((c) => [name(c), c] as const))('f32 %s', async (_n, c) => {
    await runCase(c, 'f32');
  });
  it.for(cases.filter((c) => c.f16 && runnable(c)).map((c) => [name(c), c] as const))('f16 %s', async ([, c], ctx) => {
    needF16(ctx, gpu);
    await runCase(c, 'f16');
  });
  it('dispatch rejects 1x1 / 3x1x1 convs, an odd size with UP=1 and tap0 >= KT', () => {
    const p = { cin: 1, cout: 1, h: 5, w: 4, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0 };
    expect(() => conv3dWinograd.dispatch(p, { KT: 3, KS: 1 })).toThrow(/KS must be 3/);
    expect(() => conv3dWinograd.dispatch(p, { KT: 1, KS: 3, UP: 1 })).toThrow(/even/);
    expect(() => conv3dWinograd.dispatch({ ...p, tap0: 1 }, { KT: 1, KS: 3 })).toThrow(/tap0/);
  });
  it('packConvWeightWinograd: U = G g G^T (a delta kernel at the centre gives U = outer(u, u), u = [0, .5, -.5, 0])', () => {
    // g = e_(1,1): G g G^T = G[:,1] G[:,1]^T with G[:,1] = [0, .5, -.5, 0]
    const g = new Float32Array(9);
    g[4] = 1;
    const u = packConvWeightWinograd(g, 1, 1, 1); // [1][16][1][4]
    expect(u.length).toBe(winogradWeightLength(1, 1, 1));
    const col = [0, 0.5, -0.5, 0];
    for (let r = 0; r < 4; r++) for (let q = 0; q < 4; q++) expect(u[(r * 4 + q) * 4]).toBeCloseTo(col[r]! * col[q]!, 12);
    expect(() => packConvWeightWinograd(new Float32Array(8), 1, 1, 1)).toThrow(/8 values for \[1, 1, 1, 3, 3\]/);
  });
});
