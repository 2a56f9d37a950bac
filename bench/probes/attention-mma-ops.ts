// Probe: each subgroup-matrix operation form the tensor-core attention uses, alone, on one 16x16 tile, against
// its expected values (computed here). Why: on the H200 (2026-12-02, cef17c4) attention-mma's output was wrong
// (SNR -0.9 dB against shaders/attention.wgsl, every shape, one-pass and two-pass) while its emulated twin
// matches the CPU reference; conv3d-mma proves only left row-major / right col-major loads from storage (stride
// 16) and row-major result stores to workgroup memory. Each row multiplies by an identity tile so the result
// is the loaded operand itself (exact in f16 -> f32), written out through the proven row-major store.
// Then the generated kernel itself (src/kernels/attention-mma.ts) at C 16, N 32, KB 2, CT 1 (two query tiles =
// two workgroups, two key tiles, one key block) on the LCG inputs of bench/probes/attention-mma.ts (seed 777,
// U(-1.7, 1.7), f16-rounded), its debug epilogue (AttentionMmaDebug) writing the workgroup tile s_s (raw scores
// S = Qᵀ K) or p_s (P = exp(scale·S - rowmax)) to the output in place of O, and O itself, each against f64 values
// computed here: rows "kernel <shape> S|P|O [q0=Q const] [emu]" (emu: the same kernel with its matrix operations
// on plain code, the control; without subgroup matrices only those run), each S / P row with its whole output
// (`got`) and its NMSE against S / P shifted or permuted (`alt`, `altBest`); rows "kernel <shape> S raw ..."
// (s_s after a sentinel fill: where the S store wrote) and the kernel under layout changes (flag4: the 4-byte
// flag_s of before 2026-12-04, ST=, col-major S store); the plain rows are the shipped 16-byte-flag layout. How to read them: README of bench/results/h200/attn-mma-review-2026-12-03/, last two sections.
// Build: npx vite build --config bench/probes/vite.attention-mma.config.ts (-> .h200/probe/attention-mma-ops.js)
// Run where `webgpu` resolves with subgroup matrices: node .h200/probe/attention-mma-ops.js [--flags FLAG]... [--out FILE.jsonl]
import { appendFileSync } from 'node:fs';
import { installNodeWebGPU } from '../../src/node/install-webgpu';
import { requestDecoderDevice } from '../../src/gpu/device';
import { fromHalf, storageBytes, toHalf } from '../../src/runtime/f16';
import { encodeParams, PipelineCache } from '../../src/gpu/kernel';
import { attentionCore } from '../../src/cpu/ops';
import { attentionMma, type AttentionMmaDebug, type AttentionMmaShape } from '../../src/kernels/attention-mma';

const argv = process.argv.slice(2);
const outFile = argv[argv.indexOf('--out') + 1] && argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : undefined;
await installNodeWebGPU(argv.flatMap((a, i) => (argv[i - 1] === '--flags' ? [a] : [])));
const { device, mma, f16 } = await requestDecoderDevice({ powerPreference: 'high-performance' });
if (!mma) console.log('no subgroup matrices on this adapter: no op rows; the kernel rows run emulated only');
const SG = mma?.subgroupSize ?? 32;
function emit(row: Record<string, unknown>) {
  console.log(JSON.stringify(row));
  if (outFile) appendFileSync(outFile, JSON.stringify(row) + '\n');
}
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
for (const op of mma ? ops : []) {
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
  emit(row);
}
await kernelRows();
device.destroy();
process.exit(0);

// ---- the generated kernel at C 16, N 32: S, P (debug epilogue) and O against f64 ----------------------------

async function kernelRows() {
  const C = 16,
    N = 32,
    KB = 2,
    W = 16 * KB,
    scale = 1 / Math.sqrt(C);
  // bench/probes/attention-mma.ts's inputs: LCG seed 777, 1.7·U(-1, 1), rounded to f16
  let seed = 777;
  const rnd = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 31 - 1;
  };
  const qkv = new Float32Array(3 * C * N).map(() => fromHalf(toHalf(1.7 * rnd())));
  const q = (d: number, t: number) => qkv[d * N + t]!,
    k = (d: number, t: number) => qkv[(C + d) * N + t]!,
    v = (c: number, t: number) => qkv[(2 * C + c) * N + t]!;
  /** [query][W keys] scores from the Q tile element qAt(q0, m, d) and the K tile element kAt(k0, d, jj) (f64; keys >= N: 0) */
  const scoresFrom = (qAt: (q0: number, m: number, d: number) => number, kAt: (k0: number, d: number, jj: number) => number) => {
    const s = new Float64Array(N * W);
    for (let t = 0; t < N; t++)
      for (let j = 0; j < Math.min(W, N); j++) {
        let a = 0;
        for (let d = 0; d < C; d++) a += qAt(t - (t % 16), t % 16, d) * kAt(j - (j % 16), d, j % 16);
        s[t * W + j] = a;
      }
    return s;
  };
  /** P = exp(scale·S - max_j scale·S) per query row (the one block's max is the row's) */
  const probsOf = (s: ArrayLike<number>) => {
    const p = new Float64Array(N * W);
    for (let t = 0; t < N; t++) {
      let m = -Infinity;
      for (let j = 0; j < N; j++) m = Math.max(m, s[t * W + j]! * scale);
      for (let j = 0; j < N; j++) p[t * W + j] = Math.exp(s[t * W + j]! * scale - m);
    }
    return p;
  };
  /** O [C][N] = P·Vᵀ / Σ P from a [query][W] P */
  const outOf = (p: ArrayLike<number>) => {
    const o = new Float64Array(C * N);
    for (let t = 0; t < N; t++) {
      let l = 0;
      for (let j = 0; j < N; j++) l += p[t * W + j]!;
      for (let c = 0; c < C; c++) {
        let a = 0;
        for (let j = 0; j < N; j++) a += p[t * W + j]! * v(c, j);
        o[c * N + t] = a / l;
      }
    }
    return o;
  };
  const S = scoresFrom(
    (q0, m, d) => q(d, q0 + m),
    (k0, d, jj) => k(d, k0 + jj),
  );
  const P = probsOf(S);
  const O = attentionCore(qkv, C, N, scale);
  // what S would be under some wrong operand forms (the direct form's loads: Q tile at d·N + q0, K tile at (C + d)·N + k0)
  const alternatives: Record<string, Float64Array> = {
    'Q row-major': scoresFrom(
      (q0, m, d) => qkv[q0 + m * N + d]!,
      (k0, d, jj) => k(d, k0 + jj),
    ),
    'K col-major': scoresFrom(
      (q0, m, d) => q(d, q0 + m),
      (k0, d, jj) => qkv[C * N + k0 + jj * N + d]!,
    ),
    'Q row K col': scoresFrom(
      (q0, m, d) => qkv[q0 + m * N + d]!,
      (k0, d, jj) => qkv[C * N + k0 + jj * N + d]!,
    ),
    'S tiles transposed': Float64Array.from({ length: N * W }, (_, e) => {
      const [t, j] = [Math.floor(e / W), e % W];
      return S[(t - (t % 16) + (j % 16)) * W + (j - (j % 16)) + (t % 16)]!;
    }),
    'Q tile 0 everywhere': Float64Array.from({ length: N * W }, (_, e) => S[(Math.floor(e / W) % 16) * W + (e % W)]!),
    'K tile 0 everywhere': Float64Array.from({ length: N * W }, (_, e) => S[Math.floor(e / W) * W + (e % 16)]!),
  };

  const nmse = (got: ArrayLike<number>, want: ArrayLike<number>, a = 0, b = want.length) => {
    let se = 0,
      sr = 0;
    for (let i = a; i < b; i++) {
      se += (got[i]! - want[i]!) ** 2;
      sr += want[i]! ** 2;
    }
    return se / Math.max(sr, 1e-30);
  };
  const cache = new PipelineCache(device);
  const p = { c: C, n: N, scale };
  const uni = device.createBuffer({ size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const pbytes = encodeParams(attentionMma({ ct: 1, kb: KB }), p);
  device.queue.writeBuffer(uni, 0, pbytes);
  const g1 = device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uni, size: pbytes.byteLength } }] });
  const qkvBuf = device.createBuffer({ size: 3 * C * N * 2, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(qkvBuf, 0, storageBytes(qkv, 'f16'));

  /** the kernel's output (f16, `count` elements, NaN where it wrote nothing), dispatched `wgs` workgroups (default its own) */
  async function runKernel(shape: AttentionMmaShape, emulate: boolean, debug: AttentionMmaDebug | undefined, count: number, wgs?: [number, number, number]) {
    const def = attentionMma(shape, { emulate, debug });
    const ov = { SG };
    const pipe = await cache.get(def, ov, 'f16');
    const out = device.createBuffer({ size: count * 2, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(out, 0, new Uint16Array(count).fill(0x7e00));
    const g0 = device.createBindGroup({
      layout: cache.bindGroupLayout(def),
      entries: [
        { binding: 0, resource: { buffer: qkvBuf } },
        { binding: 1, resource: { buffer: out } },
      ],
    });
    const read = device.createBuffer({ size: count * 2, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = device.createCommandEncoder();
    const ps = enc.beginComputePass();
    ps.setPipeline(pipe);
    ps.setBindGroup(0, g0);
    ps.setBindGroup(1, g1, [0]);
    ps.dispatchWorkgroups(...(wgs ?? def.dispatch(p, ov)));
    ps.end();
    enc.copyBufferToBuffer(out, 0, read, 0, count * 2);
    device.queue.submit([enc.finish()]);
    await read.mapAsync(GPUMapMode.READ);
    const got = Float64Array.from(new Uint16Array(read.getMappedRange().slice(0)), fromHalf);
    read.unmap();
    read.destroy();
    out.destroy();
    return { id: def.id, got };
  }

  // S (or P) re-indexed: the want array read at source index map(t, j) (UNDEF: not compared, ZERO: 0), the
  // shifts and permutations a wrong offset / stride in forming or storing S would give
  const UNDEF = -1,
    ZERO = -2;
  const at = (t: number, j: number) => t * W + j;
  const reindex: Record<string, (t: number, j: number) => number> = {
    'key+1 (row end undefined)': (t, j) => (j + 1 < W ? at(t, j + 1) : UNDEF),
    'key+1 (row end 0)': (t, j) => (j + 1 < W ? at(t, j + 1) : ZERO),
    'key+1 into the next row (flat +1)': (t, j) => (at(t, j) + 1 < N * W ? at(t, j) + 1 : UNDEF),
    'key+2 (row end undefined)': (t, j) => (j + 2 < W ? at(t, j + 2) : UNDEF),
    'key-1 (row start undefined)': (t, j) => (j > 0 ? at(t, j - 1) : UNDEF),
    'key-1 (row start 0)': (t, j) => (j > 0 ? at(t, j - 1) : ZERO),
    'key-1 from the previous row (flat -1)': (t, j) => (at(t, j) > 0 ? at(t, j) - 1 : UNDEF),
    'key+1 within each 16-key tile (tile end undefined)': (t, j) => (j % 16 < 15 ? at(t, j + 1) : UNDEF),
    'key+1 within each 16-key tile (tile end: its key 0)': (t, j) => at(t, j - (j % 16) + ((j + 1) % 16)),
    'key+1 within each 16-key tile (tile end 0)': (t, j) => (j % 16 < 15 ? at(t, j + 1) : ZERO),
    'key-1 within each 16-key tile (tile start: its key 15)': (t, j) => at(t, j - (j % 16) + ((j + 15) % 16)),
    'query+1 (last row undefined)': (t, j) => (t + 1 < N ? at(t + 1, j) : UNDEF),
    'query-1 (first row undefined)': (t, j) => (t > 0 ? at(t - 1, j) : UNDEF),
    'query+1 within each 16-query tile (wrapping)': (t, j) => at(t - (t % 16) + ((t + 1) % 16), j),
    'query-1 within each 16-query tile (wrapping)': (t, j) => at(t - (t % 16) + ((t + 15) % 16), j),
    'query+1 key+1 (undefined past the ends)': (t, j) => (t + 1 < N && j + 1 < W ? at(t + 1, j + 1) : UNDEF),
  };
  const close = (g: number, w: number) => Math.abs(g - w) <= 4e-3 * Math.max(1, Math.abs(w));
  const r3 = (x: number) => Number(x.toPrecision(3));
  const r4 = (x: number) => (Number.isNaN(x) ? null : Math.round(x * 1e4) / 1e4);
  /** NMSE of got against each re-indexed want over rows [a, b) (undefined sources skipped), and the best one's mismatches */
  function reindexed(got: ArrayLike<number>, want: ArrayLike<number>, a: number, b: number) {
    const res: Record<string, number> = {};
    let best = { name: '', nmse: Infinity, bad: [] as string[], badCount: 0, compared: 0 };
    for (const [name, map] of Object.entries(reindex)) {
      let se = 0,
        sr = 0,
        compared = 0;
      const bad: string[] = [];
      let badCount = 0;
      for (let e = a; e < b; e++) {
        const src = map(Math.floor(e / W), e % W);
        if (src === UNDEF) continue;
        const w = src === ZERO ? 0 : want[src]!;
        compared++;
        se += (got[e]! - w) ** 2;
        sr += w ** 2;
        if (!close(got[e]!, w)) {
          badCount++;
          if (bad.length < 12) bad.push(`(${Math.floor(e / W)},${e % W}) ${got[e]!.toPrecision(5)} want ${w.toPrecision(5)}`);
        }
      }
      const v = se / Math.max(sr, 1e-30);
      res[name] = r3(v);
      if (v < best.nmse) best = { name, nmse: r3(v), bad, badCount, compared };
    }
    return { alt: res, best };
  }

  /**
   * A raw dump (debug out 'raw': s_s of each workgroup after the sentinel fill 1000 + e and the S store, at
   * o[q0·ST + e]): where S element (t, j) was found relative to where the store should have put it.
   */
  function rawReport(got: Float64Array, st: number, sOff: number, sCol: boolean) {
    const size = 16 * st;
    const pos = (t: number, j: number) => (sCol ? 256 * (j >> 4) + (j & 15) * 16 + (t % 16) : (t % 16) * st + j) + sOff;
    const isS = new Uint8Array(size);
    for (let t = 0; t < 16; t++) for (let j = 0; j < W; j++) isS[pos(t, j)] = 1;
    // shift d: S(t, j) found at its position + d (same workgroup's s_s)
    const shifts: [number, number][] = [];
    for (let d = -2 * st; d <= 2 * st; d++) {
      let n = 0;
      for (let t = 0; t < N; t++)
        for (let j = 0; j < W; j++) {
          const p = pos(t, j) + d;
          if (p >= 0 && p < size && close(got[(t - (t % 16)) * st + p]!, S[at(t, j)]!)) n++;
        }
      shifts.push([d, n]);
    }
    shifts.sort((x, y) => y[1] - x[1]);
    const d0 = shifts[0]![0];
    const missing: string[] = [];
    let missingCount = 0;
    for (let t = 0; t < N; t++)
      for (let j = 0; j < W; j++) {
        const p = pos(t, j) + d0;
        const g = p >= 0 && p < size ? got[(t - (t % 16)) * st + p]! : NaN;
        if (!close(g, S[at(t, j)]!)) {
          missingCount++;
          if (missing.length < 12) missing.push(`(${t},${j}) at ${p}: ${g.toPrecision(5)} want ${S[at(t, j)]!.toPrecision(5)}`);
        }
      }
    // per workgroup: positions still holding the sentinel, and non-S positions (padding) written
    const byWg = [0, 1].map((w) => {
      const sentinel: number[] = [],
        padWritten: string[] = [];
      let sentinelS = 0,
        padCount = 0;
      for (let e = 0; e < size; e++) {
        const g = got[w * size + e]!;
        if (g === 1000 + e) {
          sentinel.push(e);
          if (isS[e]) sentinelS++;
        } else if (!isS[e]) {
          padCount++;
          if (padWritten.length < 12) padWritten.push(`${e}: ${g.toPrecision(5)}`);
        }
      }
      return { sentinelCount: sentinel.length, sentinelAtSPositions: sentinelS, sentinelAt: sentinel.slice(0, 40), padWrittenCount: padCount, padWritten };
    });
    return {
      ok: d0 === 0 && missingCount === 0,
      shifts: Object.fromEntries(shifts.slice(0, 4).map(([d, n]) => [String(d), n])),
      of: N * W,
      bestShiftMissing: missingCount,
      missing,
      byWg,
    };
  }

  // one group of rows (S, P, O of one kernel form): P compared with the softmax of this group's S, O with P·V of its P
  interface Group {
    gotS?: Float64Array;
    gotP?: Float64Array;
  }
  async function kernelRow(op: string, shape: AttentionMmaShape, emulate: boolean, what: 'S' | 'P' | 'O', debug: AttentionMmaDebug | undefined, grp: Group, q0?: number) {
    const row: Record<string, unknown> = { op };
    try {
      if (!f16) throw new Error('no shader-f16 on this adapter');
      const want = what === 'S' ? S : what === 'P' ? P : O;
      const r = await runKernel(shape, emulate, debug, what === 'O' ? C * N : N * W, q0 === undefined ? undefined : [1, 1, 1]);
      const { got } = r;
      // compared: every element, or the one query tile's rows of a constant q0
      const [a, b] = q0 === undefined ? [0, want.length] : [q0 * W, (q0 + 16) * W];
      let maxAbs = 0;
      for (let i = a; i < b; i++) maxAbs = Math.max(maxAbs, Number.isNaN(got[i]!) ? Infinity : Math.abs(got[i]! - want[i]!));
      const e = nmse(got, want, a, b);
      Object.assign(row, {
        ok: e <= (what === 'O' ? 1e-4 : 1e-5),
        nmse: r3(e),
        snrDb: r3(10 * Math.log10(1 / Math.max(e, 1e-30))),
        maxAbs: r3(maxAbs),
        unwritten: got.slice(a, b).filter((x) => Number.isNaN(x)).length,
      });
      // per query tile (workgroup x = 0 at q0 0, x = 1 at q0 16): [layout [query][key] for S / P, [channel][query] for O]
      if (q0 === undefined)
        row.byTile = [0, 16].map((t0) => {
          if (what !== 'O') return r3(nmse(got, want, t0 * W, (t0 + 16) * W));
          const idx = Array.from({ length: C * 16 }, (_, i) => Math.floor(i / 16) * N + t0 + (i % 16));
          return r3(
            nmse(
              idx.map((i) => got[i]!),
              idx.map((i) => want[i]!),
            ),
          );
        });
      const first = Array.from({ length: 6 }, (_, i) => `e${a + i}: ${got[a + i]!.toPrecision(5)} want ${want[a + i]!.toPrecision(5)}`);
      if (what === 'S') {
        const rx = reindexed(got, S, a, b);
        row.alt = { ...Object.fromEntries(Object.entries(alternatives).map(([n, alt]) => [n, r3(nmse(got, alt, a, b))])), ...rx.alt };
        row.altBest = rx.best;
        if (q0 === undefined) grp.gotS = got;
      }
      // P against exp(scale·S - max) of the S this kernel itself produced (its softmax, whatever S is)
      if (what === 'P') {
        if (grp.gotS) row.vsOwnS = r3(nmse(got, probsOf(grp.gotS)));
        const rx = reindexed(got, P, a, b);
        row.alt = rx.alt;
        row.altBest = rx.best;
        grp.gotP = got;
      }
      // O against P·Vᵀ / Σ P of the P this kernel itself produced (its P·V and epilogue, whatever P is)
      if (what === 'O' && grp.gotP) row.vsOwnP = r3(nmse(got, outOf(grp.gotP)));
      Object.assign(row, { first, id: r.id });
      if (what !== 'O') row.got = Array.from(got, r4);
    } catch (e) {
      row.error = String(e).slice(0, 300);
    }
    emit(row);
  }

  const direct: AttentionMmaShape = { ct: 1, kb: KB }, // Q, K tiles straight from qkv
    staged: AttentionMmaShape = { ct: 1, kb: KB, stage: true }; // S's operands staged through qs_s / ks_s
  const variants: { label: string; shape: AttentionMmaShape }[] = [
    { label: '1p-1x2', shape: direct },
    { label: '1p-1x2-s32', shape: staged },
  ];
  // every tensor-core row first, then the emulated control (a timeout cuts the controls, not the device rows)
  const modes = [...(mma ? [false] : []), true];
  for (const emulate of modes) {
    for (const { label, shape } of variants) {
      const tag = emulate ? ' emu' : '';
      const grp: Group = {};
      await kernelRow(`kernel ${label} S${tag}`, shape, emulate, 'S', { out: 'scores' }, grp);
      await kernelRow(`kernel ${label} P${tag}`, shape, emulate, 'P', { out: 'probs' }, grp);
      await kernelRow(`kernel ${label} O${tag}`, shape, emulate, 'O', undefined, grp);
      // the Q tile offset a constant (one workgroup, that query tile)
      if (label === '1p-1x2') for (const q0 of [0, 16]) await kernelRow(`kernel ${label} S q0=${q0} const${tag}`, shape, emulate, 'S', { out: 'scores', q0 }, {}, q0);
    }

    // where the S store writes: s_s filled with a sentinel, S stored (at an extra offset / col-major / another
    // row stride / with the old 4-byte flag_s), all of s_s dumped
    const raws: { name: string; shape: AttentionMmaShape; debug: AttentionMmaDebug }[] = [
      { name: '1p-1x2 S raw', shape: direct, debug: { out: 'raw' } },
      ...[1, 2, 3, 4].map((sOff) => ({ name: `1p-1x2 S raw store+${sOff}`, shape: direct, debug: { out: 'raw' as const, sOff } })),
      { name: '1p-1x2-s32 S raw', shape: staged, debug: { out: 'raw' } },
      { name: '1p-1x2 S raw col-major store', shape: direct, debug: { out: 'raw', sCol: true } },
      { name: '1p-1x2 S raw ST=32', shape: direct, debug: { out: 'raw', st: 32 } },
      { name: '1p-1x2 S raw ST=40', shape: direct, debug: { out: 'raw', st: 40 } },
      { name: '1p-1x2 S raw flag4', shape: direct, debug: { out: 'raw', flag4: true } },
    ];
    for (const { name, shape, debug } of raws) {
      const row: Record<string, unknown> = { op: `kernel ${name}${emulate ? ' emu' : ''}` };
      try {
        if (!f16) throw new Error('no shader-f16 on this adapter');
        const st = debug.st ?? W + 4;
        const r = await runKernel(shape, emulate, debug, N * st);
        Object.assign(row, rawReport(r.got, st, debug.sOff ?? 0, debug.sCol ?? false), { id: r.id, st, got: Array.from(r.got, r4) });
      } catch (e) {
        row.error = String(e).slice(0, 300);
      }
      emit(row);
    }

    // the whole kernel under the layout changes (S, P, O against f64 as above): flag4 reproduces the H200's shifted S
    const layouts: { name: string; shape: AttentionMmaShape; debug: AttentionMmaDebug; only?: 'S' }[] = [
      { name: '1p-1x2 flag4', shape: direct, debug: { flag4: true } },
      { name: '1p-1x2-s32 flag4', shape: staged, debug: { flag4: true } },
      { name: '1p-1x2 ST=32', shape: direct, debug: { st: 32 } },
      { name: '1p-1x2 ST=40', shape: direct, debug: { st: 40 } },
      { name: '1p-1x2 col-major S store', shape: direct, debug: { sCol: true }, only: 'S' },
    ];
    for (const { name, shape, debug, only } of layouts) {
      const tag = emulate ? ' emu' : '';
      const grp: Group = {};
      await kernelRow(`kernel ${name} S${tag}`, shape, emulate, 'S', { ...debug, out: 'scores' }, grp);
      if (only) continue;
      await kernelRow(`kernel ${name} P${tag}`, shape, emulate, 'P', { ...debug, out: 'probs' }, grp);
      await kernelRow(`kernel ${name} O${tag}`, shape, emulate, 'O', debug, grp);
    }
  }
  uni.destroy();
  qkvBuf.destroy();
}
