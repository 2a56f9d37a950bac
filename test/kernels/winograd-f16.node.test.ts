// The non-fused Winograd conv in f16 storage plans (src/kernels/winograd.ts, WinoScratch / WinoGemmShape):
// activations, bias and residual stored as f16, and V, M and U either f32 ('f32' scratch) or f16
// ('elem'), the GEMM's products summed in f32 or, with h16, in f16 per BK step and added to f32 sums.
// Against the CPU oracle of one causal conv step (test/helpers/conv-case.ts in f16: inputs, weights,
// bias, residual rounded to f16, the reference in float64 on them), so the error measured is what the
// kernels add: the rounding of V, M, U (and the h16 partial sums) to f16, and the f16 output store.
// Why a wrong implementation fails: a scratch read at f32 stride from an f16 buffer (or the reverse)
// moves outputs by O(1); the tolerance is the f16 output rounding (|ref| * 2^-10) plus what each
// variant's f16 intermediates add, from the errors measured on lavapipe (printed per case).
// Node only (lavapipe offers shader-f16; SwiftShader in the browser project has none).
import { beforeEach, describe, expect, it } from 'vitest';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoOverrides, type WinoGemmShape, type WinoScratch } from '../../src/kernels/winograd';
import { winoBandParams, winoScratchElems } from '../../src/plan/conv-form';
import { packWinogradWeight, type WinoR } from '../../src/kernels/winograd-transforms';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { plan, type Plan } from '../../src/plan/planner';

const gpu = await getTestDevice();

interface Case extends ConvCase {
  r: WinoR;
  band: number;
  sc: WinoScratch;
  h16: boolean;
  /** tolerance: |err| <= atol + rtol |ref|, and the NMSE bound */
  atol: number;
  rtol: number;
  nmse: number;
}

const TINY: WinoGemmShape = { wgN: 1, wgM: 4, tm4: 1, tn4: 1, bk: 4, fma: true };

// the 96-channel cases are a Wan2.1 level (cin 96: K = 288 per transform position, the decoder's GEMM block)
const base = { cin: 96, cout: 96, h: 11, w: 10, kt: 3, ks: 3, up: 0, tap0: 0, norm: 1 } as const;
const cases: Case[] = [
  { ...base, r: 2, band: 16, res: 1, sc: 'f32', h16: false, atol: 4e-3, rtol: 2e-3, nmse: 1e-5 },
  { ...base, r: 2, band: 16, res: 1, sc: 'elem', h16: false, atol: 8e-3, rtol: 4e-3, nmse: 3e-5 },
  { ...base, r: 2, band: 16, res: 1, sc: 'elem', h16: true, atol: 1.6e-2, rtol: 8e-3, nmse: 1e-4 },
  { ...base, r: 4, band: 8, res: 2, tap0: 1, sc: 'f32', h16: false, atol: 4e-3, rtol: 2e-3, nmse: 1e-5 },
  { ...base, r: 4, band: 8, res: 2, tap0: 1, sc: 'elem', h16: false, atol: 3e-2, rtol: 1e-2, nmse: 3e-4 },
  { ...base, r: 4, band: 8, res: 2, tap0: 1, sc: 'elem', h16: true, atol: 6e-2, rtol: 2e-2, nmse: 1e-3 },
  // the upsample Conv2d (kt 1, UP=1) with the tiny block (partial blocks and k steps)
  { cin: 5, cout: 7, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0, r: 2, band: 5, sc: 'elem', h16: true, atol: 8e-3, rtol: 4e-3, nmse: 1e-4 },
];

const name = (c: Case) => `F(${c.r}x${c.r}) cin${c.cin} cout${c.cout} ${c.h}x${c.w} kt${c.kt} up${c.up} res${c.res} tap0=${c.tap0} scratch ${c.sc}${c.h16 ? ' h16' : ''}`;

async function runCase(c: Case) {
  const { wt, bias, gamma, want, xData, cacheData, resData, yInit, params, outLen } = convCase(c, 'f16', { frames: 400, params: 13 });
  const shape: WinoGemmShape = { ...(c.cout === 96 ? winoGemmShape(c.cout, gpu!.device.limits.maxComputeInvocationsPerWorkgroup)! : TINY), h16: c.h16 };
  const se = c.sc === 'f32' ? 'f32' : 'f16';
  const got = await withDevice(async (s) => {
    const x = s.upload(xData, 'f16', 'x');
    const cache = c.kt === 3 ? s.upload(cacheData, 'f16', 'cache') : s.dummy();
    const g = c.norm !== undefined ? s.upload(gamma, 'f16', 'gamma') : s.dummy();
    const u = s.upload(packWinogradWeight(wt, c.r, c.cout, c.cin, c.kt), se, 'U');
    const b = s.upload(bias, 'f16', 'b');
    const res = c.res === 1 ? s.upload(resData, 'f16', 'res') : s.dummy();
    const y = c.res === 2 ? s.upload(yInit, 'f16', 'y') : s.zeros(yInit.length, 2);
    // scratch starts as NaN: a read of V or M outside what this band wrote would bring it out
    const scratch = s.upload(new Float32Array(winoScratchElems(c.r, c.band, c.cin, c.cout, c.kt)).fill(NaN), se, 'scratch');
    const ov = winoOverrides({ KT: c.kt, UP: c.up, HAS_RES: c.res, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0 });
    for (const p of winoBandParams({ r: c.r, band: c.band }, params, c.kt)) {
      await s.run(winogradIn(c.r, c.sc), p, ov.in, 'f16', [x, cache, g, scratch]);
      await s.run(winogradGemm(c.r, shape, c.sc), p, ov.gemm, 'f16', [scratch, u]);
      await s.run(winogradOut(c.r, c.sc), p, ov.out, 'f16', [scratch, b, res, y]);
    }
    return s.read(y, 'f16', outLen, params.y_off);
  });
  const r = expectClose(got, want, { atol: c.atol, rtol: c.rtol, nmse: c.nmse, label: name(c) });
  console.info(`winograd f16 ${name(c)}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
  return r;
}

describe('winograd (non-fused) in f16 storage: f32 or f16 scratch, f32 or per-step f16 sums, against the CPU conv', () => {
  beforeEach((ctx) => void needF16(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    const r = await runCase(c);
    expect(r.nmse).toBeLessThan(c.nmse);
  });
});

describe('f16 storage plans: the Winograd forms of f32, F(4x4) with an f32 scratch and U, F(2x2) with f16 ones', () => {
  const wan21 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
  const base = { frames: 21, h: 60, w: 104, cache: 'on' as const };
  const convs = (p: Plan) =>
    Object.values(p.programs)
      .flat()
      .flatMap((pp) => pp.prog.steps)
      .filter((s): s is Extract<typeof s, { kind: 'conv' }> => s.kind === 'conv');
  it('portable f16 at 480x832: the same convs as f32 auto; the scratch and U bytes follow the scratch type; tensor cores stay direct', () => {
    // U held (made at upload): the U bytes by scratch type below (U made per call: winograd-u-call.node.test.ts)
    const f32 = plan(wan21, { ...base, precision: 'f32', conv: 'auto', winoU: 'held' });
    const f16 = plan(wan21, { ...base, precision: 'f16', conv: 'auto', winoU: 'held' });
    const forms = (p: Plan) => convs(p).map((s) => (s.wino ? `${s.label} F${s.wino.r}` : ''));
    expect(forms(f16)).toEqual(forms(f32));
    const w4 = convs(f16).filter((s) => s.wino?.r === 4);
    expect(w4.length).toBeGreaterThan(30);
    // F(4x4) in f16 plans: V, M and U in f32 (an f16 scratch fell under 60 dB on the H200); f32 plans: the storage type
    expect(new Set(w4.map((s) => s.wino!.scratch))).toEqual(new Set(['f32']));
    expect(
      new Set(
        convs(f32)
          .filter((s) => s.wino)
          .map((s) => s.wino!.scratch),
      ),
    ).toEqual(new Set(['elem']));
    // F(4x4)'s U in f32 in both plans: the f16 plan's weights are the f32 plan's less half of the non-Winograd
    // weights and half of F(2x2)'s U (f16 there: the 384-channel convs at 60x104, conv-form.ts autoWino)
    const f16direct = plan(wan21, { ...base, precision: 'f16', conv: 'direct' }),
      f32direct = plan(wan21, { ...base, precision: 'f32', conv: 'direct' });
    const f2u = new Map(
      convs(f16)
        .filter((s) => s.wino?.r === 2)
        .map((s) => [s.wkey, 16 * s.cin * s.cout * s.kt * 2] as const),
    );
    const f2Half = [...f2u.values()].reduce((a, b) => a + b, 0);
    expect(f2Half).toBeGreaterThan(0);
    expect(f32.memory.weights - f16.memory.weights - f2Half).toBeLessThan(f32direct.memory.weights - f16direct.memory.weights);
    expect(f16.memory.weights).toBeGreaterThan(f16direct.memory.weights * 2);
    // --conv winograd (F(2x2)) in f16: an f16 scratch and U
    const w2 = plan(wan21, { ...base, precision: 'f16', conv: 'winograd', winoU: 'held' });
    expect(
      new Set(
        convs(w2)
          .filter((s) => s.wino)
          .map((s) => s.wino!.scratch),
      ),
    ).toEqual(new Set(['elem']));
    expect(convs(plan(wan21, { ...base, precision: 'f16', conv: 'auto', tensorCores: true })).some((s) => s.wino)).toBe(false);
  });
});
