// Probe: the middle block's attention alone at the decoder's shapes, the shipped portable kernel
// (shaders/attention.wgsl, f32 and f16 storage) against the tensor-core candidates (src/kernels/attention-mma.ts,
// f16) in one process: GPU time per frame (timestamp-query, median of --runs after >= WARM_MS of warm-up),
// TFLOP/s of the useful 4·N²·C, and each output against the shipped f32 kernel on the same (f16-rounded) inputs
// (NMSE, SNR in dB, max |err|).
// Build (development machine, checkout root): npx vite build --config bench/probes/vite.attention-mma.config.ts
//   -> .h200/probe/attention-mma.js; run where `webgpu` resolves (the H200 bundle, or node_modules here):
//   node .h200/probe/attention-mma.js [--flags FLAG]... [--quick] [--cases A,B] [--variants X,Y] [--runs N]
//     [--warm-ms MS] [--out FILE.jsonl]
// --quick: small shapes (a lavapipe check of every row, the tensor-core rows emulated where subgroup matrices
// are absent). Resuming: rows already in --out are not run again (the reference row is, silently), and a row
// begun (--out.started) without a result is recorded as the one that killed the process (a pipeline the
// driver fails on): the H200 scenario (bench/h200/scenarios/attn-ab.sh) runs the probe again until all are done.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { installNodeWebGPU } from '../../src/node/install-webgpu';
import { requestDecoderDevice } from '../../src/gpu/device';
import { encodeParams, PipelineCache, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { attention, type AttentionParams } from '../../src/kernels/attention';
import { attentionCombine, attentionSplitElems } from '../../src/kernels/attention-combine';
import { attentionPack } from '../../src/kernels/attention-pack';
import { attentionMma, attentionMmaFits, type AttentionMmaShape } from '../../src/kernels/attention-mma';
import { storageBytes } from '../../src/runtime/f16';
import { passTimer } from './gpu-time';

const argv = process.argv.slice(2);
const arg = (k: string) => {
  const i = argv.indexOf(k);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const runs = Number(arg('--runs') ?? (quick ? 3 : 15));
const WARM_MS = Number(arg('--warm-ms') ?? (quick ? 0 : 300));
const outFile = arg('--out');
const flags = argv.flatMap((a, i) => (argv[i - 1] === '--flags' ? [a] : []));
await installNodeWebGPU(flags);
const { device, adapter, f16, mma } = await requestDecoderDevice({ powerPreference: 'high-performance' });
device.addEventListener('uncapturederror', (e) => console.log('GPU error:', (e as GPUUncapturedErrorEvent).error.message.slice(0, 300)));
const cache = new PipelineCache(device);
const info = adapter.info as GPUAdapterInfo;
const sg = mma?.subgroupSize ?? 32;
console.log(`adapter ${info.vendor} ${info.architecture} ${info.description}; f16 ${f16}; subgroup matrices ${mma ? `yes (subgroup ${sg})` : 'no: tensor-core rows emulated'}`);

interface Case {
  label: string;
  c: number;
  n: number;
}
const allCases: Case[] = quick
  ? [
      { label: 'c32-n96', c: 32, n: 96 },
      { label: 'c64-n48', c: 64, n: 48 },
    ]
  : [
      { label: 'wan21-480x832', c: 384, n: 60 * 104 },
      { label: 'wan22-704x1280', c: 1024, n: 44 * 80 },
      { label: 'wan21-720x1280', c: 384, n: 90 * 160 },
    ];
interface Variant {
  label: string;
  shape?: AttentionMmaShape;
  elem: Elem;
}
const sh = (ct: number, kb: number, o: Omit<AttentionMmaShape, 'ct' | 'kb'> = {}): Variant => ({
  label: `${o.twoPass ? '2p' : '1p'}-${ct}x${kb}${o.stage ? `-s${o.dc ?? 32}` : ''}${o.oRow ? '-or' : ''}${o.split ? `-k${o.split}` : ''}${o.nConst ? '-nc' : ''}${o.packed ? '-p' : ''}`,
  shape: { ct, kb, ...o },
  elem: 'f16',
});
const allVariants: Variant[] = quick
  ? [
      { label: 'shipped-f32', elem: 'f32' },
      { label: 'shipped-f16', elem: 'f16' },
      sh(2, 2),
      sh(1, 3, { twoPass: true }),
      sh(2, 2, { stage: true }),
      sh(2, 2, { oRow: true }),
      sh(1, 2, { stage: true, oRow: true }),
      sh(2, 2, { split: 2 }),
      sh(1, 2, { nConst: true }),
      sh(2, 2, { packed: true, split: 2 }),
    ]
  : [
      { label: 'shipped-f32', elem: 'f32' },
      { label: 'shipped-f16', elem: 'f16' },
      // Q / K tiles straight from qkv (the H200 call of 2026-12-02 at cef17c4 measured these, output wrong)
      sh(12, 2),
      sh(12, 2, { oRow: true }),
      sh(12, 4, { twoPass: true, oRow: true }),
      // the direct form for C 1024 (Wan2.2): channel tiles dividing 64 (not measured yet; the 12-tile rows do not fit it)
      sh(8, 2),
      sh(16, 2),
      sh(32, 2),
      // the keys split over dispatch z (more workgroups: 780 at 480p unsplit, one subgroup each), then the combine
      // pass (timed with it); N baked as a constant (strides and bounds); not measured yet
      sh(12, 2, { nConst: true }),
      sh(12, 2, { split: 2 }),
      sh(12, 2, { split: 4 }),
      sh(12, 2, { split: 8 }),
      sh(12, 2, { split: 4, nConst: true }),
      sh(6, 2, { split: 4 }),
      sh(12, 4, { split: 4 }),
      sh(16, 2, { split: 4 }),
      sh(16, 2, { split: 8 }),
      sh(8, 2, { split: 8 }),
      // Q, K, V from qkv's tile-order copy (attention-pack, timed with the kernel): 512-byte tiles at stride 16
      sh(12, 2, { packed: true }),
      sh(12, 2, { packed: true, nConst: true }),
      sh(12, 2, { packed: true, split: 4 }),
      sh(16, 2, { packed: true }),
      sh(16, 2, { packed: true, split: 4 }),
      // staged S operands (row-major left / col-major right tiles from workgroup memory)
      sh(12, 2, { stage: true }),
      sh(12, 2, { stage: true, oRow: true }),
      sh(12, 4, { stage: true, oRow: true }),
      sh(12, 2, { stage: true, dc: 64, oRow: true }),
      sh(24, 2, { stage: true, oRow: true }),
      sh(8, 4, { stage: true, oRow: true }),
      sh(6, 2, { stage: true, oRow: true }),
      sh(16, 2, { stage: true, oRow: true }),
      sh(16, 4, { stage: true, dc: 64, oRow: true }),
      sh(12, 2, { twoPass: true, stage: true, oRow: true }),
    ];
const only = (k: string) => (arg(k) ? new Set(arg(k)!.split(',')) : null);
const onlyCases = only('--cases'),
  onlyVariants = only('--variants');
const cases = onlyCases ? allCases.filter((c) => onlyCases.has(c.label)) : allCases;
// the reference row (shipped-f32) always runs
const variants = onlyVariants ? allVariants.filter((v) => v.label === 'shipped-f32' || onlyVariants.has(v.label)) : allVariants;

const key = (c: Case, v: Variant) => `${c.label} ${v.label}`;
const lines = (f: string) =>
  existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l)
    : [];
const done = new Set(
  outFile
    ? lines(outFile).map((l) => {
        const r = JSON.parse(l) as { case: string; variant: string };
        return `${r.case} ${r.variant}`;
      })
    : [],
);
const started = new Set(outFile ? lines(`${outFile}.started`) : []);
function emit(row: Record<string, unknown>) {
  console.log(JSON.stringify(row));
  if (outFile) appendFileSync(outFile, JSON.stringify(row) + '\n');
}

let seed = 777;
const rnd = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 31 - 1;
};
/** f16 bits -> value */
function halfValue(x: number): number {
  const e = (x >> 10) & 31,
    m = x & 1023,
    s = x & 0x8000 ? -1 : 1;
  return e === 0 ? s * m * 2 ** -24 : e === 31 ? NaN : s * (1 + m / 1024) * 2 ** (e - 15);
}

/** q, k, v ~ U(-1.7, 1.7) per element (std ~1, the scale of a normed qkv), rounded to f16 for every row */
function inputs(n: number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = 1.7 * rnd();
  const h = new Uint16Array(storageBytes(a, 'f16').buffer, 0, n);
  return a.map((_, i) => halfValue(h[i]!));
}

async function read(buf: GPUBuffer, n: number, elem: Elem): Promise<Float32Array> {
  const bytes = Math.ceil((n * (elem === 'f16' ? 2 : 4)) / 4) * 4;
  const rb = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, rb, 0, bytes);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(n);
  if (elem === 'f32') out.set(new Float32Array(rb.getMappedRange(), 0, n));
  else {
    const h = new Uint16Array(rb.getMappedRange(), 0, n);
    for (let i = 0; i < n; i++) out[i] = halfValue(h[i]!);
  }
  rb.unmap();
  rb.destroy();
  return out;
}

const timeMs = passTimer(device, runs);

for (const c of cases) {
  if (variants.every((v) => done.has(key(c, v)))) continue;
  const qkvData = inputs(3 * c.c * c.n);
  const p: AttentionParams = { c: c.c, n: c.n, scale: 1 / Math.sqrt(c.c) };
  const mk = (elem: Elem, data?: Float32Array) => {
    const bytes = Math.ceil((c.c * c.n * (data ? 3 : 1) * (elem === 'f16' ? 2 : 4)) / 4) * 4;
    const b = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    if (data) device.queue.writeBuffer(b, 0, storageBytes(data, elem));
    return b;
  };
  const qkv = { f32: mk('f32', qkvData), f16: f16 ? mk('f16', qkvData) : null };
  let ref: Float32Array | null = null;
  const flops = 4 * c.n * c.n * c.c;
  for (const v of variants) {
    const row: Record<string, unknown> = { case: c.label, c: c.c, n: c.n, variant: v.label, elem: v.elem, ...(v.shape ? { shape: v.shape } : {}) };
    const k = key(c, v);
    const rerun = done.has(k) && v.label === 'shipped-f32'; // the reference, again for the rows after it
    if (done.has(k) && !rerun) continue;
    if (started.has(k) && !done.has(k)) {
      emit({ ...row, error: 'the process died in this row (an earlier run of the probe)' });
      continue;
    }
    if (outFile && !rerun) appendFileSync(`${outFile}.started`, k + '\n');
    try {
      if (v.elem === 'f16' && !qkv.f16) throw new Error('no shader-f16 on this adapter');
      if (v.shape && !attentionMmaFits(c, v.shape.ct)) throw new Error(`C ${c.c} / 16 is not a multiple of ${v.shape.ct}`);
      const def: AnyKernelDef = v.shape ? attentionMma(v.shape, { emulate: !mma }) : attention;
      const ov: Record<string, number> = v.shape ? { SG: sg, ...(v.shape.nConst ? { NS: c.n } : {}) } : {};
      const pipe = await cache.get(def, ov, v.elem);
      const out = mk(v.elem);
      const split = v.shape?.split ?? 1;
      // split: the first pass writes part / ml, the combine pass out (both in the timed pass)
      const splitElems = attentionSplitElems(c, split);
      const part = split > 1 ? device.createBuffer({ size: Math.ceil((splitElems.part * (v.elem === 'f16' ? 2 : 4)) / 4) * 4, usage: GPUBufferUsage.STORAGE }) : null;
      const ml = split > 1 ? device.createBuffer({ size: splitElems.ml * 4, usage: GPUBufferUsage.STORAGE }) : null;
      // packed: attention-pack writes the tile-order copy first (timed with it), the kernel reads that
      const src = v.elem === 'f16' ? qkv.f16! : qkv.f32;
      const packed = v.shape?.packed ? device.createBuffer({ size: src.size, usage: GPUBufferUsage.STORAGE }) : null;
      const pk = packed
        ? {
            pipe: await cache.get(attentionPack, {}, v.elem),
            d: attentionPack.dispatch(p, {}),
            group: device.createBindGroup({
              layout: cache.bindGroupLayout(attentionPack),
              entries: [
                { binding: 0, resource: { buffer: src } },
                { binding: 1, resource: { buffer: packed } },
              ],
            }),
          }
        : null;
      const g0 = device.createBindGroup({
        layout: cache.bindGroupLayout(def),
        entries: [{ binding: 0, resource: { buffer: packed ?? src } }, { binding: 1, resource: { buffer: part ?? out } }, ...(ml ? [{ binding: 2, resource: { buffer: ml } }] : [])],
      });
      const d = def.dispatch(p, ov);
      const comb = part && ml ? { pipe: await cache.get(attentionCombine, {}, v.elem), d: attentionCombine.dispatch({ ...p, split }, {}) } : null;
      const gc =
        part && ml
          ? device.createBindGroup({
              layout: cache.bindGroupLayout(attentionCombine),
              entries: [
                { binding: 0, resource: { buffer: part } },
                { binding: 1, resource: { buffer: ml } },
                { binding: 2, resource: { buffer: out } },
              ],
            })
          : null;
      // one uniform for the row's dispatches, as the decoder's step slot: attention's params + the ranges (combine's struct)
      const uc = device.createBuffer({ size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      const encC = encodeParams(attentionCombine, { ...p, split });
      device.queue.writeBuffer(uc, 0, encC);
      const g1c = device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uc, size: encC.byteLength } }] });
      const run = (ps: GPUComputePassEncoder) => {
        if (pk) {
          ps.setPipeline(pk.pipe);
          ps.setBindGroup(0, pk.group);
          ps.setBindGroup(1, g1c, [0]);
          ps.dispatchWorkgroups(...pk.d);
        }
        ps.setPipeline(pipe);
        ps.setBindGroup(0, g0);
        ps.setBindGroup(1, g1c, [0]);
        ps.dispatchWorkgroups(...d);
        if (comb && gc) {
          ps.setPipeline(comb.pipe);
          ps.setBindGroup(0, gc);
          ps.setBindGroup(1, g1c, [0]);
          ps.dispatchWorkgroups(...comb.d);
        }
      };
      await timeMs(run);
      for (const w0 = performance.now(); performance.now() - w0 < WARM_MS;) await timeMs(run);
      const ms = await timeMs(run);
      const got = await read(out, c.c * c.n, v.elem);
      for (const b of [out, part, ml, uc, packed]) b?.destroy();
      if (!ref) ref = got;
      let se = 0,
        sr = 0,
        maxAbs = 0;
      for (let i = 0; i < got.length; i++) {
        const e = got[i]! - ref[i]!;
        se += e * e;
        sr += ref[i]! * ref[i]!;
        maxAbs = Math.max(maxAbs, Math.abs(e));
      }
      Object.assign(row, {
        ms,
        tflops: flops / ms / 1e9,
        nmse: se / Math.max(sr, 1e-30),
        snrDb: 10 * Math.log10(Math.max(sr, 1e-30) / Math.max(se, 1e-30)),
        maxAbs,
        dispatch: d,
        timing: device.features.has('timestamp-query') ? 'timestamp' : 'wall',
      });
    } catch (e) {
      row.error = String(e).slice(0, 300);
    }
    if (!rerun) emit(row);
  }
  qkv.f32.destroy();
  qkv.f16?.destroy();
}
device.destroy();
process.exit(0);
