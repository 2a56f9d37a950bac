// Winograd rows of the conv3d group (kernel 'conv3dWinograd'): one conv call as conv3d-winograd
// (F(2x2,3x3), U = G g G^T packed from random weights g) timed beside the decoder's direct conv3d on the
// SAME inputs and weights g in one case: `ms` is Winograd's, extra.directMs the direct conv's,
// extra.speedup = directMs / ms, and max |err| / NMSE of the Winograd output against the direct one
// (extra.maxAbsVsDirect, nmseVsDirect). GFLOP/s counts the direct conv's FLOPs (the work done), so rates
// compare with the conv3d rows. A scenario's TX/TY/TM4/TT/BK overrides pick another Winograd tiling;
// override M: 4 runs F(4x4,3x3) (conv3d-winograd4) instead of F(2x2,3x3); M: 0 runs no Winograd but the
// generated direct convs of TILED_CANDIDATES (src/kernels/conv3d-tiled.ts) whose channel block divides
// cout, each on the same inputs: extra.ms_<label>, tflops_<label> (direct-conv FLOPs / time),
// maxAbs_<label> against the decoder's direct conv (the row's own ms / GFLOP/s are the direct conv's).
import { DecoderError } from '../../src/gpu/errors';
import { encodeParams, pipelineKey, resolveOverrides, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { conv3d, conv3dTuning, conv3dTuningForCout, packConvWeight } from '../../src/kernels/conv3d';
import { conv3dTiled, tiledShapeError, type TiledShape } from '../../src/kernels/conv3d-tiled';
import { conv3dWinograd, conv3dWinograd4, packConvWeightWinograd, winograd4Tuning, winogradTuning } from '../../src/kernels/conv3d-winograd';
import { storageBytes } from '../../src/runtime/f16';
import { PassTimer } from './gpu-timer';
import { describeError, spread } from './stats';
import type { KernelContext } from './kernels';
import type { KernelScenario, Result } from './types';

const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const CASE_BUDGET_MS = 30_000;
const MIN_RUNS = 10;
const TUNING_KEYS = ['TX', 'TY', 'TM4', 'TT', 'BK'];

/**
 * Direct convs timed beside conv3d (M: 0 rows): [label, generated shape (block = 4*wgM*tm4 channels x
 * 4*wgN*tn4 pixels) or conv3d overrides]. Session 6 call 1 (d6f80d3, without fma) timed ten shapes at
 * 22-30 TFLOP/s, conv3d at 27-28 (bench/results/h200/portable-2026-12-01-s6/call1): every shape near one
 * ceiling, as if each multiply-add were two instructions; these are the fma() forms.
 */
export const TILED_CANDIDATES: [string, TiledShape | { conv3d: Record<string, number> }][] = [
  ['c96p128', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true }], // 8 ch x 8 px, 192 invocations
  ['c96p128u', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true, unroll: true }],
  ['c96p128w', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true }], // 4 ch x 8 px, 384 invocations
  ['c96p64', { wgN: 16, wgM: 12, tm4: 2, tn4: 1, bk: 12, fma: true }], // 8 ch x 4 px
  ['c96p128t12x8', { wgN: 16, wgM: 8, tm4: 3, tn4: 2, bk: 16, fma: true }], // 12 ch x 8 px, 128 invocations
  ['c128p64', { wgN: 16, wgM: 16, tm4: 2, tn4: 1, bk: 16, fma: true }],
  ['c128p128', { wgN: 16, wgM: 16, tm4: 2, tn4: 2, bk: 16, fma: true }],
  ['c128p128t16x8', { wgN: 16, wgM: 8, tm4: 4, tn4: 2, bk: 16, fma: true }], // 16 ch x 8 px, 128 invocations
  ['c64p128', { wgN: 16, wgM: 16, tm4: 1, tn4: 2, bk: 16, fma: true }],
  // the head (cout 3): conv3d's direct loops (MODE 0) on one vec4 of channels instead of a 16-channel block
  ['m0n4', { conv3d: { WG_N: 64, WG_M: 1, TM4: 1, TN: 4, MODE: 0, BK: 1 } }],
  ['m0n8', { conv3d: { WG_N: 64, WG_M: 1, TM4: 1, TN: 8, MODE: 0, BK: 1 } }],
];

/** Deterministic values in [-scale/2, scale/2) (LCG), as the other kernel rows fill their buffers. */
function lcg(n: number, seed: number, scale: number): Float32Array {
  const out = new Float32Array(n + (n & 1));
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * scale;
  }
  return out;
}

async function readFloats(device: GPUDevice, buf: GPUBuffer, n: number, elem: Elem): Promise<Float32Array> {
  const bytes = Math.ceil((n * (elem === 'f16' ? 2 : 4)) / 4) * 4;
  const st = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, st, 0, bytes);
  device.queue.submit([enc.finish()]);
  await st.mapAsync(GPUMapMode.READ);
  const raw = st.getMappedRange().slice(0);
  st.destroy();
  if (elem === 'f32') return new Float32Array(raw, 0, n);
  const { fromHalf } = await import('../../src/runtime/f16');
  return Float32Array.from(new Uint16Array(raw, 0, n), fromHalf);
}

/** One Winograd row: conv3d-winograd and the direct conv3d on the same inputs (see the header). */
export async function runWinogradCase(ctx: KernelContext, s: KernelScenario, elem: Elem): Promise<Result> {
  const p = s.shape;
  const cin = p.cin!, cout = p.cout!, h = p.h!, w = p.w!;
  const op = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0 };
  for (const k of Object.keys(op)) if (s.overrides?.[k] !== undefined) op[k as keyof typeof op] = s.overrides[k]!;
  const m = s.overrides?.M === 4 ? 4 : s.overrides?.M === 0 ? 0 : 2;
  const def = m === 4 ? conv3dWinograd4 : conv3dWinograd;
  const tune: Record<string, number> = { ...(m === 4 ? winograd4Tuning : winogradTuning)[ctx.cpuAdapter ? 'cpu' : 'gpu'] };
  for (const k of TUNING_KEYS) if (s.overrides?.[k] !== undefined) tune[k] = s.overrides[k]!;
  const wov = resolveOverrides(def, { ...op, ...tune });
  const dov = resolveOverrides(conv3d, { ...op, ...conv3dTuningForCout(ctx.cpuAdapter ? conv3dTuning.cpu : conv3dTuning.gpu, cout, ctx.device.limits.maxComputeInvocationsPerWorkgroup) });
  const runs = ctx.runs ?? s.runs;
  const base: Result = { name: `${s.name}/${elem}`, group: s.group, status: 'ok', params: { ...p, elem, overrides: wov, runs, warmup: s.warmup }, key: '' };
  base.key = `${base.name}|${pipelineKey(def, wov, elem)}|${JSON.stringify(p)}`;
  if (elem === 'f16' && !ctx.f16) return { ...base, status: 'skipped', error: "no 'shader-f16' on this adapter" };
  const { device } = ctx;
  const owned: GPUBuffer[] = [];
  const timer = new PassTimer(device);
  const buffer = (data: Float32Array, label: string) => {
    const bytes = storageBytes(data, elem);
    const b = device.createBuffer({ label, size: Math.max(16, Math.ceil(bytes.byteLength / 16) * 16), usage: STORAGE() });
    device.queue.writeBuffer(b, 0, bytes);
    owned.push(b);
    return b;
  };
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  try {
    const frame = (cin + op.NORM) * h * w;
    const g = lcg(cout * cin * 27, 29, 2 / Math.sqrt(cin * 27)).subarray(0, cout * cin * 27);
    const inv = lcg(h * w, 31, 0.5).map((v) => v + 1); // NORM=1: an inverse-RMS row near 1
    const withInv = (f: Float32Array) => {
      if (!op.NORM) return f;
      const o = new Float32Array(frame);
      o.set(f.subarray(0, cin * h * w));
      o.set(inv.subarray(0, h * w), cin * h * w);
      return o;
    };
    // one random frame for x and both cache frames, reversed in the cache (the JS fill of three 96ch
    // 480x832 frames took most of a row's 25 s on the H200); both kernels read the same inputs
    const f0 = withInv(lcg(cin * h * w, 17, 1));
    const x = buffer(f0, 'x');
    const cacheData = new Float32Array(2 * frame);
    cacheData.set(f0.slice(0, frame).reverse()); // slice: a copy (reverse() works in place)
    cacheData.set(f0.subarray(0, frame), frame);
    const cache = buffer(cacheData, 'cache');
    const u = buffer(m ? packConvWeightWinograd(g, cout, cin, 3, m) : new Float32Array(4), 'U');
    const wd = buffer(packConvWeight(g, cout, cin, 3, 3), 'w');
    const b = buffer(lcg(cout, 20, 0.2), 'b');
    const res = buffer(new Float32Array(4), 'res');
    const yw = buffer(new Float32Array(cout * h * w), 'y winograd');
    const yd = buffer(new Float32Array(cout * h * w), 'y direct');
    const gamma = buffer(lcg(cin, 23, 1).map((v) => v + 1), 'gamma');
    const params = { cin, cout, h, w, x_off: 0, prev2_off: 0, prev1_off: frame, res_off: 0, y_off: 0, tap0: 0 };
    const data = encodeParams(conv3d, params);
    const uni = device.createBuffer({ label: 'params', size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    owned.push(uni);
    device.queue.writeBuffer(uni, 0, data);
    const g1 = device.createBindGroup({ layout: ctx.cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: data.byteLength } }] });
    const pass = async (def: AnyKernelDef, ov: Record<string, number>, bufs: GPUBuffer[]) => {
      const pipeline = await ctx.cache.get(def, ov, elem);
      const g0 = device.createBindGroup({ layout: ctx.cache.bindGroupLayout(def), entries: bufs.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
      const counts = def.dispatch(params, ov);
      return {
        counts,
        encode: (ps: GPUComputePassEncoder) => {
          ps.setPipeline(pipeline);
          ps.setBindGroup(0, g0);
          ps.setBindGroup(1, g1, [0]);
          ps.dispatchWorkgroups(...counts);
        },
      };
    };
    const dir = await pass(conv3d, dov, [x, cache, wd, b, res, yd, gamma]);
    const win = await pass(def, wov, [x, cache, u, b, res, yw, gamma]);
    const timeOf = async (enc: (ps: GPUComputePassEncoder) => void) => {
      const warm = await timer.time(Math.max(1, s.warmup), enc);
      const fit = Math.max(MIN_RUNS, Math.floor(CASE_BUDGET_MS / 2 / Math.max(1e-3, warm[warm.length - 1]!)));
      return spread(await timer.time(Math.min(runs, fit), enc));
    };
    const n = cout * h * w;
    if (m === 0) {
      // the generated direct convs against the decoder's conv3d (see the header)
      const dms = await timeOf(dir.encode);
      const want = await readFloats(device, yd, n, elem);
      const cost = conv3d.cost(params, dov, elem);
      const extra: Record<string, number | string> = { flops: cost.flops, bytes: cost.bytes, directTflops: cost.flops / (dms.median * 1e9) };
      for (const [label, shape] of TILED_CANDIDATES) {
        if ('conv3d' in shape ? cout > 4 : cout % (4 * shape.wgM * shape.tm4) || tiledShapeError(shape, device.limits.maxComputeInvocationsPerWorkgroup)) continue;
        try {
          const enc0 = device.createCommandEncoder();
          enc0.clearBuffer(yw); // a candidate that misses outputs cannot inherit the previous one's
          device.queue.submit([enc0.finish()]);
          const cand = 'conv3d' in shape ? await pass(conv3d, { ...op, ...shape.conv3d }, [x, cache, wd, b, res, yw, gamma]) : await pass(conv3dTiled(shape), op, [x, cache, wd, b, res, yw, gamma]);
          const t = await timeOf(cand.encode);
          const got = await readFloats(device, yw, n, elem);
          let maxAbs = 0;
          for (let i = 0; i < n; i++) maxAbs = Math.max(maxAbs, Math.abs(got[i]! - want[i]!));
          Object.assign(extra, { [`ms_${label}`]: t.median, [`tflops_${label}`]: cost.flops / (t.median * 1e9), [`maxAbs_${label}`]: maxAbs });
        } catch (e) {
          extra[`error_${label}`] = describeError(e).slice(0, 200);
        }
      }
      return { ...base, params: { ...base.params, overrides: dov }, timing: timer.source, ms: dms, gflops: cost.flops / (dms.median * 1e6), gbps: cost.bytes / (dms.median * 1e6), extra };
    }
    const ms = await timeOf(win.encode);
    const dms = await timeOf(dir.encode);
    const got = await readFloats(device, yw, n, elem);
    const want = await readFloats(device, yd, n, elem);
    let maxAbs = 0, se = 0, ss = 0;
    for (let i = 0; i < n; i++) {
      const d = got[i]! - want[i]!;
      maxAbs = Math.max(maxAbs, Math.abs(d));
      se += d * d;
      ss += want[i]! * want[i]!;
    }
    const cost = def.cost(params, wov, elem);
    const extra: Record<string, number | string> = {
      dispatch: JSON.stringify(win.counts), flops: cost.flops, bytes: cost.bytes,
      directMs: dms.median, directGflops: cost.flops / (dms.median * 1e6), speedup: dms.median / ms.median,
      maxAbsVsDirect: maxAbs, nmseVsDirect: se / Math.max(ss, 1e-30), tiling: `F(${m}x${m}) ${TUNING_KEYS.map((k) => `${k}${wov[k]}`).join(' ')}`,
    };
    return { ...base, timing: timer.source, ms, gflops: cost.flops / (ms.median * 1e6), gbps: cost.bytes / (ms.median * 1e6), extra };
  } catch (e) {
    return { ...base, status: 'failed', error: describeError(e) };
  } finally {
    const v = await device.popErrorScope();
    const m = await device.popErrorScope();
    timer.dispose();
    for (const b of owned) b.destroy();
    if (v || m) throw new DecoderError(m ? 'oom' : 'validation', `${s.name}/${elem}: ${(v ?? m)!.message}`);
  }
}
