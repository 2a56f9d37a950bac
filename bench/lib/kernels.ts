// Per-kernel microbenchmarks at the decoder's layer shapes: one pipeline (the decoder's overrides for
// this adapter class), buffers filled with small random values, `warmup` untimed passes, then `runs`
// timed passes (PassTimer). GFLOP/s and GB/s from the kernel's own cost(). Buffers live for one case.
import { DecoderError } from '../../src/gpu/errors';
import { encodeParams, pipelineKey, resolveOverrides, shaderSource, type AnyKernelDef, type Elem, type PipelineCache } from '../../src/gpu/kernel';
import { conv3dTuning, kernels, packedConvWeightLength } from '../../src/kernels/index';
import { conv3dTuningForCout } from '../../src/kernels/conv3d';
import { conv3dMma, conv3dMmaEmu, conv3dMmaPack, conv3dMmaTiles, mmaScratchElems, mmaTilesFor, packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { packConvWeight } from '../../src/kernels/conv3d';
import { conv3dMmaFlat, mmaGemm, type MmaShape } from '../../src/kernels/conv3d-mma-flat';
import { fromHalf } from '../../src/runtime/f16';
import { storageBytes } from '../../src/runtime/f16';
import { PassTimer } from './gpu-timer';
import { runCandidatesCase } from './conv-candidates';
import { describeError, errorOf, spread } from './stats';
import type { KernelScenario, Result } from './types';

const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const CASE_BUDGET_MS = 30_000;
const MIN_RUNS = 10;
/** Host chunk of a random fill (elements): bounds the temporary arrays for 100+ MB buffers. */
const FILL_CHUNK = 1 << 22;

export interface KernelContext {
  device: GPUDevice;
  cache: PipelineCache;
  f16: boolean;
  /** CPU adapter: the decoder's `cpu` conv tiling, else `gpu` */
  cpuAdapter: boolean;
  /** tensor cores (subgroup matrices) on this device: conv3dMma rows run, else they are skipped */
  mma?: { subgroupSize: number } | null;
  runs?: number;
}

/** Buffer element counts of each binding and the full params of a kernel case. */
export function layout(s: KernelScenario): { def: AnyKernelDef; sizes: number[]; params: Record<string, number> } {
  const p = s.shape;
  switch (s.kernel) {
    case 'conv3dMma': // runMmaCase
    case 'conv3dCandidates': // runCandidatesCase (bench/lib/conv-candidates.ts)
    case 'conv3d': {
      // NORM=1 (--norm fused): every frame carries its inverse-RMS row
      const frame = (p.cin! + (s.overrides?.NORM ? 1 : 0)) * p.h! * p.w!;
      const params = { x_off: 0, prev2_off: 0, prev1_off: frame, res_off: 0, y_off: 0, tap0: 0, ...p };
      return { def: kernels.conv3d, sizes: [frame, 2 * frame, packedConvWeightLength(p.cout!, p.cin!, 3, 3), p.cout!, 4, p.cout! * p.h! * p.w!, p.cin!], params };
    }
    case 'rmsNorm':
      return { def: kernels.rmsNorm, sizes: [p.c! * p.hw!, p.c!, p.c! * p.hw!], params: { x_off: 0, y_off: 0, p0: 0, np: p.hw!, ...p } };
    case 'attention':
      return { def: kernels.attention, sizes: [3 * p.c! * p.n!, p.c! * p.n!], params: { ...p } };
  }
}

export function randomBuffer(device: GPUDevice, elems: number, elem: Elem, label: string, seed: number): GPUBuffer {
  const bpe = elem === 'f16' ? 2 : 4;
  const buf = device.createBuffer({ label, size: Math.max(16, Math.ceil((elems * bpe) / 16) * 16), usage: STORAGE() });
  let s = seed >>> 0;
  for (let start = 0; start < elems; start += FILL_CHUNK) {
    const n = Math.min(FILL_CHUNK, elems - start);
    const data = new Float32Array(n + (n & 1));
    for (let i = 0; i < n; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      data[i] = (s / 2 ** 32 - 0.5) * 0.5;
    }
    device.queue.writeBuffer(buf, start * bpe, storageBytes(data, elem));
  }
  return buf;
}

/**
 * The end of a case that pushed the 'out-of-memory' and 'validation' error scopes: pops both, frees the
 * timer and buffers, and throws the scope's error (runKernelScenario turns it into a failed row).
 */
export async function closeCase(device: GPUDevice, timer: PassTimer, owned: GPUBuffer[], label: string): Promise<void> {
  const v = await device.popErrorScope();
  const m = await device.popErrorScope();
  timer.dispose();
  for (const b of owned) b.destroy();
  if (v || m) throw new DecoderError(m ? 'oom' : 'validation', `${label}: ${(v ?? m)!.message}`);
}

/** One kernel scenario at one storage type. */
async function runCase(ctx: KernelContext, s: KernelScenario, elem: Elem): Promise<Result> {
  if (s.kernel === 'conv3dMma') return runMmaCase(ctx, s, elem);
  if (s.kernel === 'conv3dCandidates') return runCandidatesCase(ctx, s, elem);
  const { def, sizes, params } = layout(s);
  // conv3d: the decoder's tuning for this adapter class and output channel count
  // (a scenario's own MODE override, as in the tuning sweep, replaces the tuning)
  const tuning: Record<string, number> =
    s.overrides?.MODE !== undefined
      ? {}
      : s.kernel === 'conv3d'
        ? conv3dTuningForCout(ctx.cpuAdapter ? conv3dTuning.cpu : conv3dTuning.gpu, s.shape.cout!, ctx.device.limits.maxComputeInvocationsPerWorkgroup)
        : {};
  const ov = resolveOverrides(def, { ...tuning, ...s.overrides });
  const runs = ctx.runs ?? s.runs;
  const base: Result = { name: `${s.name}/${elem}`, group: s.group, status: 'ok', params: { ...s.shape, elem, overrides: ov, runs, warmup: s.warmup }, key: '' };
  base.key = `${base.name}|${pipelineKey(def, ov, elem)}|${JSON.stringify(s.shape)}`;
  if (elem === 'f16' && !ctx.f16) return { ...base, status: 'skipped', error: "no 'shader-f16' on this adapter" };
  const { device } = ctx;
  const owned: GPUBuffer[] = [];
  const timer = new PassTimer(device);
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  try {
    const pipeline = await ctx.cache.get(def, ov, elem);
    const bufs = sizes.map((n, i) => randomBuffer(device, n, elem, `${def.id} ${def.bindings[i]!.name}`, 17 + i));
    owned.push(...bufs);
    const data = encodeParams(def, params, ov);
    const uni = device.createBuffer({ label: `${def.id} params`, size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    owned.push(uni);
    device.queue.writeBuffer(uni, 0, data);
    const g0 = device.createBindGroup({ layout: ctx.cache.bindGroupLayout(def), entries: bufs.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
    const g1 = device.createBindGroup({ layout: ctx.cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: data.byteLength } }] });
    const counts = def.dispatch(params, ov);
    const encode = (pass: GPUComputePassEncoder) => {
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, g0);
      pass.setBindGroup(1, g1, [0]);
      pass.dispatchWorkgroups(...counts);
    };
    const warm = await timer.time(Math.max(1, s.warmup), encode);
    // time guard for a pathologically slow kernel: fit the runs in CASE_BUDGET_MS (>= MIN_RUNS)
    const fit = Math.max(MIN_RUNS, Math.floor(CASE_BUDGET_MS / Math.max(1e-3, warm[warm.length - 1]!)));
    const ms = spread(await timer.time(Math.min(runs, fit), encode));
    const cost = def.cost(params, ov, elem);
    const extra: Record<string, number | string> = { dispatch: JSON.stringify(counts), flops: cost.flops, bytes: cost.bytes };
    return { ...base, timing: timer.source, ms, gflops: cost.flops / (ms.median * 1e6), gbps: cost.bytes / (ms.median * 1e6), extra };
  } catch (e) {
    return { ...base, status: 'failed', error: describeError(e) };
  } finally {
    await closeCase(device, timer, owned, `${s.name}/${elem}`);
  }
}

/** The looped GEMM (shaders/conv3d-mma.wgsl, the default until 2026-12-01, ee770bd) timed beside the decoder's choice. */
// (2x1, 1x2, 4x1, 6x1 were slower everywhere in bench/results/h200/mma-blocked-2026-12-01-0bebf3d; 2x2 and 1x1
// at 20-38 TFLOP/s in bench/results/h200/mma-2026-12-01-e96e7c0; 2x4 / 4x2 at 19-82 in mma-2026-12-01-3ced731: dropped to keep the run short)
const GEMM_VARIANTS: [number, number][] = [[3, 2]];

/**
 * Straight-line GEMMs (src/kernels/conv3d-mma-flat.ts) timed beside it. The first run of them (H200, 2026-12-01, 3ced731) timed
 * both loop orders at 3x2 / 4x2 / 2x4 / 3x4 / 4x4: cb-tap 3x2 won at every shape (now the decoder's), tap-cb
 * was no faster than the looped GEMM; these are cb-tap shapes not measured then.
 */
const FLAT_VARIANTS: MmaShape[] = (
  [
    [2, 2],
    [3, 1],
    [6, 1],
  ] as const
).map(([tm, tn]): MmaShape => ({ tm, tn, order: 'cb-tap' }));

/** The raw 16-bit values of an f16 buffer (or the low halves of an f32 one: only f16 is used here). */
async function readHalves(device: GPUDevice, buf: GPUBuffer, n: number): Promise<Uint16Array> {
  const bytes = Math.ceil((n * 2) / 4) * 4;
  const st = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, st, 0, bytes);
  device.queue.submit([enc.finish()]);
  await st.mapAsync(GPUMapMode.READ);
  const out = new Uint16Array(st.getMappedRange().slice(0), 0, n);
  st.destroy();
  return out;
}

/** WAN_BENCH_MMA_EMU=1 (Node): conv3dMma rows run the scalar conv3d-mma-emu GEMM (to check the runner on a CPU adapter; rows named -emu). */
function mmaEmu(): boolean {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.WAN_BENCH_MMA_EMU === '1';
}

/**
 * One conv call on tensor cores as the decoder runs it: conv3d-mma-pack (operand frames -> the blocked
 * copy) then conv3d-mma (blocked GEMM), both in one timed pass (`ms`); `extra` has each alone, the
 * GEMM's TFLOP/s, and max |err| / NMSE against the portable conv3d on the same planar inputs and weights.
 */
async function runMmaCase(ctx: KernelContext, s: KernelScenario, elem: Elem): Promise<Result> {
  const { device } = ctx;
  const emu = !ctx.mma;
  const base0: Result = { name: `${s.name}/${elem}`, group: s.group, status: 'ok', params: { ...s.shape, elem, runs: ctx.runs ?? s.runs, warmup: s.warmup }, key: '' };
  if (elem === 'f16' && !ctx.f16) return { ...base0, key: base0.name, status: 'skipped', error: "no 'shader-f16' on this adapter" };
  if (emu && !mmaEmu()) return { ...base0, key: base0.name, status: 'skipped', error: "no 'chromium-experimental-subgroup-matrix' with 16x16x16 f16 -> f32 on this adapter" };
  // the GEMM with the result tiles the decoder picks for this call (mmaTilesFor); the others follow below
  const gemm = mmaGemm(s.shape as { cin: number; cout: number; h: number; w: number }, s.overrides?.KS ?? 3, emu);
  const p = s.shape;
  const o = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, ...s.overrides };
  const packOv = resolveOverrides(conv3dMmaPack, { KT: o.KT, KS: o.KS, UP: o.UP, NORM: o.NORM, SILU: o.SILU });
  const gemmOv = resolveOverrides(gemm, { KT: o.KT, KS: o.KS, HAS_RES: o.HAS_RES, SG: ctx.mma?.subgroupSize ?? 32 });
  const base: Result = { ...base0, name: emu ? `${base0.name}-emu` : base0.name, params: { ...base0.params, overrides: { ...packOv, ...gemmOv } } };
  base.key = `${base.name}|${pipelineKey(conv3dMmaPack, packOv, elem)}|${pipelineKey(gemm, gemmOv, elem)}|${JSON.stringify(p)}`;
  const frame = (p.cin! + (o.NORM ? 1 : 0)) * p.h! * p.w!;
  const params = { x_off: 0, prev2_off: 0, prev1_off: frame, res_off: 0, y_off: 0, tap0: 0, ...p } as Record<string, number>;
  const owned: GPUBuffer[] = [];
  const timer = new PassTimer(device);
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  try {
    const [packPipe, gemmPipe] = await Promise.all([ctx.cache.get(conv3dMmaPack, packOv, elem), ctx.cache.get(gemm, gemmOv, elem)]);
    const taps = o.KT * o.KS * o.KS;
    const wHost = new Float32Array(p.cout! * p.cin! * taps);
    let seed = 12345;
    for (let i = 0; i < wHost.length; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      wHost[i] = (seed / 2 ** 32 - 0.5) * (2 / Math.sqrt(p.cin! * taps));
    }
    const upload = (data: Float32Array, label: string) => {
      const bytes = storageBytes(data, elem);
      const b = device.createBuffer({ label, size: Math.max(16, Math.ceil(bytes.byteLength / 16) * 16), usage: STORAGE() });
      device.queue.writeBuffer(b, 0, bytes);
      owned.push(b);
      return b;
    };
    const rnd = (n: number, label: string, seed: number) => {
      const b = randomBuffer(device, n, elem, label, seed);
      owned.push(b);
      return b;
    };
    const x = rnd(frame, 'x', 17),
      cache = rnd(2 * frame, 'cache', 18),
      bias = rnd(p.cout!, 'b', 20),
      res = rnd(4, 'res', 21);
    const gamma = rnd(p.cin!, 'gamma', 23);
    const y = device.createBuffer({ label: 'y', size: Math.max(16, Math.ceil((p.cout! * p.h! * p.w! * (elem === 'f16' ? 2 : 4)) / 16) * 16), usage: STORAGE() });
    owned.push(y);
    const wPortable = upload(packConvWeight(wHost, p.cout!, p.cin!, o.KT, o.KS), 'w');
    const wBlocked = upload(packConvWeightBlocked(wHost, p.cout!, p.cin!, o.KT, o.KS), 'wt');
    const scratchElems = mmaScratchElems(p as { cin: number; cout: number; h: number; w: number }, o.KT, o.KS);
    const scratch = device.createBuffer({ label: 'mma operand copy', size: Math.ceil((scratchElems * (elem === 'f16' ? 2 : 4)) / 16) * 16, usage: STORAGE() });
    owned.push(scratch);
    const uni = device.createBuffer({ label: 'params', size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    owned.push(uni);
    // (one slot for the pack and the GEMM: the conv's form travels in it, src/kernels/conv3d-mma.ts MMA_FORM)
    const data = encodeParams(conv3dMmaPack, params as never, { ...packOv, HAS_RES: o.HAS_RES });
    device.queue.writeBuffer(uni, 0, data);
    const group = (def: AnyKernelDef, bufs: GPUBuffer[]) =>
      device.createBindGroup({ layout: ctx.cache.bindGroupLayout(def), entries: bufs.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
    const gPack = group(conv3dMmaPack, [x, cache, gamma, scratch]);
    const gGemm = group(gemm, [scratch, wBlocked, bias, res, y, cache]); // cache: the unused packed-ring binding (RING=0)
    const g1 = device.createBindGroup({ layout: ctx.cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: data.byteLength } }] });
    const packCounts = conv3dMmaPack.dispatch(params as never, packOv);
    const gemmCounts = gemm.dispatch(params as never, gemmOv);
    const encPack = (pass: GPUComputePassEncoder) => {
      pass.setPipeline(packPipe);
      pass.setBindGroup(0, gPack);
      pass.setBindGroup(1, g1, [0]);
      pass.dispatchWorkgroups(...packCounts);
    };
    const encGemm = (pass: GPUComputePassEncoder) => {
      pass.setPipeline(gemmPipe);
      pass.setBindGroup(0, gGemm);
      pass.setBindGroup(1, g1, [0]);
      pass.dispatchWorkgroups(...gemmCounts);
    };
    const both = (pass: GPUComputePassEncoder) => {
      encPack(pass);
      encGemm(pass);
    };
    const warm = await timer.time(Math.max(1, s.warmup), both);
    const runs = Math.min(ctx.runs ?? s.runs, Math.max(MIN_RUNS, Math.floor(CASE_BUDGET_MS / Math.max(1e-3, warm[warm.length - 1]!))));
    const ms = spread(await timer.time(runs, both));
    const packMs = spread(await timer.time(runs, encPack));
    const gemmMs = spread(await timer.time(runs, encGemm));
    const cost = gemm.cost(params as never, gemmOv, elem);
    const packCost = conv3dMmaPack.cost(params as never, packOv, elem);
    const extra: Record<string, number | string> = {
      dispatch: JSON.stringify([packCounts, gemmCounts]),
      flops: cost.flops,
      bytes: cost.bytes + packCost.bytes,
      scratchBytes: scratch.size,
      decoderTiles: mmaTilesFor(p as { cin: number; cout: number; h: number; w: number }, o.KS).join('x'),
      packMs: packMs.median,
      gemmMs: gemmMs.median,
      gemmTflops: cost.flops / (gemmMs.median * 1e9),
      packGBps: packCost.bytes / (packMs.median * 1e6),
    };
    // the compiler's warnings on the GEMM (the pipeline cache keeps errors only): e.g. deprecated builtins
    const info = await device.createShaderModule({ code: shaderSource(gemm, elem) }).getCompilationInfo();
    const warnings = info.messages.filter((m) => m.type !== 'error').map((m) => `${m.lineNum}: ${m.message}`);
    extra.compileWarnings = warnings.length ? warnings.join(' | ').slice(0, 500) : 'none';
    // the last run left y = pack + GEMM of these inputs: against conv3d on the same planar inputs
    Object.assign(extra, await againstPortable(ctx, [x, cache, wPortable, bias, res, y, gamma], params, o, elem));
    // other GEMMs of the same conv (looped at other result-tile shapes: conv3dMmaTiles; straight-line ones:
    // conv3dMmaFlat) on the same operands: time, the count of output values that differ from the shipped
    // GEMM's bit for bit (same products in the same order give 0) and the largest difference (another
    // summation order: f16 rounding of f32 sums, ~1 ulp). Only on the plain rows (NORM changes the pack, not the GEMM).
    if (!o.NORM) {
      const n = p.cout! * p.h! * p.w!;
      const want = await readHalves(device, y, n);
      const y2 = device.createBuffer({ label: 'y variant', size: y.size, usage: STORAGE() });
      owned.push(y2);
      const defs: [string, AnyKernelDef][] = [
        ...GEMM_VARIANTS.map(([tm, tn]): [string, AnyKernelDef] => [`${tm}x${tn}`, conv3dMmaTiles(emu ? conv3dMmaEmu : conv3dMma, tm, tn)]),
        ...(emu ? [] : FLAT_VARIANTS.map((v): [string, AnyKernelDef] => [`flat_${v.order}_${v.tm}x${v.tn}`, conv3dMmaFlat(v)])),
      ];
      for (const [tag, def] of defs) {
        if (def.id === gemm.id) continue;
        try {
          const pipe = await ctx.cache.get(def, gemmOv, elem);
          const g = group(def, [scratch, wBlocked, bias, res, y2, cache]);
          const counts = def.dispatch(params as never, gemmOv);
          const enc = (pass: GPUComputePassEncoder) => {
            pass.setPipeline(pipe);
            pass.setBindGroup(0, g);
            pass.setBindGroup(1, g1, [0]);
            pass.dispatchWorkgroups(...counts);
          };
          await timer.time(3, enc);
          const t = spread(await timer.time(Math.min(runs, 20), enc));
          const got = await readHalves(device, y2, n);
          let diff = 0,
            maxAbs = 0;
          for (let i = 0; i < n; i++)
            if (got[i] !== want[i]) {
              diff++;
              maxAbs = Math.max(maxAbs, Math.abs(fromHalf(got[i]!) - fromHalf(want[i]!)));
            }
          Object.assign(extra, { [`gemmMs_${tag}`]: t.median, [`gemmTflops_${tag}`]: cost.flops / (t.median * 1e9), [`differing_${tag}`]: diff, [`maxAbsVsShipped_${tag}`]: maxAbs });
        } catch (e) {
          extra[`error_${tag}`] = describeError(e).slice(0, 200);
        }
      }
      // the operand copy with ROWS_OUTER=1 (s[dt][row][cb][xp][16]: a row's channel blocks side by side)
      // through the same pack and GEMM: same products in the same order, so 0 differing values, or an address is wrong
      try {
        const scratch2 = device.createBuffer({ label: 'mma operand copy (ROWS_OUTER=1)', size: scratch.size, usage: STORAGE() });
        owned.push(scratch2);
        const [pp2, gp2] = await Promise.all([ctx.cache.get(conv3dMmaPack, { ...packOv, ROWS_OUTER: 1 }, elem), ctx.cache.get(gemm, { ...gemmOv, ROWS_OUTER: 1 }, elem)]);
        const gP = group(conv3dMmaPack, [x, cache, gamma, scratch2]);
        const gG = group(gemm, [scratch2, wBlocked, bias, res, y2, cache]);
        const encP = (pass: GPUComputePassEncoder) => {
          pass.setPipeline(pp2);
          pass.setBindGroup(0, gP);
          pass.setBindGroup(1, g1, [0]);
          pass.dispatchWorkgroups(...packCounts);
        };
        const encG = (pass: GPUComputePassEncoder) => {
          pass.setPipeline(gp2);
          pass.setBindGroup(0, gG);
          pass.setBindGroup(1, g1, [0]);
          pass.dispatchWorkgroups(...gemmCounts);
        };
        await timer.time(3, (pass) => {
          encP(pass);
          encG(pass);
        });
        const tp = spread(await timer.time(Math.min(runs, 20), encP));
        const tg = spread(await timer.time(Math.min(runs, 20), encG));
        const got = await readHalves(device, y2, n);
        let diff = 0;
        for (let i = 0; i < n; i++) if (got[i] !== want[i]) diff++;
        Object.assign(extra, { packMs_rowsOuter: tp.median, gemmMs_rowsOuter: tg.median, gemmTflops_rowsOuter: cost.flops / (tg.median * 1e9), differing_rowsOuter: diff });
      } catch (e) {
        extra.error_rowsOuter = describeError(e).slice(0, 200);
      }
    }
    return { ...base, timing: timer.source, ms, gflops: cost.flops / (ms.median * 1e6), gbps: (cost.bytes + packCost.bytes) / (ms.median * 1e6), extra };
  } catch (e) {
    return { ...base, status: 'failed', error: describeError(e) };
  } finally {
    await closeCase(device, timer, owned, `${s.name}/${elem}`);
  }
}

/** Reads `n` elements of a storage buffer as floats. */
export async function readFloats(device: GPUDevice, buf: GPUBuffer, n: number, elem: Elem): Promise<Float32Array> {
  const bytes = Math.ceil((n * (elem === 'f16' ? 2 : 4)) / 4) * 4;
  const st = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, st, 0, bytes);
  device.queue.submit([enc.finish()]);
  await st.mapAsync(GPUMapMode.READ);
  const raw = st.getMappedRange().slice(0);
  st.destroy();
  return elem === 'f32' ? new Float32Array(raw, 0, n) : Float32Array.from(new Uint16Array(raw, 0, n), fromHalf);
}

/**
 * The tensor-core conv's output (in bufs[5], from the timed runs) against the portable conv3d (GPU
 * tuning) on the same inputs: max |err| and NMSE, so a benchmark row also proves the kernel right.
 */
async function againstPortable(ctx: KernelContext, bufs: GPUBuffer[], params: Record<string, number>, ov: Record<string, number>, elem: Elem) {
  const { device } = ctx;
  const n = params.cout! * params.h! * params.w!;
  const got = await readFloats(device, bufs[5]!, n, elem);
  const ref = kernels.conv3d as AnyKernelDef;
  const pick = (k: string) => ov[k] ?? 0;
  const rov = resolveOverrides(ref, { ...conv3dTuning.gpu, KT: pick('KT'), KS: pick('KS'), UP: pick('UP'), HAS_RES: pick('HAS_RES'), NORM: pick('NORM'), SILU: pick('SILU') });
  const y = device.createBuffer({ size: bufs[5]!.size, usage: STORAGE() });
  const uni = device.createBuffer({ size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  try {
    const data = encodeParams(ref, params, rov);
    device.queue.writeBuffer(uni, 0, data);
    const pipeline = await ctx.cache.get(ref, rov, elem);
    const g0 = device.createBindGroup({ layout: ctx.cache.bindGroupLayout(ref), entries: bufs.map((b, i) => ({ binding: i, resource: { buffer: i === 5 ? y : b } })) });
    const g1 = device.createBindGroup({ layout: ctx.cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: data.byteLength } }] });
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, g0);
    pass.setBindGroup(1, g1, [0]);
    pass.dispatchWorkgroups(...ref.dispatch(params, rov));
    pass.end();
    device.queue.submit([enc.finish()]);
    const want = await readFloats(device, y, n, elem);
    const e = errorOf(got, want);
    return { maxAbsVsPortable: e.maxAbs, nmseVsPortable: e.nmse };
  } finally {
    y.destroy();
    uni.destroy();
  }
}

/** Every storage type of a kernel scenario; a WebGPU error scope failure becomes a failed row. */
export async function runKernelScenario(ctx: KernelContext, s: KernelScenario): Promise<Result[]> {
  const out: Result[] = [];
  for (const elem of s.elems) {
    try {
      out.push(await runCase(ctx, s, elem));
    } catch (e) {
      out.push({ name: `${s.name}/${elem}`, group: s.group, status: 'failed', error: describeError(e), params: { ...s.shape, elem }, key: `${s.name}/${elem}` });
    }
  }
  return out;
}
