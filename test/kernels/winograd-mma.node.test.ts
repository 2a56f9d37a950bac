// The Winograd conv on tensor cores (src/kernels/winograd-mma.ts: winograd-mma-in, the batched GEMM, winograd-out
// per band of tiles) against the CPU oracle of one causal conv step (test/helpers/conv-case.ts: random frames at
// odd offsets, NaN in the cache frames before tap0, NORM=1 cases normalised by the oracle), f16 storage (inputs
// rounded to f16 for the oracle too), F(2x2,3x3) (F(4x4)'s input transform, 4 channels x 36 values per invocation,
// did not compile within 5 minutes on lavapipe: the decoder does not plan it), kt 3 (every tap0) and the upsample Conv2d
// (kt 1, UP=1), odd H/W (cropped tiles, partial 16-tile blocks), both residuals, several bands per conv (the last
// partial), channel counts past one TM group and TN tails. The GEMM runs emulated (scalar products in the
// generated kernel's offsets, tiles and loop order: what the decoder runs without subgroup matrices), and as
// the real subgroup-matrix kernel where the adapter offers 16x16x16 f16 -> f32 (skipped elsewhere with the reason).
// The scratch starts as NaN: a GEMM or output transform reading V or M outside what the band wrote fails.
// Why a wrong implementation fails: a wrong operand offset, K order (dt, cb), tile position or band moves
// outputs by O(0.1) (weights ~1/sqrt(fan-in), inputs ~N(0,1)); f16 V and M add ~1e-3 relative (NMSE <= 2e-5;
// measured 9e-8 to 4e-7 on lavapipe).
// U on the GPU (winogradMmaWeights through exec/wino-weights.ts) against the JS layout of the float64 transform.
import { describe, expect, it } from 'vitest';
import { winogradMmaGemm, winogradMmaIn, winogradMmaWeights, winogradOut, winoMmaOverrides, type WinoMmaShape } from '../../src/kernels/winograd-mma';
import { winoMmaWeightLayout } from '../../src/kernels/winograd-mma-layout';
import { winoBandParams, winoMmaPlanFor, winoScratchElems, WINO_SCRATCH_BYTES } from '../../src/plan/conv-form';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { plan, type Plan } from '../../src/plan/planner';
import { packWinogradWeight, winoWeightLength, type WinoR } from '../../src/kernels/winograd-transforms';
import { prepareWinoWeights } from '../../src/runtime/exec/wino-weights';
import type { BlockedWeightJob } from '../../src/runtime/exec/weights';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice, needF16, notOnThisAdapter } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

interface Case extends ConvCase {
  r: WinoR;
  /** tiles per band (a multiple of 16) */
  band: number;
  tiles: WinoMmaShape;
}

const cases: Case[] = [
  // one band, a partial 16-tile block, norm + SiLU, a residual
  { r: 2, band: 16, tiles: { tm: 3, tn: 2 }, cin: 16, cout: 32, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  // 2 bands (the last partial), tap0 1, in-place residual, cout 48 = one full TM group, TN tail
  { r: 2, band: 16, tiles: { tm: 3, tn: 2 }, cin: 32, cout: 48, h: 9, w: 10, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 0 },
  // tap0 2 (first frame), cout 64 past one TM group (clamped repeated block), 2x4 tiles
  { r: 2, band: 32, tiles: { tm: 2, tn: 4 }, cin: 16, cout: 64, h: 7, w: 11, kt: 3, ks: 3, up: 0, res: 0, tap0: 2 },
  // the upsample Conv2d: kt 1, nearest-2x read in place
  { r: 2, band: 16, tiles: { tm: 3, tn: 2 }, cin: 16, cout: 16, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0 },
];

const name = (c: Case) =>
  `F(${c.r}x${c.r}) ${c.tiles.tm}x${c.tiles.tn} cin${c.cin} cout${c.cout} ${c.h}x${c.w} kt${c.kt} up${c.up} res${c.res} tap0=${c.tap0} band ${c.band}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}`;

async function runCase(c: Case, emulate: boolean) {
  const elem = 'f16' as const;
  const { wt, bias, gamma, want, xData, cacheData, resData, yInit, params, outLen } = convCase(c, elem, { frames: 400, params: 23 });
  const got = await withDevice(async (s) => {
    const x = s.upload(xData, elem, 'x');
    const cache = c.kt === 3 ? s.upload(cacheData, elem, 'cache') : s.dummy();
    const g = c.norm !== undefined ? s.upload(gamma, elem, 'gamma') : s.dummy();
    const u = s.upload(winoMmaWeightLayout(packWinogradWeight(wt, c.r, c.cout, c.cin, c.kt), c.r, c.cout, c.cin, c.kt), elem, 'U');
    const b = s.upload(bias, elem, 'b');
    const res = c.res === 1 ? s.upload(resData, elem, 'res') : s.dummy();
    const y = c.res === 2 ? s.upload(yInit, elem, 'y') : s.zeros(yInit.length, 2);
    const scratch = s.upload(new Float32Array(winoScratchElems(c.r, c.band, c.cin, c.cout, c.kt)).fill(NaN), elem, 'scratch');
    const ov = winoMmaOverrides({ KT: c.kt, UP: c.up, HAS_RES: c.res, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0, SG: 32 });
    const bands = winoBandParams({ r: c.r, band: c.band }, params, c.kt);
    for (const p of bands) {
      await s.run(winogradMmaIn(c.r), p, ov.in, elem, [x, cache, g, scratch]);
      await s.run(winogradMmaGemm(c.r, c.tiles, emulate), p, ov.gemm, elem, [scratch, u]);
      await s.run(winogradOut(c.r, 'elem'), p, ov.out, elem, [scratch, b, res, y]);
    }
    return { y: await s.read(y, elem, outLen, params.y_off), bands: bands.length };
  });
  const r = expectClose(got.y, want, { atol: 0.1, rtol: 0.05, nmse: 2e-5, label: name(c) });
  console.info(`winograd-mma ${emulate ? 'emulated' : 'subgroup matrices'} ${name(c)}: ${got.bands} bands, max|err| ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}`);
  return got.bands;
}

describe('winograd-mma: in + batched GEMM + out per band against the CPU conv (f16)', () => {
  it.for(cases.map((c) => [name(c), c] as const))('emulated GEMM: %s', async ([_n, c], ctx) => {
    needF16(ctx, gpu);
    const bands = await runCase(c, true);
    expect(bands).toBe(Math.ceil((Math.ceil(c.h / c.r) * Math.ceil(c.w / c.r)) / c.band));
  });
  it.for(cases.map((c) => [name(c), c] as const))('subgroup matrices: %s', async ([_n, c], ctx) => {
    needF16(ctx, gpu);
    if (!gpu!.mma) notOnThisAdapter(ctx, 'no 16x16x16 f16 -> f32 subgroup matrices on this adapter (chromium-experimental-subgroup-matrix)');
    await runCase(c, false);
  });
});

describe('winograd-mma-weights: U on the GPU in the GEMM layout = the JS layout of packWinogradWeight', () => {
  const wcases: { r: WinoR; cout: number; cin: number; kt: number; stagingChannels: number }[] = [
    { r: 2, cout: 32, cin: 16, kt: 3, stagingChannels: 5 },
    { r: 2, cout: 16, cin: 32, kt: 1, stagingChannels: 100 },
    { r: 4, cout: 16, cin: 16, kt: 3, stagingChannels: 7 },
  ];
  it.for(wcases.map((c) => [`F(${c.r}x${c.r}) cout${c.cout} cin${c.cin} kt${c.kt}, staging ${c.stagingChannels} channels`, c] as const))('%s', async ([_n, c], ctx) => {
    needDevice(ctx, gpu);
    const w = randn(c.cout * c.cin * c.kt * 9, 77 + c.cout, 0.3);
    const want = winoMmaWeightLayout(packWinogradWeight(w, c.r, c.cout, c.cin, c.kt), c.r, c.cout, c.cin, c.kt);
    const n = winoWeightLength(c.r, c.cout, c.cin, c.kt);
    expect(want.length).toBe(n);
    const got = await withDevice(async (s) => {
      const buf = s.upload(new Float32Array(n).fill(NaN), 'f32', 'U');
      const staging = s.zeros(Math.floor(c.stagingChannels * c.cin * c.kt * 9), 4, 'staging');
      const uniforms = s.device.createBuffer({ label: 'uniforms', size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      const job: BlockedWeightJob = { key: 'u', buf, data: w, cout: c.cout, cin: c.cin, taps: c.kt * 9, wino: c.r, winoMma: true };
      await prepareWinoWeights(s.device, gpu!.cache, [job], staging, uniforms);
      const out = await s.read(buf, 'f32', n);
      uniforms.destroy();
      return out;
    });
    expectClose(got, want, { atol: 1e-6, rtol: 1e-6, label: `U F(${c.r}x${c.r})` });
    // the GPU kernel is the winograd-weights kernel with its store index replaced
    expect(winogradMmaWeights(c.r).wgsl).toContain('u[um(');
  });
});

describe("the form 'wino-mma' in plans (conv-form.ts)", () => {
  const wan21 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
  const base = { frames: 21, h: 60, w: 104, cache: 'on' as const, precision: 'f16' as const, tensorCores: true };
  const forms = (p: Plan) =>
    Object.values(p.programs)
      .flat()
      .flatMap((pp) => pp.prog.steps)
      .filter((s) => s.kind === 'conv')
      .map((s) => s as { form?: string; ks: number; cin: number; cout: number; wino?: { band: number; mma?: boolean } });
  it('--conv winograd on tensor cores: every 3x3 conv with cin, cout multiples of 16; auto and winograd4 keep conv3d-mma (nothing measured faster)', () => {
    const cs = forms(plan(wan21, { ...base, conv: 'winograd' }));
    const wm = cs.filter((s) => s.form === 'wino-mma');
    expect(wm.length).toBeGreaterThan(30);
    for (const s of wm) {
      expect(s.ks).toBe(3);
      expect((s.cin % 16) + (s.cout % 16)).toBe(0);
      expect(s.wino!.mma).toBe(true);
      expect(s.wino!.band % 16).toBe(0);
    }
    // the rest (1x1, time convs, the 3-channel head) on conv3d-mma
    expect(cs.filter((s) => s.form === 'mma').every((s) => s.ks !== 3 || s.cout % 16 !== 0)).toBe(true);
    expect(forms(plan(wan21, { ...base, conv: 'auto' })).filter((s) => s.form === 'wino-mma')).toEqual([]);
    expect(forms(plan(wan21, { ...base, conv: 'winograd4' })).filter((s) => s.form === 'wino-mma')).toEqual([]);
    // portable plans keep the portable Winograd
    expect(forms(plan(wan21, { ...base, tensorCores: false, conv: 'winograd' })).filter((s) => s.form === 'wino-mma')).toEqual([]);
  });
  it('winoMmaPlanFor: bands of whole 16-tile blocks, V + M under the cap; ineligible shapes null', () => {
    const s = { ks: 3, kt: 3, cin: 96, cout: 96, h: 480, w: 832 };
    const wp = winoMmaPlanFor(2, s)!;
    expect(wp.band % 128).toBe(0);
    expect(winoScratchElems(2, wp.band, 96, 96, 3) * 2).toBeLessThanOrEqual(WINO_SCRATCH_BYTES);
    expect(winoMmaPlanFor(2, { ...s, h: 6, w: 10 })).toEqual({ r: 2, band: 16, scratch: 'elem', mma: true }); // 15 tiles -> one block of 16
    expect(winoMmaPlanFor(2, { ...s, cin: 24 })).toBe(null);
    expect(winoMmaPlanFor(2, { ...s, cout: 3 })).toBe(null);
    expect(winoMmaPlanFor(2, { ...s, ks: 1 })).toBe(null);
  });
});
