// Probe: the Winograd GEMM (src/kernels/winograd.ts winogradGemm) alone, every block shape of WINO_GEMM_CANDIDATES at
// the decoder's band of the layers that matter (Wan2.1's four widths, Wan2.2's three), on random V and U: GPU time per
// band (timestamp-query, median), TFLOP/s of the GEMM's own multiply-adds (2 * E * cout * kc * tiles) and of the direct
// conv it replaces, and the NMSE of M against the decoder's shape (winoGemmShape) on the same inputs (f32: summation
// order only; h16: the per-step f16 sums). f16 storage rows (where the adapter has shader-f16): F(2x2) with f16 V, M, U
// (T = f32 staging, and h16) and F(4x4) with the f32 scratch the planner keeps for it.
// Build (development machine, checkout root): npx vite build --config bench/probes/vite.wino-gemm.config.ts
//   -> .h200-stock/probe/wino-gemm.js; run where `webgpu` resolves (the H200 bundle, or node_modules here):
//   node .h200-stock/probe/wino-gemm.js [--flags FLAG]... [--quick] [--cases A,B] [--variants X,Y] [--runs N] [--warm-ms MS]
//     [--seconds S] [--out FILE.jsonl]
// --quick: two small shapes (a lavapipe check of every candidate's output).
import { appendFileSync } from 'node:fs';
import { installNodeWebGPU } from '../../src/node/install-webgpu';
import { requestDecoderDevice } from '../../src/gpu/device';
import { encodeParams, PipelineCache, type Elem } from '../../src/gpu/kernel';
import { winogradGemm, winoGemmShape, winoGemmSmem, WINO_GEMM_CANDIDATES, type WinoGemmShape, type WinoParams, type WinoScratch } from '../../src/kernels/winograd';
import { winoPositions, type WinoR } from '../../src/kernels/winograd-transforms';
import { tiledShapeError } from '../../src/kernels/conv3d-tiled-shape';
import { winoPlanFor, winoScratchElems } from '../../src/plan/conv-form';
import { storageBytes } from '../../src/runtime/f16';
import { passTimer, readFloats } from './gpu-time';

const argv = process.argv.slice(2);
const arg = (k: string) => {
  const i = argv.indexOf(k);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const runs = Number(arg('--runs') ?? (quick ? 3 : 15));
// no new row starts after this many seconds (the rows are ordered by need)
const seconds = Number(arg('--seconds') ?? 1e9);
const t0 = performance.now();
const WARM_MS = Number(arg('--warm-ms') ?? (quick ? 0 : 400));
const outFile = arg('--out');
// --flags FLAG, once per Dawn flag (one flag per argument: 'enable-dawn-features=a,b' then 'disable-dawn-features=c')
const flags = argv.flatMap((a, i) => (argv[i - 1] === '--flags' ? [a] : []));
await installNodeWebGPU(flags);
// the decoder's device: every raised limit, shader-f16 and timestamp-query where the adapter has them
const { device, adapter } = await requestDecoderDevice({ powerPreference: 'high-performance' });
device.addEventListener('uncapturederror', (e) => console.log('GPU error:', (e as GPUUncapturedErrorEvent).error.message.slice(0, 300)));
const maxInv = device.limits.maxComputeInvocationsPerWorkgroup;
const cache = new PipelineCache(device);
const info = adapter.info as GPUAdapterInfo;
console.log(`adapter ${info.vendor} ${info.architecture} ${info.description}; features ${[...adapter.features].sort().join(' ')}; maxInvocations ${maxInv}`);

interface Case {
  label: string;
  r: WinoR;
  cin: number;
  cout: number;
  h: number;
  w: number;
  elem: Elem;
  sc: WinoScratch;
}
const f16 = device.features.has('shader-f16');
const big: Omit<Case, 'elem' | 'sc'>[] = quick
  ? [
      { label: '96ch-24x40', r: 4, cin: 96, cout: 96, h: 24, w: 40 },
      { label: '128ch-16x24', r: 4, cin: 128, cout: 128, h: 16, w: 24 },
    ]
  : [
      { label: '96ch-480x832', r: 4, cin: 96, cout: 96, h: 480, w: 832 },
      { label: '192ch-240x416', r: 4, cin: 192, cout: 192, h: 240, w: 416 },
      { label: '384ch-120x208', r: 4, cin: 384, cout: 384, h: 120, w: 208 },
      { label: '384ch-60x104', r: 4, cin: 384, cout: 384, h: 60, w: 104 },
      { label: '256ch-352x640', r: 4, cin: 256, cout: 256, h: 352, w: 640 },
      { label: '512ch-176x320', r: 4, cin: 512, cout: 512, h: 176, w: 320 },
      { label: '1024ch-88x160', r: 2, cin: 1024, cout: 1024, h: 88, w: 160 },
    ];
let cases: Case[] = big.map((c) => ({ ...c, elem: 'f32', sc: 'elem' }));
if (f16)
  for (const c of big.slice(0, quick ? 1 : 3)) {
    cases.push({ ...c, label: `${c.label}-f16-F2`, r: 2, elem: 'f16', sc: 'elem' });
    cases.push({ ...c, label: `${c.label}-f16-F4s32`, r: 4, elem: 'f16', sc: 'f32' });
  }

const F16_SHAPES = ['decoder', 'c96t8x8', 'c96t8x16k9', 'c96t12x8', 'c128t8x16k8', 'c128t16x8'];
// --cases a,b / --variants x,y: only those case labels / block labels ('decoder' is always timed: the reference)
const only = (k: string) => (arg(k) ? new Set(arg(k)!.split(',')) : null);
const onlyCases = only('--cases'),
  onlyVariants = only('--variants');
if (onlyCases) cases = cases.filter((c) => onlyCases.has(c.label));
let seed = 12345;
const rnd = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 31 - 1;
};
function bytesOf(n: number, elem: Elem): Uint8Array<ArrayBuffer> {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = rnd();
  return storageBytes(a, elem);
}

const timeMs = passTimer(device, runs);
const readM = (buf: GPUBuffer, offBytes: number, n: number, se: Elem) => readFloats(device, buf, offBytes, n, se);
const qs = device.features.has('timestamp-query');

console.log(`${cases.length} cases`);
for (const c of cases) {
  const kt = 3;
  const se: Elem = c.sc === 'f32' ? 'f32' : c.elem;
  const bpe = se === 'f16' ? 2 : 4;
  const wp = winoPlanFor(c.r, { ks: 3, kt, cin: c.cin, cout: c.cout, h: c.h, w: c.w }, 16, undefined, c.elem === 'f16' ? 2 : 4)!;
  const band = wp.band;
  const sv = Math.ceil(band / 4) * 4;
  const E = winoPositions(c.r);
  const kc = kt * c.cin;
  const m_off = E * kc * sv;
  const scratch = device.createBuffer({
    size: Math.ceil((winoScratchElems(c.r, band, c.cin, c.cout, kt) * bpe) / 4) * 4,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
  });
  device.queue.writeBuffer(scratch, 0, bytesOf(m_off, se));
  const cout4 = Math.ceil(c.cout / 4);
  const uN = E * kc * cout4 * 4;
  const u = device.createBuffer({ size: Math.ceil((uN * bpe) / 4) * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(u, 0, bytesOf(uN, se));
  const p: WinoParams = { cin: c.cin, cout: c.cout, h: c.h, w: c.w, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0, t0: 0, nt: band, m_off };
  const def0 = winogradGemm(c.r, winoGemmShape(c.cout, maxInv)!, c.sc);
  const uni = device.createBuffer({ size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(uni, 0, encodeParams(def0, p, {}));
  const g1 = device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: encodeParams(def0, p, {}).byteLength } }] });
  const smemMax = device.limits.maxComputeWorkgroupStorageSize;
  let shapes: [string, WinoGemmShape][] = [
    ['decoder', winoGemmShape(c.cout, maxInv, smemMax)!],
    ...WINO_GEMM_CANDIDATES.filter(([, t]) => c.cout % (4 * t.wgM * t.tm4) === 0 && !tiledShapeError(t, maxInv) && winoGemmSmem(t) <= smemMax),
  ];
  // f16 storage: the decoder's block and the f32 rows' likely winners, each also with h16 (per-step f16 sums)
  if (c.elem === 'f16') shapes = shapes.filter(([l]) => F16_SHAPES.includes(l));
  if (onlyVariants) shapes = shapes.filter(([l]) => l === 'decoder' || onlyVariants.has(l));
  if (c.elem === 'f16' && c.sc === 'elem') shapes.push(...shapes.map(([l, t]): [string, WinoGemmShape] => [`${l}-h16`, { ...t, h16: true }]));
  let ref: Float32Array | null = null;
  const gemmFlops = 2 * E * c.cout * kc * band;
  const directFlops = 2 * c.cout * kc * 9 * band * c.r * c.r;
  for (const [label, shape] of shapes) {
    if ((performance.now() - t0) / 1e3 > seconds) {
      console.log(`time is up (${seconds} s): ${c.label} ${label} and later rows skipped`);
      break;
    }
    const row: Record<string, unknown> = { case: c.label, r: c.r, elem: c.elem, scratch: c.sc, band, variant: label, shape };
    try {
      const def = winogradGemm(c.r, shape, c.sc);
      const pipe = await cache.get(def, { KT: kt }, c.elem);
      const g0 = device.createBindGroup({
        layout: cache.bindGroupLayout(def),
        entries: [
          { binding: 0, resource: { buffer: scratch } },
          { binding: 1, resource: { buffer: u } },
        ],
      });
      const d = def.dispatch(p, { KT: kt });
      row.smem = winoGemmSmem(shape);
      const run = (ps: GPUComputePassEncoder) => {
        ps.setPipeline(pipe);
        ps.setBindGroup(0, g0);
        ps.setBindGroup(1, g1, [0]);
        ps.dispatchWorkgroups(...d);
      };
      // warm-up: the GPU busy for >= WARM_MS first (the clock drops while the probe generates data and compares
      // on the CPU; a 15-dispatch warm-up left rows 3-5x slow on the H200, 2026-12-02)
      for (const w0 = performance.now(); performance.now() - w0 < WARM_MS;) await timeMs(run);
      const ms = await timeMs(run);
      const m = await readM(scratch, m_off * bpe, E * c.cout * sv, se);
      let se2 = 0,
        sr2 = 0,
        maxAbs = 0;
      if (!ref) ref = m;
      for (let i = 0; i < m.length; i++) {
        const dd = m[i]! - ref[i]!;
        se2 += dd * dd;
        sr2 += ref[i]! * ref[i]!;
        maxAbs = Math.max(maxAbs, Math.abs(dd));
      }
      Object.assign(row, { ms, gemmTflops: gemmFlops / ms / 1e9, directTflops: directFlops / ms / 1e9, nmse: se2 / Math.max(sr2, 1e-30), maxAbs, timing: qs ? 'timestamp' : 'wall' });
    } catch (e) {
      row.error = String(e).slice(0, 300);
    }
    console.log(JSON.stringify(row));
    if (outFile) appendFileSync(outFile, JSON.stringify(row) + '\n');
  }
  scratch.destroy();
  u.destroy();
}
device.destroy();
process.exit(0);
