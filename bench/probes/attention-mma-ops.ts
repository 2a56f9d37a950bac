// Probe: each subgroup-matrix operation form the tensor-core attention uses, alone, on one 16x16 tile, against
// its expected values (computed here). Why: on the H200 (2026-12-02, cef17c4) attention-mma's output was wrong
// (SNR -0.9 dB against shaders/attention.wgsl, every shape, one-pass and two-pass) while its emulated twin
// matches the CPU reference; conv3d-mma proves only left row-major / right col-major loads from storage (stride
// 16) and row-major result stores to workgroup memory. Each row multiplies by an identity tile so the result
// is the loaded operand itself (exact in f16 -> f32), written out through the proven row-major store.
// Build: npx vite build --config bench/probes/vite.attention-mma.config.ts (-> .h200/probe/attention-mma-ops.js)
// Run where `webgpu` resolves with subgroup matrices: node .h200/probe/attention-mma-ops.js [--flags FLAG]... [--out FILE.jsonl]
import { appendFileSync } from 'node:fs';
import { installNodeWebGPU } from '../../src/node/install-webgpu';
import { requestDecoderDevice } from '../../src/gpu/device';
import { storageBytes } from '../../src/runtime/f16';

const argv = process.argv.slice(2);
const outFile = argv[argv.indexOf('--out') + 1] && argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : undefined;
await installNodeWebGPU(argv.flatMap((a, i) => (argv[i - 1] === '--flags' ? [a] : [])));
const { device, mma } = await requestDecoderDevice({ powerPreference: 'high-performance' });
if (!mma) {
  console.log('no subgroup matrices on this adapter: nothing to probe');
  process.exit(0);
}
const SG = mma.subgroupSize;
const N = 64; // the strided rows' stride (elements)

const L = 'subgroup_matrix_left<f16, 16, 16>',
  R = 'subgroup_matrix_right<f16, 16, 16>',
  RES = 'subgroup_matrix_result<f32, 16, 16>';
const eyeR = `subgroupMatrixLoad<${R}, col_major>(&eye, 0u, 16u)`;
const eyeL = `subgroupMatrixLoad<${L}, row_major>(&eye, 0u, 16u)`;
const aL16 = `subgroupMatrixLoad<${L}, row_major>(&a, 0u, 16u)`;
/** a·b as conv3d-mma spells it: accumulated onto `z`, a result declared once at the top (zero) */
const mm = (x: string, y: string) => `subgroupMatrixMultiplyAccumulate(${x}, ${y}, z)`;

interface Op {
  name: string;
  /** WGSL statements ending with `r` (a result tile) assigned, or `direct` (they write out[] themselves) */
  body: string;
  direct?: boolean;
  /** expected out[e] for e < 256 (a: the f16 input values, v: the f32 fill of the workgroup tiles) */
  want(a: Float32Array, v: Float32Array, e: number): number;
}
const m = (e: number) => e >> 4,
  c = (e: number) => e & 15;
const ops: Op[] = [
  { name: 'left row-major storage stride 16 (proven)', body: `r = ${mm(aL16, eyeR)};`, want: (a, _v, e) => a[m(e) * 16 + c(e)]! },
  { name: 'left col-major storage stride 16', body: `r = ${mm(`subgroupMatrixLoad<${L}, col_major>(&a, 0u, 16u)`, eyeR)};`, want: (a, _v, e) => a[c(e) * 16 + m(e)]! },
  { name: `left col-major storage stride ${N} offset 8`, body: `r = ${mm(`subgroupMatrixLoad<${L}, col_major>(&a, 8u, prm.n)`, eyeR)};`, want: (a, _v, e) => a[8 + c(e) * N + m(e)]! },
  { name: `left row-major storage stride ${N} offset 8`, body: `r = ${mm(`subgroupMatrixLoad<${L}, row_major>(&a, 8u, prm.n)`, eyeR)};`, want: (a, _v, e) => a[8 + m(e) * N + c(e)]! },
  { name: `right row-major storage stride ${N} offset 8`, body: `r = ${mm(eyeL, `subgroupMatrixLoad<${R}, row_major>(&a, 8u, prm.n)`)};`, want: (a, _v, e) => a[8 + m(e) * N + c(e)]! },
  { name: `right col-major storage stride ${N} offset 8`, body: `r = ${mm(eyeL, `subgroupMatrixLoad<${R}, col_major>(&a, 8u, prm.n)`)};`, want: (a, _v, e) => a[8 + c(e) * N + m(e)]! },
  {
    name: 'left row-major workgroup f16 stride 72 offset 16',
    body: `for (var i = lid; i < 1152u; i += SG) { w_s[i] = a[i]; }
  workgroupBarrier();
  r = ${mm(`subgroupMatrixLoad<${L}, row_major>(&w_s, 16u, 72u)`, eyeR)};`,
    want: (a, _v, e) => a[16 + m(e) * 72 + c(e)]!,
  },
  {
    name: 'right col-major workgroup f16 stride 72 offset 16',
    body: `for (var i = lid; i < 1152u; i += SG) { w_s[i] = a[i]; }
  workgroupBarrier();
  r = ${mm(eyeL, `subgroupMatrixLoad<${R}, col_major>(&w_s, 16u, 72u)`)};`,
    want: (a, _v, e) => a[16 + c(e) * 72 + m(e)]!,
  },
  {
    name: 'result store col-major workgroup stride 16',
    direct: true,
    body: `subgroupMatrixStore<col_major>(&v_s, 0u, ${mm(aL16, eyeR)}, 16u);
  workgroupBarrier();
  for (var e = lid; e < 256u; e += SG) { out[e] = v_s[e]; }`,
    want: (a, _v, e) => a[c(e) * 16 + m(e)]!,
  },
  {
    name: 'result store row-major workgroup stride 68 offset 16',
    direct: true,
    body: `subgroupMatrixStore<row_major>(&v_s, 16u, ${mm(aL16, eyeR)}, 68u);
  workgroupBarrier();
  for (var e = lid; e < 256u; e += SG) { out[e] = v_s[16u + (e / 16u) * 68u + e % 16u]; }`,
    want: (a, _v, e) => a[e]!,
  },
  {
    name: 'result load col-major workgroup stride 16',
    body: `for (var i = lid; i < 1088u; i += SG) { v_s[i] = f32(i) * 0.25; }
  workgroupBarrier();
  r = subgroupMatrixLoad<${RES}, col_major>(&v_s, 0u, 16u);`,
    want: (_a, v, e) => v[c(e) * 16 + m(e)]!,
  },
  {
    name: 'result load row-major workgroup stride 16',
    body: `for (var i = lid; i < 1088u; i += SG) { v_s[i] = f32(i) * 0.25; }
  workgroupBarrier();
  r = subgroupMatrixLoad<${RES}, row_major>(&v_s, 0u, 16u);`,
    want: (_a, v, e) => v[e]!,
  },
  {
    name: 'accumulator declared T() in a loop body (zero each iteration)',
    body: `for (var it = 0u; it < 3u; it++) { var s = ${RES}(); s = subgroupMatrixMultiplyAccumulate(${aL16}, ${eyeR}, s); r = s; }`,
    want: (a, _v, e) => a[e]!,
  },
  {
    name: 'accumulator declared without initializer in a loop body',
    body: `for (var it = 0u; it < 3u; it++) { var s: ${RES}; s = subgroupMatrixMultiplyAccumulate(${aL16}, ${eyeR}, s); r = s; }`,
    want: (a, _v, e) => a[e]!,
  },
];

function shader(op: Op): string {
  return `enable f16;
enable chromium_experimental_subgroup_matrix;
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> eye: array<f16>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> prm: Params;
const SG: u32 = ${SG}u;
var<workgroup> w_s: array<f16, 1152>;
var<workgroup> v_s: array<f32, 1088>;
var<workgroup> c_s: array<f32, 256>;
@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32) {
  var r: ${RES};
  var z: ${RES};
  ${op.body}
${
  op.direct
    ? ''
    : `  subgroupMatrixStore<row_major>(&c_s, 0u, r, 16u);
  workgroupBarrier();
  for (var e = lid; e < 256u; e += SG) { out[e] = c_s[e]; }`
}
}`;
}

// a: distinct f16-exact values; eye: the identity
const aN = 16 * N + 1152;
const aVals = new Float32Array(aN).map((_, i) => ((i * 37) % 509) / 8 - 31);
const eyeVals = new Float32Array(256).map((_, i) => (i >> 4 === (i & 15) ? 1 : 0));
const vVals = new Float32Array(1088).map((_, i) => i * 0.25);
const buf = (data: Uint8Array<ArrayBuffer>, usage: number) => {
  const b = device.createBuffer({ size: Math.ceil(data.byteLength / 16) * 16, usage: usage | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(b, 0, data);
  return b;
};
const aBuf = buf(storageBytes(aVals, 'f16'), GPUBufferUsage.STORAGE);
const eyeBuf = buf(storageBytes(eyeVals, 'f16'), GPUBufferUsage.STORAGE);
const uni = buf(new Uint8Array(new Uint32Array([N, 0, 0, 0]).buffer), GPUBufferUsage.UNIFORM);
const out = device.createBuffer({ size: 1024, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
// one explicit layout for every op: layout 'auto' drops the bindings an op's shader does not use, and the bind
// group below names all four
const bgl = device.createBindGroupLayout({
  entries: (['read-only-storage', 'read-only-storage', 'storage', 'uniform'] as const).map((type, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } })),
});
const layout = device.createPipelineLayout({ bindGroupLayouts: [bgl] });
const rb = device.createBuffer({ size: 1024, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
for (const op of ops) {
  const row: Record<string, unknown> = { op: op.name };
  try {
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code: shader(op) });
    const info = await module.getCompilationInfo();
    const errs = info.messages.filter((x) => x.type === 'error');
    if (errs.length) throw new Error(errs.map((x) => `${x.lineNum}: ${x.message}`).join(' | '));
    const pipe = await device.createComputePipelineAsync({ layout, compute: { module, entryPoint: 'main' } });
    const bg = device.createBindGroup({
      layout: bgl,
      entries: [aBuf, eyeBuf, out, uni].map((b, i) => ({ binding: i, resource: { buffer: b } })),
    });
    const enc = device.createCommandEncoder();
    enc.clearBuffer(out);
    const p = enc.beginComputePass();
    p.setPipeline(pipe);
    p.setBindGroup(0, bg);
    p.dispatchWorkgroups(1);
    p.end();
    enc.copyBufferToBuffer(out, 0, rb, 0, 1024);
    device.queue.submit([enc.finish()]);
    const err = await device.popErrorScope();
    if (err) throw new Error(err.message);
    await rb.mapAsync(GPUMapMode.READ);
    const got = new Float32Array(rb.getMappedRange().slice(0));
    rb.unmap();
    const wrong = [...got].map((g, e) => [e, g, op.want(aVals, vVals, e)] as const).filter(([, g, w]) => g !== w);
    Object.assign(row, { ok: wrong.length === 0, wrong: wrong.length, first: wrong.slice(0, 4).map(([e, g, w]) => `e${e}: ${g} want ${w}`) });
  } catch (e) {
    row.error = String(e).slice(0, 300);
  }
  console.log(JSON.stringify(row));
  if (outFile) appendFileSync(outFile, JSON.stringify(row) + '\n');
}
device.destroy();
process.exit(0);
