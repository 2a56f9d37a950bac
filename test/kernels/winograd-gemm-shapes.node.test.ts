// Every Winograd GEMM block of WINO_GEMM_CANDIDATES and WINO_GEMM_TABLE (src/kernels/winograd.ts) inside the
// whole conv (winograd-in + gemm + out, two bands, the last partial) against the CPU oracle of one causal conv
// step (test/helpers/conv-case.ts), where the adapter's limits allow the block (workgroup memory, invocations);
// cout = one block plus a partial one where the block is narrower than 2 blocks allow, so channel guards run.
// Why a wrong block fails: a register tile that skips or repeats a channel group or a tile quad, a staging
// loader that leaves rows of a BK step unwritten (BK of 9 or 8 with 3 or 4 rows per pass), or an epilogue at
// the wrong offset moves outputs by O(0.1) or leaves NaN (the scratch starts as NaN). f32: |err| <= 1e-4 + 1e-4|ref|.
// f16 storage with h16 (per-step f16 sums) for two of the new blocks: NMSE <= 1e-5 against the f32 conv of the
// f16-rounded inputs (measured ~1e-7 to 4e-7; the f16 output rounding alone is ~5e-8).
import { beforeEach, describe, expect, it } from 'vitest';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoGemmSmem, winoOverrides, WINO_GEMM_CANDIDATES, WINO_GEMM_TABLE, type WinoGemmShape } from '../../src/kernels/winograd';
import { tiledShapeError } from '../../src/kernels/conv3d-tiled-shape';
import { winoBandParams, winoScratchElems } from '../../src/plan/conv-form';
import { packWinogradWeight } from '../../src/kernels/winograd-transforms';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';

const gpu = await getTestDevice();
const limits = gpu?.device.limits;
const fits = (t: WinoGemmShape) => !!limits && !tiledShapeError(t, limits.maxComputeInvocationsPerWorkgroup) && winoGemmSmem(t) <= limits.maxComputeWorkgroupStorageSize;
const block = (t: WinoGemmShape) => 4 * t.wgM * t.tm4;

const tableShapes: [string, WinoGemmShape][] = WINO_GEMM_TABLE.flatMap(({ div, shapes }) => shapes.map((t, i): [string, WinoGemmShape] => [`table-${div}-${i}`, t]));
const all = [...WINO_GEMM_CANDIDATES, ...tableShapes];

async function runShape(label: string, t: WinoGemmShape, elem: 'f32' | 'f16') {
  // a 9x13 frame: 5 x 7 = 35 F(2x2) tiles in bands of 24 (one full, one partial)
  const cout = block(t) + (block(t) > 16 ? block(t) / 2 : 0);
  const c: ConvCase = { cin: 7, cout, h: 9, w: 13, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 };
  const k = convCase(c, elem, { frames: 300, params: 11 });
  const band = 24;
  const got = await withDevice(async (s) => {
    const x = s.upload(k.xData, elem, 'x');
    const cache = s.upload(k.cacheData, elem, 'cache');
    const g = s.upload(k.gamma, elem, 'gamma');
    const u = s.upload(packWinogradWeight(roundToElem(k.wt, elem), 2, c.cout, c.cin, c.kt), elem, 'U');
    const b = s.upload(k.bias, elem, 'b');
    const res = s.upload(k.resData, elem, 'res');
    const y = s.zeros(k.yInit.length, elem === 'f16' ? 2 : 4);
    const scratch = s.upload(new Float32Array(winoScratchElems(2, band, c.cin, c.cout, c.kt)).fill(NaN), elem, 'scratch');
    const ov = winoOverrides({ KT: c.kt, UP: 0, HAS_RES: 1, NORM: 1, SILU: 1 });
    for (const p of winoBandParams({ r: 2, band }, k.params, c.kt)) {
      await s.run(winogradIn(2), p, ov.in, elem, [x, cache, g, scratch]);
      await s.run(winogradGemm(2, t), p, ov.gemm, elem, [scratch, u]);
      await s.run(winogradOut(2), p, ov.out, elem, [scratch, b, res, y]);
    }
    return s.read(y, elem, k.outLen, k.params.y_off);
  });
  const r = elem === 'f32' ? expectClose(got, k.want, { atol: 1e-4, rtol: 1e-4, nmse: 1e-9, label }) : expectClose(got, k.want, { atol: 5e-2, rtol: 5e-2, nmse: 1e-5, label });
  console.info(`winograd-gemm ${label} ${JSON.stringify(t)} ${elem} cout ${cout}: max|err| ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}`);
}

describe('Winograd GEMM blocks (candidates and the decoder table) against the CPU conv', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(all.map(([l, t]) => [l, t] as const))('%s, f32', async (label, t) => {
    if (!fits(t)) {
      console.info(`winograd-gemm ${label}: not run, over this adapter's limits (${winoGemmSmem(t)} B of workgroup memory, ${t.wgN * t.wgM} invocations)`);
      return;
    }
    await runShape(label, t, 'f32');
  });
});

describe('Winograd GEMM blocks with h16 sums, f16 storage, against the CPU conv', () => {
  beforeEach((ctx) => void needF16(ctx, gpu));
  it.each(['c96t8x8', 'c128t8x16k8'])('%s', async (label) => {
    const t = WINO_GEMM_CANDIDATES.find(([l]) => l === label)![1];
    await runShape(`${label}-h16`, { ...t, h16: true }, 'f16');
  });
});

describe('winoGemmShape: the table, under the adapter limits', () => {
  it('picks the first shape of the first dividing class that fits; narrower limits fall back', () => {
    expect(winoGemmShape(96, 1024)).toEqual(WINO_GEMM_TABLE[0]!.shapes[0]);
    expect(winoGemmShape(384, 1024)).toEqual(WINO_GEMM_TABLE[0]!.shapes[0]); // 96 before 128
    expect(winoGemmShape(256, 1024)).toEqual(WINO_GEMM_TABLE[1]!.shapes[0]);
    expect(block(winoGemmShape(64, 1024)!)).toBe(64);
    expect(block(winoGemmShape(20, 1024)!)).toBe(16);
    for (const cout of [96, 192, 384, 256, 512, 1024, 64, 20]) {
      for (const [inv, smem] of [
        [256, 16384],
        [256, 32768],
        [1024, 32768],
        [1024, 49152],
      ] as const) {
        const t = winoGemmShape(cout, inv, smem);
        // every class has a shape within WebGPU's defaults except the staging of 96-channel blocks (21 KiB)
        if (!t) continue;
        expect(tiledShapeError(t, inv)).toBeNull();
        expect(winoGemmSmem(t)).toBeLessThanOrEqual(smem);
        // the block divides cout (the 16-channel block of small widths guards a partial one: cout 20)
        if (cout !== 20) expect(cout % block(t)).toBe(0);
      }
    }
  });
});
