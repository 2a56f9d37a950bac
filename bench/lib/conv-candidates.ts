// Candidate rows of the conv3d group (kernel 'conv3dCandidates', names conv3d/<shape>-tiled): the
// decoder's portable conv for this shape (conv3d with its tuning, or the generated conv3d-tiled it picks:
// step-kinds' choice) and every TILED_CANDIDATES entry whose channel block divides cout, all on the SAME
// buffers (bench/lib/kernels.ts layout and fill) in one case: the row's ms / GFLOP/s are the decoder's
// kernel's; extra.ms_<label>, tflops_<label> (the conv's FLOPs / time) and maxAbs_<label> (largest
// output difference from the decoder's kernel: f32 summation order only, ~1e-6, or 0 in the same order).
// Winograd rows (src/kernels/winograd.ts) for 3x3 shapes with >= 96 channels, F(2x2) as `wino2` and
// F(4x4) as `wino4`: U prepared from the same weights, every band's winograd-in + gemm + out in one pass
// (ms_/tflops_ = the direct conv's FLOPs / that time, maxAbs_ vs the decoder's direct conv), then each of
// the three kernels alone over all bands (ms_<label>_in/_gemm/_out) and the GEMM with its BK loop
// unrolled (ms_<label>_gemmu); bands_ and scratchMiB_ say how the scratch cap (WINO_SCRATCH_BYTES) banded the frame.
import { encodeParams, resolveOverrides, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { conv3d, conv3dTuning, conv3dTuningForCout } from '../../src/kernels/conv3d';
import { conv3dTiled, tiledShapeError, type TiledShape } from '../../src/kernels/conv3d-tiled';
import { conv3dTiledFor } from '../../src/plan/conv-form';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoOverrides, type WinoGemmShape, type WinoParams, type WinoScratch } from '../../src/kernels/winograd';
import { winoBandParams, winoPlanFor, winoScratchElems } from '../../src/plan/conv-form';
import { packWinogradWeight, winoWeightLength, type WinoR } from '../../src/kernels/winograd-transforms';
import { storageBytes } from '../../src/runtime/f16';
import { PassTimer } from './gpu-timer';
import { closeCase, layout, randomBuffer, readFloats, type KernelContext } from './kernels';
import { describeError, errorOf, spread } from './stats';
import type { KernelScenario, Result } from './types';

const CASE_BUDGET_MS = 30_000;
const MIN_RUNS = 10;

/**
 * Convs timed beside the decoder's: [label, generated shape (block = 4*wgM*tm4 channels x 4*wgN*tn4
 * pixels) or conv3d overrides]. H200 2026-12-01 (bench/results/h200/portable-2026-12-01-d6f80d3): without
 * fma (call 1) ten shapes ran at 22-30 TFLOP/s against conv3d's 27-28; with fma (call 2) the same
 * (the driver fuses `c += a * b` already); the BK loop unrolled (u) +4-8% at the three large shapes.
 */
export const TILED_CANDIDATES: [string, TiledShape | { conv3d: Record<string, number> }][] = [
  ['c96p128', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true }], // 8 ch x 8 px, 192 invocations
  ['c96p128u', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true, unroll: true }],
  ['c96p128w', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true }], // 4 ch x 8 px, 384 invocations
  ['c96p128wu', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true, unroll: true }], // not measured yet (added after call 2)
  ['c96p128wus', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true, unroll: true, split: true }], // + loads split by binding (not measured)
  ['c96p128wu24', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 24, fma: true, unroll: true }], // 43 KiB of staging (not measured)
  ['c128p64u', { wgN: 16, wgM: 16, tm4: 2, tn4: 1, bk: 16, fma: true, unroll: true }], // (not measured)
  ['c96p64', { wgN: 16, wgM: 12, tm4: 2, tn4: 1, bk: 12, fma: true }], // 8 ch x 4 px
  ['c96p128t12x8', { wgN: 16, wgM: 8, tm4: 3, tn4: 2, bk: 16, fma: true }], // 12 ch x 8 px, 128 invocations
  ['c128p64', { wgN: 16, wgM: 16, tm4: 2, tn4: 1, bk: 16, fma: true }],
  ['c128p128', { wgN: 16, wgM: 16, tm4: 2, tn4: 2, bk: 16, fma: true }],
  ['c128p128t16x8', { wgN: 16, wgM: 8, tm4: 4, tn4: 2, bk: 16, fma: true }], // 16 ch x 8 px, 128 invocations
  ['c64p128', { wgN: 16, wgM: 16, tm4: 1, tn4: 2, bk: 16, fma: true }],
  // the head (cout 3): conv3d's direct loops (MODE 0) on one vec4 of channels, and its former 16-channel block
  ['m0n4', { conv3d: { WG_N: 64, WG_M: 1, TM4: 1, TN: 4, MODE: 0, BK: 1 } }],
  ['m0n8', { conv3d: { WG_N: 64, WG_M: 1, TM4: 1, TN: 8, MODE: 0, BK: 1 } }],
  ['m1c16', { conv3d: { WG_N: 16, WG_M: 4, TM4: 1, TN: 4, MODE: 1, BK: 16 } }],
];

/** One candidates row (see the header). */
export async function runCandidatesCase(ctx: KernelContext, s: KernelScenario, elem: Elem): Promise<Result> {
  const { device } = ctx;
  const { sizes, params } = layout(s);
  const p = s.shape;
  const op = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, ...s.overrides };
  const maxInv = device.limits.maxComputeInvocationsPerWorkgroup;
  const tuning = ctx.cpuAdapter ? conv3dTuning.cpu : conv3dTuning.gpu;
  const tiled = conv3dTiledFor(tuning, p.cout!, p.h! * p.w!, maxInv);
  const [def, dov]: [AnyKernelDef, Record<string, number>] = tiled ? [conv3dTiled(tiled), op] : [conv3d, { ...op, ...conv3dTuningForCout(tuning, p.cout!, maxInv) }];
  const runs = ctx.runs ?? s.runs;
  const base: Result = {
    name: `${s.name}/${elem}`,
    group: s.group,
    status: 'ok',
    params: { ...p, elem, kernel: def.id, overrides: resolveOverrides(def, dov), runs, warmup: s.warmup },
    key: `${s.name}/${elem}|${def.id}`,
  };
  if (elem === 'f16' && !ctx.f16) return { ...base, status: 'skipped', error: "no 'shader-f16' on this adapter" };
  const owned: GPUBuffer[] = [];
  const timer = new PassTimer(device);
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  try {
    const bufs = sizes.map((n, i) => randomBuffer(device, n, elem, `conv ${conv3d.bindings[i]!.name}`, 17 + i));
    owned.push(...bufs);
    const y2 = device.createBuffer({ label: 'y candidate', size: bufs[5]!.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    owned.push(y2);
    const data = encodeParams(conv3d, params as never, op);
    const uni = device.createBuffer({ label: 'params', size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    owned.push(uni);
    device.queue.writeBuffer(uni, 0, data);
    const g1 = device.createBindGroup({ layout: ctx.cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: data.byteLength } }] });
    const pass = async (d: AnyKernelDef, ov: Record<string, number>, y: GPUBuffer) => {
      const pipeline = await ctx.cache.get(d, ov, elem);
      const g0 = device.createBindGroup({ layout: ctx.cache.bindGroupLayout(d), entries: bufs.map((b, i) => ({ binding: i, resource: { buffer: i === 5 ? y : b } })) });
      const counts = d.dispatch(params as never, ov);
      return (ps: GPUComputePassEncoder) => {
        ps.setPipeline(pipeline);
        ps.setBindGroup(0, g0);
        ps.setBindGroup(1, g1, [0]);
        ps.dispatchWorkgroups(...counts);
      };
    };
    const timeOf = async (enc: (ps: GPUComputePassEncoder) => void) => {
      const warm = await timer.time(Math.max(1, s.warmup), enc);
      const fit = Math.max(MIN_RUNS, Math.floor(CASE_BUDGET_MS / 4 / Math.max(1e-3, warm[warm.length - 1]!)));
      return spread(await timer.time(Math.min(runs, fit), enc));
    };
    const n = p.cout! * p.h! * p.w!;
    const ms = await timeOf(await pass(def, dov, bufs[5]!));
    const want = await readFloats(device, bufs[5]!, n, elem);
    const cost = conv3d.cost(params as never, dov, elem);
    const extra: Record<string, number | string> = { flops: cost.flops, bytes: cost.bytes };
    for (const [label, shape] of TILED_CANDIDATES) {
      if (elem === 'f16') break; // f16 rows: the decoder's direct conv and the Winograd variants only
      if ('conv3d' in shape ? p.cout! > 4 : p.cout! % (4 * shape.wgM * shape.tm4) || tiledShapeError(shape, maxInv)) continue;
      try {
        const enc0 = device.createCommandEncoder();
        enc0.clearBuffer(y2); // a candidate that misses outputs cannot inherit the previous one's
        device.queue.submit([enc0.finish()]);
        const t = await timeOf('conv3d' in shape ? await pass(conv3d, { ...op, ...shape.conv3d }, y2) : await pass(conv3dTiled(shape), op, y2));
        const got = await readFloats(device, y2, n, elem);
        Object.assign(extra, { [`ms_${label}`]: t.median, [`tflops_${label}`]: cost.flops / (t.median * 1e9), [`maxAbs_${label}`]: errorOf(got, want).maxAbs });
      } catch (e) {
        extra[`error_${label}`] = describeError(e).slice(0, 200);
      }
    }
    if (op.KS === 3) await winogradRows(ctx, bufs, y2, params as never, op, want, cost.flops, timeOf, extra, owned, elem);
    return { ...base, timing: timer.source, ms, gflops: cost.flops / (ms.median * 1e6), gbps: cost.bytes / (ms.median * 1e6), extra };
  } catch (e) {
    return { ...base, status: 'failed', error: describeError(e) };
  } finally {
    await closeCase(device, timer, owned, `${s.name}/${elem}`);
  }
}

/**
 * Winograd variants of one case: [label, r, scratch type, h16 GEMM, scratch cap in MiB]. f32 storage: F(2x2)
 * and F(4x4) at the decoder's cap, and F(4x4) at smaller caps (more bands: what a lower scratch costs).
 * f16 storage: V, M and U in f32 (wino<r>), in f16 (wino<r>h), and in f16 with the GEMM's per-step f16 sums
 * (wino<r>hh).
 */
const WINO_VARIANTS: Record<Elem, [string, WinoR, WinoScratch, boolean, number][]> = {
  f32: [
    ['wino2', 2, 'elem', false, 128],
    ['wino4', 4, 'elem', false, 128],
    ['wino4c64', 4, 'elem', false, 64],
    ['wino4c32', 4, 'elem', false, 32],
  ],
  f16: [
    ['wino2', 2, 'f32', false, 128],
    ['wino4', 4, 'f32', false, 128],
    ['wino2h', 2, 'elem', false, 128],
    ['wino4h', 4, 'elem', false, 128],
    ['wino2hh', 2, 'elem', true, 128],
    ['wino4hh', 4, 'elem', true, 128],
  ],
};

/** The Winograd rows of one case (see the header and WINO_VARIANTS) on the case's buffers. */
async function winogradRows(
  ctx: KernelContext,
  bufs: GPUBuffer[],
  y2: GPUBuffer,
  p: WinoParams,
  op: Record<string, number>,
  want: Float32Array,
  flops: number,
  timeOf: (enc: (ps: GPUComputePassEncoder) => void) => Promise<{ median: number }>,
  extra: Record<string, number | string>,
  owned: GPUBuffer[],
  elem: Elem,
): Promise<void> {
  const { device } = ctx;
  const kt = op.KT!;
  const n = p.cout * p.h * p.w;
  const co4 = Math.ceil(p.cout / 4) * 4;
  // the direct conv's packed weights [kt*9 taps][cin][cout4*4] back to PyTorch's [cout, cin, kt, 3, 3]
  const packed = await readFloats(device, bufs[2]!, kt * 9 * p.cin * co4, elem);
  const wt = new Float32Array(p.cout * p.cin * kt * 9);
  for (let o = 0; o < p.cout; o++) for (let c = 0; c < p.cin; c++) for (let t = 0; t < kt * 9; t++) wt[(o * p.cin + c) * kt * 9 + t] = packed[(t * p.cin + c) * co4 + o]!;
  const shape0 = winoGemmShape(p.cout, device.limits.maxComputeInvocationsPerWorkgroup);
  for (const [label, r, sc, h16, capMiB] of WINO_VARIANTS[elem]) {
    const wp = winoPlanFor(r, { ks: 3, kt, cin: p.cin, cout: p.cout, h: p.h, w: p.w }, 96, capMiB * 2 ** 20);
    if (!wp || !shape0) continue;
    const shape: WinoGemmShape = { ...shape0, h16 };
    const se: Elem = sc === 'f32' ? 'f32' : elem;
    const bpe = se === 'f16' ? 2 : 4;
    try {
      const u = device.createBuffer({ label: `U ${label}`, size: Math.ceil((winoWeightLength(r, p.cout, p.cin, kt) * bpe) / 4) * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      owned.push(u);
      device.queue.writeBuffer(u, 0, storageBytes(packWinogradWeight(wt, r, p.cout, p.cin, kt), se));
      const scratchBytes = Math.ceil((winoScratchElems(r, wp.band, p.cin, p.cout, kt) * bpe) / 4) * 4;
      const scratch = device.createBuffer({ label: `scratch ${label}`, size: scratchBytes, usage: GPUBufferUsage.STORAGE });
      owned.push(scratch);
      const bands = winoBandParams(wp, p, kt);
      const uni = device.createBuffer({ label: `params ${label}`, size: 256 * bands.length, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      owned.push(uni);
      bands.forEach((b, i) => device.queue.writeBuffer(uni, 256 * i, encodeParams(winogradIn(r), b, { HAS_RES: op.HAS_RES! })));
      const g1 = device.createBindGroup({ layout: ctx.cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: encodeParams(winogradIn(r), bands[0]!, {}).byteLength } }] });
      const ov = winoOverrides({ KT: kt, UP: op.UP!, HAS_RES: op.HAS_RES!, NORM: op.NORM!, SILU: op.SILU! });
      // [x, cache, ..., y2, gamma] as conv3d binds them
      const kernelsOf = async (gemm: TiledShape) => {
        const defs: [AnyKernelDef, Record<string, number>, GPUBuffer[]][] = [
          [winogradIn(r, sc), ov.in, [bufs[0]!, bufs[1]!, bufs[6]!, scratch]],
          [winogradGemm(r, gemm, sc), ov.gemm, [scratch, u]],
          [winogradOut(r, sc), ov.out, [scratch, bufs[3]!, bufs[4]!, y2]],
        ];
        return Promise.all(
          defs.map(async ([d, o, b]) => ({
            d,
            o,
            pipeline: await ctx.cache.get(d, o, elem),
            g0: device.createBindGroup({ layout: ctx.cache.bindGroupLayout(d), entries: b.map((buffer, i) => ({ binding: i, resource: { buffer } })) }),
          })),
        );
      };
      const enc = (ks: Awaited<ReturnType<typeof kernelsOf>>) => (ps: GPUComputePassEncoder) => {
        bands.forEach((b, i) => {
          ps.setBindGroup(1, g1, [256 * i]);
          for (const k of ks) {
            ps.setPipeline(k.pipeline);
            ps.setBindGroup(0, k.g0);
            ps.dispatchWorkgroups(...k.d.dispatch(b, k.o));
          }
        });
      };
      const ks = await kernelsOf(shape);
      const e0 = device.createCommandEncoder();
      e0.clearBuffer(y2);
      device.queue.submit([e0.finish()]);
      const t = await timeOf(enc(ks));
      const got = await readFloats(device, y2, n, elem);
      const { maxAbs, nmse } = errorOf(got, want);
      Object.assign(extra, {
        [`ms_${label}`]: t.median,
        [`tflops_${label}`]: flops / (t.median * 1e9),
        [`maxAbs_${label}`]: maxAbs,
        [`nmse_${label}`]: nmse,
        [`bands_${label}`]: bands.length,
        [`scratchMiB_${label}`]: scratchBytes / 2 ** 20,
      });
      if (capMiB !== 128) continue; // the cap rows: totals only
      for (const [j, part] of ['in', 'gemm', 'out'].entries()) extra[`ms_${label}_${part}`] = (await timeOf(enc([ks[j]!]))).median;
      if (elem === 'f16') continue;
      const ku = await kernelsOf({ ...shape, unroll: true });
      extra[`ms_${label}_gemmu`] = (await timeOf(enc([ku[1]!]))).median;
    } catch (e) {
      extra[`error_${label}`] = describeError(e).slice(0, 200);
    }
  }
}
