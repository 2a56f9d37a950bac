// Probe: the Winograd conv with its input transform in the GEMM's staging (src/kernels/winograd-fused.ts: winograd-fused +
// winograd-out per band) against the non-fused form the decoder runs (winograd-in + winograd-gemm + winograd-out per band,
// src/kernels/winograd.ts), one whole 3x3x3 conv layer (every band of the frame in one pass), the layers of Wan2.1 480x832
// (and Wan2.2's 256/512 widths). GPU time per layer (timestamp-query, median of --runs), effective TFLOP/s (the direct
// conv's FLOPs), the scratch of each form (planner's band: V + M against M only), and max |y_fused - y_nonfused| / NMSE.
// Build (development machine, checkout root): npx vite build --config bench/probes/vite.wino-fused.config.ts
//   -> .h200/probe/wino-fused.js; run where `webgpu` resolves (the H200 bundle, or node_modules here):
//   node .h200/probe/wino-fused.js [--flags FLAG]... [--quick] [--cases A,B] [--variants X,Y] [--runs N] [--warm-ms MS]
//     [--seconds S] [--out FILE.jsonl]
import { appendFileSync } from 'node:fs';
import { installNodeWebGPU } from '../../src/node/install-webgpu';
import { requestDecoderDevice } from '../../src/gpu/device';
import { encodeParams, PipelineCache, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoOverrides, type WinoParams, type WinoScratch } from '../../src/kernels/winograd';
import { winogradFused, winoFusedShape, winoFusedShapeError, WINO_FUSED_CANDIDATES, type WinoFusedShape } from '../../src/kernels/winograd-fused';
import { winoPositions, type WinoR } from '../../src/kernels/winograd-transforms';
import { winoBandParams, winoPlanFor, winoScratchElems, winoTiles, WINO_SCRATCH_BYTES } from '../../src/plan/conv-form';
import { storageBytes } from '../../src/runtime/f16';
import { passTimer, readFloats } from './gpu-time';

const argv = process.argv.slice(2);
const arg = (k: string) => {
  const i = argv.indexOf(k);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const runs = Number(arg('--runs') ?? (quick ? 3 : 11));
const seconds = Number(arg('--seconds') ?? 1e9);
const t0 = performance.now();
const WARM_MS = Number(arg('--warm-ms') ?? (quick ? 0 : 400));
const outFile = arg('--out');
// --transforms: winograd-in / winograd-out alone with 1, 2, 4 tiles per invocation instead of the fused rows
const transforms = argv.includes('--transforms');
const flags = argv.flatMap((a, i) => (argv[i - 1] === '--flags' ? [a] : []));
await installNodeWebGPU(flags);
const { device, adapter } = await requestDecoderDevice({ powerPreference: 'high-performance' });
device.addEventListener('uncapturederror', (e) => console.log('GPU error:', (e as GPUUncapturedErrorEvent).error.message.slice(0, 300)));
const maxInv = device.limits.maxComputeInvocationsPerWorkgroup;
const smemMax = device.limits.maxComputeWorkgroupStorageSize;
const cache = new PipelineCache(device);
const info = adapter.info as GPUAdapterInfo;
console.log(`adapter ${info.vendor} ${info.architecture} ${info.description}; maxInvocations ${maxInv}; workgroup bytes ${smemMax}`);

interface Case {
  label: string;
  r: WinoR;
  cin: number;
  cout: number;
  h: number;
  w: number;
  elem: Elem;
  sc: WinoScratch;
  norm: 0 | 1;
}
const f16 = device.features.has('shader-f16');
const base: Omit<Case, 'elem' | 'sc' | 'norm'>[] = quick
  ? [
      { label: '96ch-24x40', r: 4, cin: 96, cout: 96, h: 24, w: 40 },
      { label: '96ch-24x40-F2', r: 2, cin: 96, cout: 96, h: 24, w: 40 },
    ]
  : [
      { label: '96ch-480x832', r: 4, cin: 96, cout: 96, h: 480, w: 832 },
      { label: '192ch-240x416', r: 4, cin: 192, cout: 192, h: 240, w: 416 },
      { label: '384ch-120x208', r: 4, cin: 384, cout: 384, h: 120, w: 208 },
      { label: '384ch-60x104-F2', r: 2, cin: 384, cout: 384, h: 60, w: 104 },
      { label: '256ch-352x640', r: 4, cin: 256, cout: 256, h: 352, w: 640 },
      { label: '512ch-176x320', r: 4, cin: 512, cout: 512, h: 176, w: 320 },
    ];
// order of need: Wan2.1's layers in f32, the top one with the fused norm, then in f16 storage (the F(4x4) scratch f32, as
// the planner keeps it), then Wan2.2's widths
const wan21 = base.filter((c) => c.cin % 96 === 0);
let cases: Case[] = wan21.map((c) => ({ ...c, elem: 'f32', sc: 'elem', norm: 0 }));
cases.splice(1, 0, { ...cases[0]!, label: `${cases[0]!.label}-norm`, norm: 1 });
if (f16) for (const c of wan21) cases.push({ ...c, label: `${c.label}-f16`, elem: 'f16', sc: c.r === 4 ? 'f32' : 'elem', norm: 1 });
for (const c of base.filter((c) => c.cin % 96 !== 0)) cases.push({ ...c, elem: 'f32', sc: 'elem', norm: 0 });
const only = (k: string) => (arg(k) ? new Set(arg(k)!.split(',')) : null);
const onlyCases = only('--cases'),
  onlyVariants = only('--variants');
if (onlyCases) cases = cases.filter((c) => onlyCases.has(c.label));

let seed = 12345;
const rnd = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 31 - 1;
};
const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
function buf(n: number, elem: Elem, fill: ((i: number) => number) | null): GPUBuffer {
  const bytes = Math.ceil((n * (elem === 'f16' ? 2 : 4)) / 16) * 16;
  const b = device.createBuffer({ size: Math.max(16, bytes), usage: STORAGE });
  if (fill) {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = fill(i);
    const s = storageBytes(a, elem);
    device.queue.writeBuffer(b, 0, s, 0, Math.floor(s.byteLength / 4) * 4);
  }
  return b;
}
const timeMs = passTimer(device, runs);
const readF = (b: GPUBuffer, n: number, elem: Elem) => readFloats(device, b, 0, n, elem);

/** One dispatch of a band: kernel, its bindings, overrides, params. */
interface Disp {
  def: AnyKernelDef;
  ov: Record<string, number>;
  bind: GPUBuffer[];
  p: WinoParams;
}
async function encoder(ds: Disp[], elem: Elem): Promise<(ps: GPUComputePassEncoder) => void> {
  const steps = await Promise.all(
    ds.map(async (d) => {
      const pipe = await cache.get(d.def, d.ov, elem);
      const g0 = device.createBindGroup({ layout: cache.bindGroupLayout(d.def), entries: d.bind.map((b, i) => ({ binding: i, resource: { buffer: b } })) });
      const bytes = encodeParams(d.def, d.p, d.ov);
      const uni = device.createBuffer({ size: Math.max(256, bytes.byteLength), usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(uni, 0, bytes);
      const g1 = device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: bytes.byteLength } }] });
      return { pipe, g0, g1, wg: d.def.dispatch(d.p, d.ov) };
    }),
  );
  return (ps) => {
    for (const s of steps) {
      ps.setPipeline(s.pipe);
      ps.setBindGroup(0, s.g0);
      ps.setBindGroup(1, s.g1, [0]);
      ps.dispatchWorkgroups(...s.wg);
    }
  };
}

console.log(`${cases.length} cases`);
for (const c of cases) {
  const kt = 3;
  const se: Elem = c.sc === 'f32' ? 'f32' : c.elem;
  const bpe = se === 'f16' ? 2 : 4;
  const hw = c.h * c.w;
  const frame = c.cin * hw + (c.norm ? hw : 0);
  // x at 0, cache = [t-1][t-2]; the NORM row (inverse RMS, ~1) after each frame's channels
  const val = (i: number) => (c.norm && i % frame >= c.cin * hw ? 0.8 + 0.2 * Math.abs(rnd()) : rnd());
  const x = buf(frame, c.elem, val);
  const cch = buf(2 * frame, c.elem, val);
  const gamma = buf(c.cin, c.elem, () => 0.5 + 0.5 * Math.abs(rnd()));
  const E = winoPositions(c.r);
  const cout4 = Math.ceil(c.cout / 4);
  const u = buf(E * kt * c.cin * cout4 * 4, se, () => rnd() / Math.sqrt(kt * c.cin * 9));
  const bias = buf(c.cout, c.elem, () => 0.1 * rnd());
  const dummy = buf(4, c.elem, null);
  const y = buf(c.cout * hw, c.elem, null);
  const shape = { ks: 3, kt, cin: c.cin, cout: c.cout, h: c.h, w: c.w };
  const wp = winoPlanFor(c.r, shape, 16, undefined, c.elem === 'f16' ? 2 : 4)!;
  const scratchN = winoScratchElems(c.r, wp.band, c.cin, c.cout, kt);
  const scratch = buf(scratchN, se, null);
  const p0: WinoParams = { cin: c.cin, cout: c.cout, h: c.h, w: c.w, x_off: 0, prev2_off: frame, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0, t0: 0, nt: 0, m_off: 0 };
  const ov = winoOverrides({ KT: kt, UP: 0, HAS_RES: 0, NORM: c.norm, SILU: c.norm });
  const gshape = winoGemmShape(c.cout, maxInv, smemMax)!;
  const nonfused: Disp[] = winoBandParams(wp, p0, kt).flatMap((p) => [
    { def: winogradIn(c.r, c.sc), ov: ov.in, bind: [x, cch, gamma, scratch], p },
    { def: winogradGemm(c.r, gshape, c.sc), ov: ov.gemm, bind: [scratch, u], p },
    { def: winogradOut(c.r, c.sc), ov: ov.out, bind: [scratch, bias, dummy, y], p },
  ]);
  // the fused form's band: M only under the same cap
  const all = winoTiles(c.r, c.h, c.w);
  const perTile = E * c.cout * bpe;
  const fband = Math.min(Math.max(128, Math.floor(WINO_SCRATCH_BYTES / perTile / 128) * 128), Math.ceil(all / 4) * 4);
  const fscratch = buf(E * c.cout * Math.ceil(fband / 4) * 4, se, null);
  const fbands: WinoParams[] = [];
  for (let t = 0; t < all; t += fband) fbands.push({ ...p0, t0: t, nt: Math.min(fband, all - t), m_off: 0 });
  const fov = { KT: kt, UP: 0, NORM: c.norm, SILU: c.norm };
  const directFlops = 2 * c.cout * kt * c.cin * 9 * hw;
  const variants: [string, WinoFusedShape | null][] = [
    ['nonfused', null],
    ['fused-decoder', winoFusedShape(c.r, c.cout, maxInv, smemMax)],
    ...WINO_FUSED_CANDIDATES.filter(([, t]) => c.cout % (4 * t.wgM * t.tm4) === 0 && !winoFusedShapeError(c.r, t, maxInv, smemMax)),
  ];
  if (transforms) {
    // winograd-in and winograd-out alone over every band, 1, 2 and 4 tiles per invocation; V (the last band's) and y
    // compared with the 1-tile kernels' (the same arithmetic per value: equal bit for bit)
    const mN = E * c.cout * Math.ceil(wp.band / 4) * 4;
    const mOff = scratchN - mN;
    device.queue.writeBuffer(
      scratch,
      mOff * bpe,
      storageBytes(
        Float32Array.from({ length: mN }, () => rnd()),
        se,
      ),
    );
    const bands = winoBandParams(wp, p0, kt);
    const refs: Record<string, Float32Array> = {};
    // each variant twice, the second round in reverse order (a GPU clock still rising after the CPU's input generation
    // favours the later rows of a fixed order: H200, 2026-12-02, wino-transforms-2026-12-02-45006e9)
    for (const [round, T] of ([1, 2, 4, 4, 2, 1] as const).map((t, i) => [i < 3 ? 1 : 2, t] as const))
      for (const kind of ['in', 'out'] as const) {
        if ((performance.now() - t0) / 1e3 > seconds) break;
        const row: Record<string, unknown> = { case: c.label, r: c.r, elem: c.elem, scratch: c.sc, norm: c.norm, variant: `${kind}-t${T}`, round, bands: bands.length };
        try {
          const ds: Disp[] = bands.map((p) =>
            kind === 'in' ? { def: winogradIn(c.r, c.sc, T), ov: ov.in, bind: [x, cch, gamma, scratch], p } : { def: winogradOut(c.r, c.sc, T), ov: ov.out, bind: [scratch, bias, dummy, y], p },
          );
          const run = await encoder(ds, c.elem);
          for (const w0 = performance.now(); performance.now() - w0 < WARM_MS;) await timeMs(run);
          const ms = await timeMs(run);
          const got = kind === 'in' ? await readF(scratch, mOff, se) : await readF(y, c.cout * hw, c.elem);
          const ref = (refs[kind] ??= got);
          let maxAbs = 0;
          for (let i = 0; i < got.length; i++) if (!(Math.abs(got[i]! - ref[i]!) <= maxAbs)) maxAbs = Math.abs(got[i]! - ref[i]!);
          // bytes: V written (in) / M read (out) of every band, the frame read (in) / written (out)
          const vmBytes = bands.reduce((a, p) => a + E * (kind === 'in' ? kt * c.cin : c.cout) * p.nt * bpe, 0);
          Object.assign(row, { ms, scratchGBs: vmBytes / ms / 1e6, maxAbsVsT1: maxAbs, timing: device.features.has('timestamp-query') ? 'timestamp' : 'wall' });
        } catch (e) {
          row.error = String(e).slice(0, 300);
        }
        console.log(JSON.stringify(row));
        if (outFile) appendFileSync(outFile, JSON.stringify(row) + '\n');
      }
    for (const b of [x, cch, gamma, u, bias, dummy, y, scratch, fscratch]) b.destroy();
    continue;
  }
  let ref: Float32Array | null = null;
  for (const [label, t] of variants) {
    if (onlyVariants && label !== 'nonfused' && !onlyVariants.has(label)) continue;
    if ((performance.now() - t0) / 1e3 > seconds) {
      console.log(`time is up (${seconds} s): ${c.label} ${label} and later rows skipped`);
      break;
    }
    const row: Record<string, unknown> = { case: c.label, r: c.r, elem: c.elem, scratch: c.sc, norm: c.norm, variant: label, shape: t };
    try {
      const ds: Disp[] = t
        ? fbands.flatMap((p) => [
            { def: winogradFused(c.r, t, c.sc), ov: fov, bind: [x, cch, gamma, fscratch, u], p },
            { def: winogradOut(c.r, c.sc), ov: ov.out, bind: [fscratch, bias, dummy, y], p },
          ])
        : nonfused;
      const run = await encoder(ds, c.elem);
      for (const w0 = performance.now(); performance.now() - w0 < WARM_MS;) await timeMs(run);
      const ms = await timeMs(run);
      const got = await readF(y, c.cout * hw, c.elem);
      if (!ref) ref = got;
      let e2 = 0,
        r2 = 0,
        maxAbs = 0;
      for (let i = 0; i < got.length; i++) {
        const d = got[i]! - ref[i]!;
        e2 += d * d;
        r2 += ref[i]! * ref[i]!;
        if (!(Math.abs(d) <= maxAbs)) maxAbs = Math.abs(d);
      }
      Object.assign(row, {
        ms,
        directTflops: directFlops / ms / 1e9,
        bands: t ? fbands.length : Math.ceil(all / wp.band),
        scratchMiB: ((t ? E * c.cout * Math.ceil(fband / 4) * 4 : scratchN) * bpe) / 2 ** 20,
        dispatches: ds.length,
        nmseVsNonfused: e2 / Math.max(r2, 1e-30),
        maxAbsVsNonfused: maxAbs,
        timing: device.features.has('timestamp-query') ? 'timestamp' : 'wall',
      });
    } catch (e) {
      row.error = String(e).slice(0, 300);
    }
    console.log(JSON.stringify(row));
    if (outFile) appendFileSync(outFile, JSON.stringify(row) + '\n');
  }
  for (const b of [x, cch, gamma, u, bias, dummy, y, scratch, fscratch]) b.destroy();
}
device.destroy();
process.exit(0);
