// conv3d on tensor cores (src/kernels/conv3d-mma.ts) against the CPU reference (src/cpu/ops.ts), one
// output frame, f16 storage (inputs rounded to f16 for the reference too; NMSE <= 1e-4 as conv3d's f16
// cases). Two dispatches per case, as the decoder runs them: conv3d-mma-pack (operand frames -> the
// channels-innermost copy, one per frame) then the GEMM over the blocked weights (packConvWeightBlocked). The GEMM runs as
// conv3d-mma-emu (the looped GEMM on scalar products, any adapter: checks the layouts, the tile walk with
// its tails and the epilogue), as the straight-line GEMM the decoder ships (conv3d-mma-flat) emulated on
// plain code (conv3dMmaFlat's `emulate`, what mmaGemm gives the decoder without subgroup matrices: same
// generated tiling, offsets and loop order) and, where the adapter offers 16x16x16 f16 -> f32 subgroup
// matrices, as conv3d-mma / conv3d-mma-flat themselves (no CI platform has them: skipped there with the
// reason; the H200 benchmark checks them against conv3d).
// Frames sit at odd element offsets; skipped cache frames hold NaN to prove they are not read. The packed-ring
// cases (RING=1: a cached conv's ring holds t-2, t-1 packed; plan/conv-form.ts packedRing) run pack + GEMM call
// by call with the ring push copy between them, as the decoder does.
import { describe, expect, it, type TestContext } from 'vitest';
import type { KernelDef } from '../../src/gpu/kernel';
import type { Conv3dParams } from '../../src/kernels/conv3d';
import { conv3dMmaFlat, mmaGemm, type MmaShape } from '../../src/kernels/conv3d-mma-flat';
import { blockedConvWeightLength, conv3dMma, conv3dMmaEmu, conv3dMmaPack, conv3dMmaPackNorm, conv3dMmaTiles, mmaScratchElems, mmaTilesFor, packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { mmaFrameElems } from '../../src/kernels/conv-layout';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needF16 as needF16Shared, notOnThisAdapter } from '../helpers/need';

const gpu = await getTestDevice();

/** A conv case (test/helpers/conv-case.ts): the oracle's step with this kernel's variant fields (res, tap0, norm) */
type Case = ConvCase;

const cases: Case[] = [
  // odd everything: one 16-channel block with padding, an odd number of pixel blocks (TN tail)
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0 },
  // two pixel blocks per row, 2 channel blocks, cout past one TM group, in-place residual, fused norm
  { cin: 20, cout: 40, h: 5, w: 18, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 1 },
  { cin: 17, cout: 6, h: 4, w: 9, kt: 3, ks: 3, up: 0, res: 0, tap0: 2, norm: 0 },
  // 1x1 (shortcut), 3x1x1 (time_conv), the upsample Conv2d (nearest-2x read in place)
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 1, tap0: 0 },
  { cin: 4, cout: 8, h: 4, w: 6, kt: 3, ks: 1, up: 0, res: 0, tap0: 0 },
  { cin: 5, cout: 6, h: 6, w: 34, kt: 1, ks: 3, up: 1, res: 0, tap0: 0 },
  // a real decoder layer (Wan2.1 up block 3, 96 channels), small frame
  { cin: 96, cout: 96, h: 6, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 0 },
];

const name = (c: Case) => `cin${c.cin} cout${c.cout} ${c.h}x${c.w} k${c.kt}x${c.ks} up${c.up} res${c.res} tap0=${c.tap0}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}`;

async function runCase(c: Case, gemm: KernelDef<Conv3dParams>, sg: number, rowsOuter: 0 | 1 = 0, pack: KernelDef<Conv3dParams> = conv3dMmaPack) {
  const elem = 'f16' as const;
  // inputs, oracle and buffer layout as test/kernels/conv3d.test.ts (test/helpers/conv-case.ts), other seeds
  const data = convCase(c, elem, { frames: 200, params: 17 });
  if (pack === conv3dMmaPackNorm) hideInvRows(c, data);
  const { wt, bias, gamma, want, xData, cacheData, resData, yInit, params: p, outLen } = data;
  const yOff = p.y_off;
  const blocked = packConvWeightBlocked(wt, c.cout, c.cin, c.kt, c.ks);
  expect(blocked.length).toBe(blockedConvWeightLength(c.cout, c.cin, c.kt, c.ks));
  const got = await withDevice(async (s) => {
    const y = c.res === 2 ? s.upload(yInit, elem, 'y') : s.zeros(yOff + outLen, 2);
    // the operand copy starts as NaN: every element the GEMM reads must have been written by the pack
    const scratch = s.upload(new Float32Array(mmaScratchElems(p, c.kt, c.ks)).fill(NaN), elem, 'operand copy');
    await s.run(pack, p, packOverrides(pack, c, { ROWS_OUTER: rowsOuter }), elem, [
      s.upload(xData, elem, 'x'),
      c.kt === 3 ? s.upload(cacheData, elem, 'cache') : s.dummy(),
      c.norm !== undefined ? s.upload(gamma, elem, 'gamma') : s.dummy(),
      scratch,
    ]);
    await s.run(gemm, p, { KT: c.kt, KS: c.ks, HAS_RES: c.res, SG: sg, ROWS_OUTER: rowsOuter }, elem, [
      scratch,
      s.upload(blocked, elem, 'blocked weights'),
      s.upload(bias, elem, 'b'),
      c.res === 1 ? s.upload(resData, elem, 'res') : s.dummy(),
      y,
      s.dummy(),
    ]);
    // the elements before y_off are untouched
    const head = await s.read(y, elem, yOff);
    expect([...head]).toEqual([...yInit.subarray(0, yOff)]);
    return s.read(y, elem, outLen, yOff);
  });
  const r = expectClose(got, want, { nmse: 1e-4, label: `${pack.id} ${gemm.id} ${name(c)}` });
  console.info(`${pack.id} + ${gemm.id} ${name(c)}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

/** conv3d-mma-pack-norm computes the statistics itself: the frames' inverse-RMS rows (after each frame's cin rows) become NaN, so reading one fails. */
function hideInvRows(c: Case, d: { xData: Float32Array; cacheData: Float32Array; params: Conv3dParams }): void {
  if (c.norm === undefined) return;
  const hwIn = c.up ? (c.h * c.w) / 4 : c.h * c.w;
  const row = (a: Float32Array, frameOff: number) => a.fill(NaN, frameOff + c.cin * hwIn, frameOff + (c.cin + 1) * hwIn);
  row(d.xData, d.params.x_off);
  if (c.kt === 3) for (const off of [d.params.prev1_off, d.params.prev2_off]) row(d.cacheData, off);
}

/** The pack's overrides for case `c`: conv3d-mma-pack's NORM from the case; conv3d-mma-pack-norm always normalises (SILU only). */
function packOverrides(pack: KernelDef<Conv3dParams>, c: Case, extra: Record<string, number>): Record<string, number> {
  const norm: Record<string, number> = pack === conv3dMmaPackNorm ? {} : { NORM: c.norm === undefined ? 0 : 1 };
  return { KT: c.kt, KS: c.ks, UP: c.up, SILU: c.norm ?? 0, ...norm, ...extra };
}

/**
 * The decoder's packed ring (plan/conv-form.ts packedRing), call by call as the decoder runs it: pack RING=1
 * writes frame t alone (from x) at the start of the operand copy, the GEMM RING=1 reads t-2 and t-1 from the
 * ring's two packed slots and t from the copy, then the packed t is copied over t-2 (ring push; after
 * `pushed` frames t-2 sits at slot pushed & 1, t-1 at the other, step-kinds.ts params). Here the ring is
 * filled by the calls that pushed t-2 and t-1 (each packed from its own buffer and offset, then copied),
 * and starts as NaN: a slot read before it was written (tap0 > 0) fails against the reference.
 */
async function runRingCase(c: Case, gemm: KernelDef<Conv3dParams>, pushed: number, pack: KernelDef<Conv3dParams> = conv3dMmaPack) {
  const elem = 'f16' as const;
  const data = convCase(c, elem, { frames: 300, params: 31 });
  if (pack === conv3dMmaPackNorm) hideInvRows(c, data);
  const { wt, bias, want, gamma, xData, cacheData, resData, yInit, params: p, outLen } = data;
  const frame = mmaFrameElems(p, c.ks);
  const slot = (k: number) => (k & 1) * frame; // where frame number k is pushed (over frame k - 2)
  const blocked = packConvWeightBlocked(wt, c.cout, c.cin, c.kt, c.ks);
  const got = await withDevice(async (s) => {
    const y = c.res === 2 ? s.upload(yInit, elem, 'y') : s.zeros(p.y_off + outLen, 2);
    const ring = s.upload(new Float32Array(2 * frame).fill(NaN), elem, 'packed ring');
    const copy = s.upload(new Float32Array(frame).fill(NaN), elem, 'operand copy (frame t)');
    const cache = s.upload(cacheData, elem, 'cache'),
      x = s.upload(xData, elem, 'x'),
      g = c.norm !== undefined ? s.upload(gamma, elem, 'gamma') : s.dummy();
    const packOv = packOverrides(pack, c, { RING: 1 });
    // frame t - d (d = 2, 1) was pushed as frame number pushed - d: packed, then copied into its slot
    for (const d of [2, 1]) {
      if (2 - d < c.tap0) continue;
      await s.run(pack, { ...p, x_off: d === 2 ? p.prev2_off : p.prev1_off }, packOv, elem, [cache, s.dummy(), g, copy]);
      const enc = s.device.createCommandEncoder();
      enc.copyBufferToBuffer(copy, 0, ring, slot(pushed - d) * 2, frame * 2);
      s.device.queue.submit([enc.finish()]);
    }
    await s.run(pack, p, packOv, elem, [x, s.dummy(), g, copy]);
    await s.run(gemm, { ...p, x_off: 0, prev2_off: slot(pushed), prev1_off: slot(pushed + 1) }, { KT: c.kt, KS: c.ks, HAS_RES: c.res, SG: 32, RING: 1 }, elem, [
      copy,
      s.upload(blocked, elem, 'blocked weights'),
      s.upload(bias, elem, 'b'),
      c.res === 1 ? s.upload(resData, elem, 'res') : s.dummy(),
      y,
      ring,
    ]);
    return s.read(y, elem, outLen, p.y_off);
  });
  const r = expectClose(got, want, { nmse: 1e-4, label: `${pack.id} ${gemm.id} packed ring ${name(c)}` });
  console.info(`${pack.id} + ${gemm.id} packed ring after ${pushed} frames, ${name(c)}: max|err| ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}`);
}

/** Skips without a device or shader-f16 (fails under CI in Node): test/helpers/need.ts decides. */
function needF16(ctx: TestContext): void {
  needF16Shared(ctx, gpu);
}

const mma = gpu?.mma ?? null; // requestDecoderDevice enables the feature where subgroupMatrixSupport says ok

describe('conv3d-mma', () => {
  it.for(cases.map((c) => [name(c), c] as const))('emulated GEMM %s', async ([, c], ctx) => {
    needF16(ctx);
    await runCase(c, conv3dMmaEmu, gpu!.device.limits.maxComputeInvocationsPerWorkgroup >= 32 ? 32 : 8);
  });
  // other result-tile shapes (conv3dMmaTiles): output-block tails (3 blocks with TM 2 / 4), pixel-block tails
  const tiles: [number, number][] = [
    [2, 2],
    [1, 1],
    [4, 2],
  ];
  it.for(tiles.flatMap((t) => [cases[1]!, cases[6]!].map((c) => [`${t[0]}x${t[1]} ${name(c)}`, c, t] as const)))('emulated GEMM, %s', async ([, c, t], ctx) => {
    needF16(ctx);
    await runCase(c, conv3dMmaTiles(conv3dMmaEmu, t[0], t[1]), 32);
  });
  // straight-line GEMMs (conv3dMmaFlat): the decoder's (cb-tap 3x2) on tails along cout (3 blocks of 3 at
  // 40 ch) and pixels, 1x1, the upsample Conv2d, a 96-channel layer; the other loop order once (its
  // straight-line code compiles slowly on lavapipe)
  const flats: MmaShape[] = [
    { tm: 3, tn: 2, order: 'cb-tap' },
    { tm: 2, tn: 3, order: 'tap-cb' },
  ];
  it.for([...[cases[1]!, cases[3]!, cases[6]!].map((c) => [`${flats[0]!.order} 3x2 ${name(c)}`, c, flats[0]!] as const), [`${flats[1]!.order} 2x3 ${name(cases[1]!)}`, cases[1]!, flats[1]!] as const])(
    'emulated straight-line GEMM, %s',
    async ([, c, f], ctx) => {
      needF16(ctx);
      await runCase(c, conv3dMmaFlat(f, { emulate: true }), 32);
    },
  );
  it.for(flats.flatMap((f) => [cases[1]!, cases[6]!].map((c) => [`${f.order} ${f.tm}x${f.tn} ${name(c)}`, c, f] as const)))('tensor cores, straight-line GEMM, %s', async ([, c, f], ctx) => {
    needF16(ctx);
    if (!mma) notOnThisAdapter(ctx, "the adapter offers no 'chromium-experimental-subgroup-matrix' with 16x16x16 f16 -> f32 (no CI platform does)");
    await runCase(c, conv3dMmaFlat(f), mma!.subgroupSize);
  });
  // the operand copy with the channel blocks of a row side by side (ROWS_OUTER=1, pack and GEMM): a pack
  // that leaves an element unwritten (NaN) or a GEMM reading another row / block fails against the reference
  it.for([cases[1]!, cases[6]!].map((c) => [name(c), c] as const))('ROWS_OUTER=1 operand copy, emulated GEMM %s', async ([, c], ctx) => {
    needF16(ctx);
    await runCase(c, conv3dMmaEmu, 32, 1);
  });
  it.for([cases[6]!].map((c) => [name(c), c] as const))('ROWS_OUTER=1 operand copy, emulated straight-line cb-tap 3x2 GEMM %s', async ([, c], ctx) => {
    needF16(ctx);
    await runCase(c, conv3dMmaFlat({ tm: 3, tn: 2, order: 'cb-tap' }, { emulate: true }), 32, 1);
  });
  // packed rings: both slot orders (pushed even / odd), tap0 2 / 1 as in a decode's first calls, the fused
  // norm, a 96-channel layer, the 3x1x1 time conv; the shipped straight-line GEMM in both loop orders
  const ringCases: [Case, number][] = [
    [{ ...cases[1]!, tap0: 0 }, 4],
    [{ ...cases[1]!, tap0: 0 }, 5],
    [cases[1]!, 1],
    [cases[2]!, 0],
    [cases[6]!, 5],
    [cases[4]!, 3],
  ];
  const cbTap: MmaShape = { tm: 3, tn: 2, order: 'cb-tap' };
  it.for(ringCases.map(([c, k]) => [`after ${k} frames, ${name(c)}`, c, k] as const))('packed ring, emulated straight-line cb-tap 3x2 GEMM %s', async ([, c, k], ctx) => {
    needF16(ctx);
    await runRingCase(c, conv3dMmaFlat(cbTap, { emulate: true }), k);
  });
  it('packed ring, emulated straight-line tap-cb 2x3 GEMM after 4 frames', async (ctx) => {
    needF16(ctx);
    await runRingCase({ ...cases[1]!, tap0: 0 }, conv3dMmaFlat({ tm: 2, tn: 3, order: 'tap-cb' }, { emulate: true }), 4);
  });
  it.for([ringCases[0]!, ringCases[4]!].map(([c, k]) => [`after ${k} frames, ${name(c)}`, c, k] as const))('packed ring, tensor cores, straight-line cb-tap 3x2 GEMM %s', async ([, c, k], ctx) => {
    needF16(ctx);
    if (!mma) notOnThisAdapter(ctx, "the adapter offers no 'chromium-experimental-subgroup-matrix' with 16x16x16 f16 -> f32 (no CI platform does)");
    await runRingCase(c, conv3dMmaFlat(cbTap), k);
  });
  // the pack computing the RMS statistics itself (--norm fused on tensor cores: conv-form.ts assignStatsInPack):
  // the frames' inverse-RMS rows are NaN (hideInvRows; the reference normalises in f64); with and without
  // SiLU, channel counts past one block of the 4 groups (96: 6 blocks), the packed ring, the 1x1 conv
  const normCases: Case[] = [cases[1]!, { ...cases[2]!, norm: 0 }, { ...cases[6]!, norm: 1 }, { ...cases[3]!, norm: 1 }, { ...cases[0]!, norm: 1 }];
  it.for(normCases.map((c) => [name(c), c] as const))('statistics in the pack, emulated straight-line cb-tap 3x2 GEMM %s', async ([, c], ctx) => {
    needF16(ctx);
    await runCase(c, conv3dMmaFlat(cbTap, { emulate: true }), 32, 0, conv3dMmaPackNorm);
  });
  it.for([ringCases[0]!, [{ ...cases[6]!, norm: 1 }, 5] as [Case, number]].map(([c, k]) => [`after ${k} frames, ${name(c)}`, c, k] as const))(
    'statistics in the pack, packed ring, emulated straight-line cb-tap 3x2 GEMM %s',
    async ([, c, k], ctx) => {
      needF16(ctx);
      await runRingCase(c, conv3dMmaFlat(cbTap, { emulate: true }), k, conv3dMmaPackNorm);
    },
  );
  it("the looped GEMMs refuse a packed ring (RING=1 is the straight-line GEMM's)", () => {
    const p = { cin: 16, cout: 16, h: 4, w: 6, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0 };
    expect(() => conv3dMmaEmu.dispatch(p, { ...conv3dMmaEmu.overrides, RING: 1 })).toThrow(/packed ring/);
    expect(() => conv3dMmaFlat(cbTap, { emulate: true }).dispatch(p, { ...conv3dMma.overrides, KT: 1, RING: 1 })).toThrow(/KT 3/);
  });
  it('the emulated GEMM is the shipped one: same generated lines except the five matrix operations', () => {
    for (const p of [
      { cin: 96, cout: 96, h: 480, w: 832 },
      { cin: 96, cout: 3, h: 480, w: 832 },
      { cin: 16, cout: 16, h: 4, w: 6 },
    ]) {
      const real = mmaGemm(p, 3, false),
        emu = mmaGemm(p, 3, true);
      expect(emu.id).toBe(`${real.id}-emu`);
      expect(real.id).toMatch(/^conv3d-mma-flat-cb-tap-/);
      const main = (wgsl: string) => wgsl.slice(wgsl.indexOf('@compute'), wgsl.indexOf('\n}\n', wgsl.indexOf('@compute'))).split('\n');
      const a = main(real.wgsl),
        b = main(emu.wgsl);
      expect(b.length).toBe(a.length);
      const differ = a.filter((l, i) => l !== b[i]);
      // loads, products, stores and the result type: nothing else differs
      expect(differ.length).toBeGreaterThan(0);
      for (const l of differ) expect(l).toMatch(/subgroupMatrix(Load|MultiplyAccumulate|Store)|subgroup_matrix_result/);
      expect(emu.wgsl).not.toMatch(/enable chromium_experimental_subgroup_matrix|subgroupMatrix\w+[<(]|subgroup_matrix_(left|right|result)</);
    }
  });
  it('mmaTilesFor: the shipped 3 x 2 unless it makes fewer than 1024 workgroups, then 1 x 1', () => {
    expect(mmaTilesFor({ cin: 96, cout: 96, h: 480, w: 832 }, 3)).toEqual([3, 2]);
    expect(mmaTilesFor({ cin: 384, cout: 384, h: 60, w: 104 }, 3)).toEqual([3, 2]);
    expect(mmaTilesFor({ cin: 192, cout: 192, h: 240, w: 416 }, 3)).toEqual([3, 2]); // 4 x 2 with the looped GEMM (850128e); 3 x 2 since conv3d-mma-flat
    expect(mmaTilesFor({ cin: 96, cout: 3, h: 480, w: 832 }, 3)).toEqual([1, 2]); // one output block
    expect(mmaTilesFor({ cin: 16, cout: 16, h: 4, w: 6 }, 3)).toEqual([1, 1]);
  });
  it.for(cases.map((c) => [name(c), c] as const))('tensor cores %s', async ([, c], ctx) => {
    needF16(ctx);
    if (!mma) notOnThisAdapter(ctx, "the adapter offers no 'chromium-experimental-subgroup-matrix' with 16x16x16 f16 -> f32 (no CI platform does)");
    await runCase(c, conv3dMma, mma!.subgroupSize);
  });
  it('packConvWeightBlocked: 16x16 tiles [tap][ob][cb][cout][cin], zero padding', () => {
    // [cout 2, cin 3, 1, 1, 1]: one tap, one 16x16 tile
    const w = Float32Array.from({ length: 6 }, (_, i) => i + 1);
    const b = packConvWeightBlocked(w, 2, 3, 1, 1);
    expect([...b.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect([...b.subarray(16, 19)]).toEqual([4, 5, 6]);
    expect(b.length).toBe(256);
    expect(b.reduce((a, v) => a + v, 0)).toBe(21);
  });
});
