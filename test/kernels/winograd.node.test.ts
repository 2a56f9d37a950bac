// The non-fused Winograd conv (src/kernels/winograd.ts: winograd-in, winograd-gemm, winograd-out per
// band of tiles) against the CPU oracle of one causal conv step (test/helpers/conv-case.ts: random
// frames at odd offsets, NaN in the cache frames before tap0, NORM=1 cases normalised by the oracle),
// F(2x2,3x3) and F(4x4,3x3), kt 3 (every tap0) and the upsample Conv2d (kt 1, UP=1), odd H/W (cropped
// tiles), both residuals, bands smaller than the frame (several bands per conv, the last one partial).
// Why a wrong implementation fails: a wrong transform matrix, tap order, channel or tap0 offset in k,
// a tile at the wrong place, a band that skips or repeats tiles, or a missing crop moves outputs by
// O(0.1) (the weights are ~1/sqrt(fan-in), the inputs ~N(0,1)); a read of a skipped cache frame brings
// NaN. f32 tolerance: |err| <= 1e-4 + 1e-4|ref| (F(4x4) rounds through coefficients up to 8; measured
// ~1e-6 on lavapipe). Node only: lavapipe compiles the 96-channel GEMM in a second, SwiftShader would not.
import { beforeEach, describe, expect, it } from 'vitest';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoOverrides, type WinoTiles } from '../../src/kernels/winograd';
import { winoBandParams, winoPlanFor, winoScratchElems, WINO_SCRATCH_BYTES } from '../../src/plan/conv-form';
import { packWinogradWeight, type WinoR } from '../../src/kernels/winograd-transforms';
import type { TiledShape } from '../../src/kernels/conv3d-tiled';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { fitPlan } from '../../src/plan/auto';
import { plan, type Plan } from '../../src/plan/planner';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice } from '../helpers/need';

const gpu = await getTestDevice();

interface Case extends ConvCase {
  r: WinoR;
  /** tiles per band */
  band: number;
  /**
   * GEMM block: 'tiny' (4 channels x 4 tiles, BK 4: partial blocks and k steps everywhere), the decoder's
   * for cout on this adapter, or the decoder's under WebGPU's default 256 invocations (browsers)
   */
  gemm: 'tiny' | 'decoder' | 'decoder256';
  /** tiles per invocation of winograd-in and winograd-out (default 1) */
  tpi?: WinoTiles;
}

const TINY: TiledShape = { wgN: 1, wgM: 4, tm4: 1, tn4: 1, bk: 4, fma: true };

const cases: Case[] = [
  // F(2x2): the causal conv with norm+SiLU and a residual, tap0 1 in place, the upsample Conv2d
  { r: 2, band: 4, gemm: 'tiny', cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  { r: 2, band: 8, gemm: 'tiny', cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 0 },
  { r: 2, band: 5, gemm: 'tiny', cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0 },
  // F(4x4): one override set (each set costs lavapipe ~5 s of compile for the 36-position kernels)
  { r: 4, band: 3, gemm: 'tiny', cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 1 },
  // the decoder's 96-channel GEMM block (a real Wan2.1 level), frames of 2 bands
  { r: 2, band: 16, gemm: 'decoder', cin: 16, cout: 96, h: 11, w: 10, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  { r: 4, band: 4, gemm: 'decoder', cin: 16, cout: 96, h: 11, w: 10, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 1 },
  { r: 2, band: 64, gemm: 'decoder256', cin: 8, cout: 96, h: 9, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  // the 64- and 16-channel blocks of small widths (--conv winograd on the golden cases)
  { r: 2, band: 8, gemm: 'decoder', cin: 8, cout: 64, h: 6, w: 5, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  { r: 2, band: 8, gemm: 'decoder', cin: 8, cout: 20, h: 6, w: 5, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  // 2 and 4 tiles per invocation of the transforms: bands whose last quad is partly dead (tiles past nt), UP (F(4x4)
  // with 4 tiles passed too, 2026-12-02, but its NORM kernel takes lavapipe ~150 s to compile)
  { r: 4, band: 5, gemm: 'tiny', tpi: 2, cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 1 },
  { r: 2, band: 6, gemm: 'tiny', tpi: 2, cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 1, tap0: 0 },
  { r: 2, band: 9, gemm: 'tiny', tpi: 4, cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
];

const name = (c: Case) =>
  `F(${c.r}x${c.r}) cin${c.cin} cout${c.cout} ${c.h}x${c.w} kt${c.kt} up${c.up} res${c.res} tap0=${c.tap0} band ${c.band} ${c.gemm}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}${c.tpi ? ` ${c.tpi} tiles per invocation` : ''}`;

async function runCase(c: Case) {
  const { wt, bias, gamma, want, xData, cacheData, resData, yInit, params, outLen } = convCase(c, 'f32', { frames: 300, params: 11 });
  const shape = c.gemm === 'tiny' ? TINY : winoGemmShape(c.cout, c.gemm === 'decoder256' ? 256 : gpu!.device.limits.maxComputeInvocationsPerWorkgroup)!;
  const got = await withDevice(async (s) => {
    const x = s.upload(xData, 'f32', 'x');
    const cache = c.kt === 3 ? s.upload(cacheData, 'f32', 'cache') : s.dummy();
    const g = c.norm !== undefined ? s.upload(gamma, 'f32', 'gamma') : s.dummy();
    const u = s.upload(packWinogradWeight(wt, c.r, c.cout, c.cin, c.kt), 'f32', 'U');
    const b = s.upload(bias, 'f32', 'b');
    const res = c.res === 1 ? s.upload(resData, 'f32', 'res') : s.dummy();
    const y = c.res === 2 ? s.upload(yInit, 'f32', 'y') : s.zeros(yInit.length, 4);
    // scratch starts as NaN: a GEMM that read V or M outside what this band wrote would bring it out
    const scratch = s.upload(new Float32Array(winoScratchElems(c.r, c.band, c.cin, c.cout, c.kt)).fill(NaN), 'f32', 'scratch');
    const ov = winoOverrides({ KT: c.kt, UP: c.up, HAS_RES: c.res, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0 });
    const bands = winoBandParams({ r: c.r, band: c.band }, params, c.kt);
    for (const p of bands) {
      await s.run(winogradIn(c.r, 'elem', c.tpi), p, ov.in, 'f32', [x, cache, g, scratch]);
      await s.run(winogradGemm(c.r, shape), p, ov.gemm, 'f32', [scratch, u]);
      await s.run(winogradOut(c.r, 'elem', c.tpi), p, ov.out, 'f32', [scratch, b, res, y]);
    }
    return { y: await s.read(y, 'f32', outLen, params.y_off), bands: bands.length };
  });
  const r = expectClose(got.y, want, { atol: 1e-4, rtol: 1e-4, nmse: 1e-9, label: name(c) });
  console.info(`winograd ${name(c)}: ${got.bands} bands, max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

describe('winograd (non-fused): in + gemm + out per band against the CPU conv', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    await runCase(c);
  });
});

describe('winoPlanFor: which convs, and bands under the scratch cap', () => {
  it('3x3 convs with >= 96 channels in a 96/128 block only; the band keeps V + M under the cap', () => {
    // Wan2.1 top level at 480x832: unbanded F(2x2) would be 2.4 GB of scratch
    const s = { ks: 3, kt: 3, cin: 96, cout: 96, h: 480, w: 832 };
    for (const r of [2, 4] as const) {
      const wp = winoPlanFor(r, s)!;
      expect(wp.band % 128).toBe(0);
      expect(winoScratchElems(r, wp.band, 96, 96, 3) * 4).toBeLessThanOrEqual(WINO_SCRATCH_BYTES);
      // one more block of 128 tiles would not fit: the band is the largest that does
      expect(winoScratchElems(r, wp.band + 128, 96, 96, 3) * 4).toBeGreaterThan(WINO_SCRATCH_BYTES);
    }
    expect(winoPlanFor(2, { ...s, ks: 1 })).toBe(null); // 1x1 and 3x1x1
    expect(winoPlanFor(2, { ...s, cout: 3 })).toBe(null); // the head
    expect(winoPlanFor(2, { ...s, cout: 48 })).toBe(null); // under the default 96 ('auto')
    expect(winoPlanFor(2, { ...s, cout: 48 }, 16)?.r).toBe(2); // asked for (--conv winograd)
    expect(winoPlanFor(2, { ...s, cout: 12 }, 16)).toBe(null); // Wan2.2's 12-channel head
    // a small frame: one band of all its tiles (rounded up to a multiple of 4)
    expect(winoPlanFor(2, { ...s, h: 6, w: 10 })).toEqual({ r: 2, band: 16, scratch: 'elem' });
  });
});

describe('--conv auto: F(4x4) on Wan2.1 widths where it needs no other lever', () => {
  const wan21 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
  const wan22 = inferConfig(syntheticWeights(OFFICIAL['2.2'], { values: false }));
  const limits = { maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 40 };
  const base = { frames: 21, h: 60, w: 104, cache: 'on' as const, conv: 'auto' as const };
  const winos = (p: Plan) =>
    Object.values(p.programs)
      .flat()
      .flatMap((pp) => pp.prog.steps)
      .filter((s) => s.kind === 'conv' && s.wino)
      .map((s) => (s as { wino: { r: number } }).wino.r);
  it('plain plan() (no conv) is direct; auto, no budget: every 3x3 conv with a multiple of 96 channels on F(4x4); Wan2.2 by width; f16 on tensor cores stays direct', () => {
    expect(winos(plan(wan21, { ...base, conv: undefined, precision: 'f32' }))).toEqual([]);
    const fit = fitPlan(wan21, base, { limits, precisions: ['f32'], tile: 'auto' });
    expect(winos(fit.plan).length).toBeGreaterThan(30);
    // F(4x4), and F(2x2) for the 384-channel convs at 60x104 (conv-form.ts autoWino: the least time per byte of U)
    expect(new Set(winos(fit.plan))).toEqual(new Set([2, 4]));
    expect(winos(fit.plan).filter((r) => r === 2).length).toBe(22); // 11 convs, in the first and the steady program
    expect(fit.reason).toMatch(/; \d+ convs as Winograd \(--conv auto\)$/);
    // Wan2.2 704x1280 (measured on the H200, 2026-12-01, 7117f36): F(4x4) at 256 and 512 channels, F(2x2) at 1024 (88x160 frames);
    // its 1024-channel convs at 44x80 (under 60x104 px) stay direct. An auto without the 1024 rule fails the last line
    const w22 = winos(fitPlan(wan22, { ...base, h: 44, w: 80 }, { limits, precisions: ['f32'], tile: 'auto' }).plan);
    expect(w22.filter((r) => r === 4).length).toBeGreaterThan(10);
    expect(w22.filter((r) => r === 2).length).toBeGreaterThan(0);
    // auto only on frames of >= 60x104 px (the measured layers): a 2x3 latent's frames (16x24 px and less) stay
    // direct, a 60x104 latent's every level is Winograd; an auto that ignored the frame size fails the first line
    expect(winos(fitPlan(wan21, { ...base, frames: 2, h: 2, w: 3 }, { limits, precisions: ['f32'], tile: 'auto' }).plan)).toEqual([]);
    expect(winos(plan(wan21, { ...base, frames: 2, h: 2, w: 3, precision: 'f32', conv: 'winograd4' })).length).toBeGreaterThan(30);
    expect(winos(plan(wan21, { ...base, precision: 'f16', tensorCores: true }))).toEqual([]);
  });
  it('a budget the direct plan fits in whole frames and the Winograd plan does not: the direct plan, not tiles', () => {
    // a fitPlan that kept Winograd at any cost would tile (slower and more memory traffic) instead
    const direct = plan(wan21, { ...base, precision: 'f32', conv: 'direct' }),
      wino = plan(wan21, { ...base, precision: 'f32' }); // (conv auto)
    expect(wino.memory.total).toBeGreaterThan(direct.memory.total);
    const budget = (direct.memory.total + wino.memory.total) / 2;
    const fit = fitPlan(wan21, base, { limits, budget, precisions: ['f32'], tile: 'auto', norms: ['full'] });
    expect(fit.plan.tiles).toBeNull();
    expect(winos(fit.plan)).toEqual([]);
    expect(fit.reason).toMatch(/direct convs \(Winograd would need other levers/);
    // asked for explicitly, Winograd is planned under the same budget (with tiles)
    const asked = fitPlan(wan21, { ...base, conv: 'winograd4' }, { limits, budget, precisions: ['f32'], tile: 'auto', norms: ['full'] });
    expect(winos(asked.plan).length).toBeGreaterThan(0);
    expect(asked.plan.tiles).not.toBeNull();
  });
});
