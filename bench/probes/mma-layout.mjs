// Probe (issue 11): which operand layout and which form of the loop bounds let the conv3d-mma GEMM reach
// the tensor cores' speed at the four ANCHORS layer shapes (3x3x3 step, 3 frames -> 1, cin = cout = C),
// with the production epilogue (results through workgroup memory, + bias, f16 store, bounds).
//   x3: the operand as three x-shifted tile-blocked copies per frame, S[f][dx][cb][row][xb][16 cin][16 px],
//       right tiles loaded row_major (today's shaders/conv3d-mma-pack.wgsl layout: 9 copies per conv call)
//   cl: ONE copy per frame, channels innermost, S[f][cb][row][xp][16 cin] (xp = padded x): the right tile
//       of tap dx at block xb is the 256 contiguous elements at (xb*16 + dx)*16, loaded col_major: the
//       x shift is an offset, so the copy is 3x smaller and needs no dx copies.
// Bounds: 'override' (channel blocks, rows, widths as pipeline-overridable constants: what a per-shape
// pipeline gives the compiler) or 'uniform' (from a uniform buffer, as today's shader reads them).
// Epilogue: 'full' (bias, f16 store with bounds, production) or 'none' (only c_s, one value written).
// Inputs are exact small multiples of 1/64 and 1/128 (f16-exact products and sums), so a few outputs are
// checked against a CPU sum over all 27*C terms: a wrong layout or offset fails the check (printed).
// Run on the GPU machine after `source .gpu-bundle/boot.sh`: node bench/probes/mma-layout.mjs [OUT.jsonl]
import { appendFileSync } from 'node:fs';
import { create, globals } from 'webgpu';
Object.assign(globalThis, globals);
const gpu = create(['enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const L = adapter.limits;
const device = await adapter.requestDevice({
  requiredFeatures: ['shader-f16', 'chromium-experimental-subgroup-matrix'],
  requiredLimits: { maxStorageBufferBindingSize: L.maxStorageBufferBindingSize, maxBufferSize: L.maxBufferSize },
});
device.addEventListener?.('uncapturederror', (e) => console.log('GPU error:', e.error?.message?.slice(0, 300)));
const outFile = process.argv[2];

const vIn = (f, c, y, x) => (((f * 7 + c * 13 + y * 3 + x * 5) % 17) - 8) / 64;
const vW = (tap, o, c) => (((tap * 11 + o * 5 + c * 3) % 13) - 6) / 128;
const vB = (o) => ((o % 7) - 3) / 8;
// f32 -> f16 bits for the exact small values used here
function h(v) {
  const b = new Float32Array([v]),
    u = new Uint32Array(b.buffer)[0];
  const s = (u >>> 16) & 0x8000,
    e = ((u >>> 23) & 0xff) - 127 + 15,
    m = (u >>> 13) & 0x3ff;
  if (v === 0) return s;
  return s | (e << 10) | m;
}
const H16 = new Map();
const hh = (v) => {
  let r = H16.get(v);
  if (r === undefined) {
    r = h(v);
    H16.set(v, r);
  }
  return r;
};

function shader(layout, bounds, epi, TM, TN) {
  const d = (n) => (bounds === 'uniform' ? `prm.${n}` : n.toUpperCase());
  const decl =
    bounds === 'uniform'
      ? `struct P { cb: u32, xb: u32, rows: u32, ob: u32, tiles: u32, h: u32, w: u32, wp: u32 }\n@group(0) @binding(4) var<uniform> prm: P;`
      : `override CB: u32; override XB: u32; override ROWS: u32; override OB: u32; override TILES: u32; override H: u32; override W: u32; override WP: u32;`;
  const rightOff =
    layout === 'x3'
      ? `(((f * 3u + dx) * ${d('cb')} + cb) * ${d('rows')} + yy + dy) * ${d('xb')} * 256u + xbb * 256u`
      : `(((f * ${d('cb')} + cb) * ${d('rows')} + yy + dy) * ${d('wp')} + xbb * 16u + dx) * 16u`;
  const major = layout === 'x3' ? 'row_major' : 'col_major';
  return `enable f16;
enable chromium_experimental_subgroup_matrix;
@group(0) @binding(0) var<storage, read> S: array<f16>;
@group(0) @binding(1) var<storage, read> Wt: array<f16>;
@group(0) @binding(2) var<storage, read> B: array<f16>;
@group(0) @binding(3) var<storage, read_write> Y: array<f16>;
${decl}
const TM: u32 = ${TM}u;
const TN: u32 = ${TN}u;
var<workgroup> c_s: array<f32, ${TM * TN * 256}>;
@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let n0 = wg.x * TN;
  let ob0 = wg.y * TM;
  var acc: array<array<subgroup_matrix_result<f32, 16, 16>, TN>, TM>;
  for (var f = 0u; f < 3u; f++) {
    for (var dy = 0u; dy < 3u; dy++) {
      for (var dx = 0u; dx < 3u; dx++) {
        let tap = (f * 3u + dy) * 3u + dx;
        var bo: array<u32, TN>;
        for (var j = 0u; j < TN; j++) {
          let n = min(n0 + j, ${d('tiles')} - 1u);
          let yy = n / ${d('xb')};
          let xbb = n % ${d('xb')};
          let cb = 0u;
          bo[j] = ${rightOff};
        }
        let bs = ${layout === 'x3' ? `${d('rows')} * ${d('xb')} * 256u` : `${d('rows')} * ${d('wp')} * 16u`};
        for (var cb = 0u; cb < ${d('cb')}; cb++) {
          var a: array<subgroup_matrix_left<f16, 16, 16>, TM>;
          var r: array<subgroup_matrix_right<f16, 16, 16>, TN>;
          for (var i = 0u; i < TM; i++) { a[i] = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&Wt, ((tap * ${d('ob')} + ob0 + i) * ${d('cb')} + cb) * 256u, 16u); }
          for (var j = 0u; j < TN; j++) { r[j] = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, ${major}>(&S, bo[j] + cb * bs, 16u); }
          for (var i = 0u; i < TM; i++) { for (var j = 0u; j < TN; j++) { acc[i][j] = subgroupMatrixMultiplyAccumulate(a[i], r[j], acc[i][j]); } }
        }
      }
    }
  }
  for (var i = 0u; i < TM; i++) { for (var j = 0u; j < TN; j++) { subgroupMatrixStore<row_major>(&c_s, (i * TN + j) * 256u, acc[i][j], 16u); } }
  workgroupBarrier();
  let hw = ${d('h')} * ${d('w')};
${
  epi === 'full'
    ? `  for (var e = lid; e < TM * TN * 256u; e += 32u) {
    let t = e / 256u;
    let n = n0 + t % TN;
    let o = (ob0 + t / TN) * 16u + (e % 256u) / 16u;
    let px = (n % ${d('xb')}) * 16u + e % 16u;
    if (n < ${d('tiles')} && px < ${d('w')}) {
      Y[o * hw + (n / ${d('xb')}) * ${d('w')} + px] = f16(c_s[e] + f32(B[o]));
    }
  }`
    : `  if (lid == 0u && n0 < ${d('tiles')}) { Y[ob0 * 16u * hw + n0] = f16(c_s[0] + f32(B[0])); }`
}
}`;
}

async function shape(C, H, W) {
  const CB = C / 16,
    OB = C / 16,
    XB = Math.ceil(W / 16),
    ROWS = H + 2,
    WP = XB * 16 + 2,
    TILES = H * XB;
  const mk = (bytes, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC) => device.createBuffer({ size: Math.ceil(bytes / 4) * 4, usage });
  const put = (buf, u16) => {
    for (let off = 0; off < u16.length; off += 1 << 24) device.queue.writeBuffer(buf, off * 2, u16, off, Math.min(1 << 24, u16.length - off));
  };
  const wt = new Uint16Array(27 * OB * CB * 256);
  for (let tap = 0; tap < 27; tap++) for (let o = 0; o < C; o++) for (let c = 0; c < C; c++) wt[((tap * OB + (o >> 4)) * CB + (c >> 4)) * 256 + (o & 15) * 16 + (c & 15)] = hh(vW(tap, o, c));
  const bias = new Uint16Array(C);
  for (let o = 0; o < C; o++) bias[o] = hh(vB(o));
  const Wb = mk(wt.length * 2),
    Bb = mk(C * 2),
    Yb = mk(C * H * W * 2);
  put(Wb, wt);
  put(Bb, bias);
  const U = mk(32, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  device.queue.writeBuffer(U, 0, new Uint32Array([CB, XB, ROWS, OB, TILES, H, W, WP]));
  const consts = { CB, XB, ROWS, OB, TILES, H, W, WP };
  const inAt = (f, c, r, x) => (r < 1 || r > H || x < 0 || x >= W ? 0 : hh(vIn(f, c, r - 1, x)));
  const points = [
    [0, 0, 0],
    [C - 1, H - 1, W - 1],
    [17 % C, Math.floor(H / 2), 33 % W],
    [C >> 1, 1, W - 2],
  ];
  const want = points.map(([o, y, x]) => {
    let s = vB(o);
    for (let f = 0; f < 3; f++)
      for (let dy = 0; dy < 3; dy++)
        for (let dx = 0; dx < 3; dx++)
          for (let c = 0; c < C; c++) {
            const yy = y + dy - 1,
              xx = x + dx - 1;
            if (yy >= 0 && yy < H && xx >= 0 && xx < W) s += vW((f * 3 + dy) * 3 + dx, o, c) * vIn(f, c, yy, xx);
          }
    return s;
  });
  const rb = device.createBuffer({ size: 8, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  for (const layout of ['x3', 'cl']) {
    let s;
    if (layout === 'x3') {
      s = new Uint16Array(3 * 3 * CB * ROWS * XB * 256);
      let i = 0;
      for (let f = 0; f < 3; f++)
        for (let dx = 0; dx < 3; dx++)
          for (let cb = 0; cb < CB; cb++)
            for (let r = 0; r < ROWS; r++) for (let xb = 0; xb < XB; xb++) for (let c = 0; c < 16; c++) for (let px = 0; px < 16; px++) s[i++] = inAt(f, cb * 16 + c, r, xb * 16 + px + dx - 1);
    } else {
      s = new Uint16Array(3 * CB * ROWS * WP * 16);
      let i = 0;
      for (let f = 0; f < 3; f++) for (let cb = 0; cb < CB; cb++) for (let r = 0; r < ROWS; r++) for (let xp = 0; xp < WP; xp++) for (let c = 0; c < 16; c++) s[i++] = inAt(f, cb * 16 + c, r, xp - 1);
    }
    const Sb = mk(s.length * 2);
    put(Sb, s);
    s = null;
    for (const [bounds, epi, TM, TN] of [
      ['override', 'full', 2, 2],
      ['override', 'full', 3, 2],
      ['override', 'full', 2, 4],
      ['override', 'full', 4, 2],
      ['uniform', 'full', 2, 2],
      ['uniform', 'full', 3, 2],
      ['override', 'none', 2, 2],
      ['override', 'none', 3, 2],
    ]) {
      if (OB % TM) continue;
      const label = `C${C} ${H}x${W} ${layout} ${bounds} epi-${epi} ${TM}x${TN}`;
      device.pushErrorScope('validation');
      let pipe;
      try {
        pipe = await device.createComputePipelineAsync({
          layout: 'auto',
          compute: { module: device.createShaderModule({ code: shader(layout, bounds, epi, TM, TN) }), entryPoint: 'main', constants: bounds === 'override' ? consts : {} },
        });
      } catch (e) {
        console.log(`${label}: pipeline failed ${String(e).slice(0, 300)}`);
        await device.popErrorScope();
        continue;
      }
      const err = await device.popErrorScope();
      if (err) {
        console.log(`${label}: validation ${err.message.slice(0, 300)}`);
        continue;
      }
      const entries = [Sb, Wb, Bb, Yb].map((b, i) => ({ binding: i, resource: { buffer: b } }));
      if (bounds === 'uniform') entries.push({ binding: 4, resource: { buffer: U } });
      const bg = device.createBindGroup({ layout: pipe.getBindGroupLayout(0), entries });
      const go = async (reps) => {
        const e = device.createCommandEncoder();
        const p = e.beginComputePass();
        p.setPipeline(pipe);
        p.setBindGroup(0, bg);
        for (let k = 0; k < reps; k++) p.dispatchWorkgroups(Math.ceil(TILES / TN), OB / TM);
        p.end();
        device.queue.submit([e.finish()]);
        await device.queue.onSubmittedWorkDone();
      };
      await go(3);
      let check = 'not checked (epilogue none)';
      if (epi === 'full') {
        let worst = 0;
        for (let k = 0; k < points.length; k++) {
          const [o, y, x] = points[k];
          const e2 = device.createCommandEncoder();
          e2.copyBufferToBuffer(Yb, (((o * H + y) * W + x) * 2) & ~3, rb, 0, 4);
          device.queue.submit([e2.finish()]);
          await rb.mapAsync(GPUMapMode.READ);
          const u = new Uint16Array(rb.getMappedRange().slice(0));
          rb.unmap();
          const bits = u[((o * H + y) * W + x) & 1];
          const sgn = bits & 0x8000 ? -1 : 1,
            ex = (bits >> 10) & 31,
            m = bits & 1023;
          const got = ex === 0 ? sgn * m * 2 ** -24 : sgn * (1 + m / 1024) * 2 ** (ex - 15);
          worst = Math.max(worst, Math.abs(got - want[k]) / Math.max(1, Math.abs(want[k])));
        }
        check = worst < 2e-3 ? `ok (max rel err ${worst.toExponential(1)})` : `WRONG (max rel err ${worst.toExponential(2)})`;
      }
      const reps = 20,
        t0 = performance.now();
      await go(reps);
      const dt = (performance.now() - t0) / 1000 / reps;
      const tf = (2 * C * C * 27 * H * W) / dt / 1e12;
      const line = `${label}: ${(dt * 1e3).toFixed(3)} ms, ${tf.toFixed(1)} TFLOP/s, check ${check}`;
      console.log(line);
      if (outFile) appendFileSync(outFile, JSON.stringify({ C, H, W, layout, bounds, epi, TM, TN, ms: dt * 1e3, tflops: tf, check }) + '\n');
    }
    Sb.destroy();
  }
  Wb.destroy();
  Bb.destroy();
  Yb.destroy();
  U.destroy();
}

const only = process.env.SHAPES
  ? process.env.SHAPES.split(',').map((s) => s.split('x').map(Number))
  : [
      [96, 480, 832],
      [192, 240, 416],
      [384, 120, 208],
      [384, 60, 104],
    ];
for (const [C, H, W] of only) await shape(C, H, W);
process.exit(0);
