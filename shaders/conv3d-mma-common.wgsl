// conv3d-mma-common: what shaders/conv3d-mma.wgsl (tensor cores) and shaders/conv3d-mma-emu.wgsl (the
// same kernel with scalar products, for adapters without subgroup matrices: the CPU-reference test of the
// layouts) share, appended to each by its KernelDef: the Params (those of conv3d), the bindings, the
// tile-blocked operand addressing and the epilogue. Elem is the including shader's `alias Elem = f32;`
// (f16 in use: the matrix operands are f16).
//
// Operands, both written once per conv call or per upload, each 16x16 tile contiguous (stride 16):
//   weights  wt[tap][ob][cb][16 cout][16 cin]   (src/kernels/conv3d-mma.ts packConvWeightBlocked;
//            cout and cin padded to multiples of 16 with zeros)
//   operand  s[dt][cb][row][xp][16 cin]   (shaders/conv3d-mma-pack.wgsl): one copy per temporal tap dt,
//            channels innermost, row r / padded column xp = output-space (r - pad, xp - pad) with zero
//            rows/columns for the padding (xp < xb*16 + KS - 1). The right matrix (16 cin x 16 px) of tap
//            (dt, dy, dx) at output row y and pixel block xb is the 256 contiguous elements from column
//            xb*16 + dx of row y + dy, read column-major (stride 16): the horizontal taps are offsets of
//            16 elements, so the copy is one per frame, not one per (frame, dx). On the H200 this GEMM
//            ran at 91 / 75 / 79 / 49 TFLOP/s (2x2: 91 / 57 / 79 / 49) at the four ANCHORS shapes against
//            77 / 77 / 84 / 63 with three x-shifted row-major copies, whose pack wrote 3x the bytes
//            (bench/probes/mma-layout.mjs, bench/results/h200/mma-2026-12-01-e96e7c0/).
// GEMM: M = cout, N = pixels, K = cin per tap. One workgroup = one subgroup (matrix load/store offsets
// must be workgroup-uniform on Dawn), TM x TN result tiles: TM blocks of 16 output channels, TN
// consecutive 16-pixel blocks of the linear (row, xb) order (a group may span two rows). Past the last
// block a group repeats it (uniform clamp) and does not store it. TM / TN are constants: other shapes
// are the same source with these two lines replaced (src/kernels/conv3d-mma.ts conv3dMmaTiles).

// Params: shaders/conv3d-mma-params.wgsl (the conv call's, shared with its pack: one uniform slot)

@group(0) @binding(0) var<storage, read> s: array<Elem>;
@group(0) @binding(1) var<storage, read> wt: array<Elem>;
@group(0) @binding(2) var<storage, read> b: array<Elem>;
@group(0) @binding(3) var<storage, read> res: array<Elem>;
@group(0) @binding(4) var<storage, read_write> y: array<Elem>;
// prm.ring = 1: the conv's cache ring of two packed frames (t-2, t-1) in the layout of s; else unused
@group(0) @binding(5) var<storage, read> ring: array<Elem>;

override KS: u32 = 3; // a constant: the 3 x 3 spatial taps are unrolled straight-line code
override SG: u32 = 32; // workgroup size = the subgroup size (one subgroup per workgroup)
// operand copy order: 0 s[dt][cb][row][xp][16] (channel-block planes), 1 s[dt][row][cb][xp][16] (the
// channel blocks of a row side by side: one conv's 9 spatial taps x all channel blocks of a frame read a
// 3-row window instead of cb planes a whole frame apart). Must equal conv3d-mma-pack's ROWS_OUTER.
override ROWS_OUTER: u32 = 0;
// KT (temporal taps) and RING (1: the conv's cache ring of two packed frames (t-2, t-1) in the layout of s,
// frames t-2 and t-1 read from `ring` at prev2_off / prev1_off (elements), frame t from s at 0; conv3d-mma-pack
// ring = 1, src/plan/conv-form.ts packedRing) are constants: as uniforms (79fde42) the straight-line GEMM
// keeps both of its temporal loops (ring and s) with run-time bounds, and that build's tensor-core decodes
// were 3-7 % slower on the H200 (release-2026-12-02-8fa000e). prm.has_res (0 none, 1 from res, 2 from y in
// place) stays a uniform: an epilogue branch.
override KT: u32 = 3;
override RING: u32 = 0;

// 3 x 2 with the column-major operand (H200, bench/results/h200/mma-2026-12-01-e96e7c0/mma-layout.jsonl, uniform
// bounds): 91 / 75 / 75 / 49 TFLOP/s at the four ANCHORS shapes, 2 x 2: 91 / 57 / 79 / 49
const TM: u32 = 3; // result tiles along cout (16 channels each)
const TN: u32 = 2; // result tiles along pixels (16 pixels each)

// 1: the GEMM computes one output phase (py, px) = (ph / 2, ph % 2) of a nearest-2x-upsampled 3x3 conv
// from the low-resolution operand (src/kernels/conv3d-mma-flat.ts, plan/conv-form.ts upPhases): Params h, w are
// the low-resolution input's, the output frame is 2h x 2w, and result pixel (r, x) of phase ph is output pixel
// (2r + py, 2x + px). Replaced like TM / TN in the generated GEMM of that form.
const PH: u32 = 0;

var<workgroup> c_s: array<f32, TM * TN * 256u>; // TM * TN results of 16 x 16, row-major [cout][px]

struct Geo { cb: u32, xb: u32, rows: u32, ob: u32, tiles: u32, cin: u32, cout: u32, h: u32, w: u32 }

fn geo() -> Geo {
  // bounds from Params, not pipeline constants: constant bounds (one pipeline per conv shape) made the
  // 2x2 GEMM 3.5x slower at three of the four ANCHORS shapes on the H200 (the compiler unrolls the
  // channel-block loop: 22 vs 77 TFLOP/s; bench/results/h200/mma-2026-12-01-e96e7c0/mma-layout.jsonl)
  let cin = prm.cin;
  let cout = prm.cout;
  let h = prm.h;
  let w = prm.w;
  let cb = (cin + 15u) / 16u;
  let xb = (w + 15u) / 16u;
  return Geo(cb, xb, h + KS - 1u, (cout + 15u) / 16u, h * xb, cin, cout, h, w);
}

// Element offset of weight tile (tap, ob, cb 0); the next channel blocks follow at + 256 each.
fn a_off(g: Geo, tap: u32, ob: u32) -> u32 {
  return (tap * g.ob + min(ob, g.ob - 1u)) * g.cb * 256u;
}

// Padded columns of one operand row.
fn wp(g: Geo) -> u32 {
  return g.xb * 16u + KS - 1u;
}

// Element offset of temporal tap dt's operand frame, channel block 0: frame dt of s, or (RING = 1)
// frames t-2 / t-1 (dt < KT - 1) at prev2_off / prev1_off of ring and frame t at 0 of s.
fn frame_off(g: Geo, dt: u32) -> u32 {
  let ringed = select(0u, select(prm.prev1_off, prm.prev2_off, dt == 0u), dt + 1u < KT);
  return select(dt * g.cb * g.rows * wp(g) * 16u, ringed, RING == 1u);
}

// Element offset of the operand tile (column-major, stride 16) of pixel block n (linear over rows x xb)
// for taps (dt, dy, dx), channel block 0; the next channel blocks follow at + b_cb_stride(g) each.
fn b_off(g: Geo, dt: u32, dy: u32, dx: u32, n: u32) -> u32 {
  let yy = n / g.xb;
  let xb = n % g.xb;
  if (ROWS_OUTER == 1u) { return frame_off(g, dt) + ((yy + dy) * g.cb * wp(g) + xb * 16u + dx) * 16u; }
  return frame_off(g, dt) + ((yy + dy) * wp(g) + xb * 16u + dx) * 16u;
}

fn b_cb_stride(g: Geo) -> u32 {
  if (ROWS_OUTER == 1u) { return wp(g) * 16u; }
  return g.rows * wp(g) * 16u;
}

// Bias, residual and bounds for the TM x TN results in c_s (after a barrier); all SG invocations. ph: the
// output phase of a PH = 1 GEMM (else 0).
fn epilogue(g: Geo, ob0: u32, n0: u32, ph: u32, lid: u32) {
  let ow = select(g.w, 2u * g.w, PH == 1u); // output row length
  let hw = select(1u, 4u, PH == 1u) * g.h * g.w;
  for (var e = lid; e < TM * TN * 256u; e += SG) {
    let t = e / 256u;
    let i = t / TN;
    let j = t % TN;
    let n = n0 + j;
    let o = (ob0 + i) * 16u + (e % 256u) / 16u;
    let px = (n % g.xb) * 16u + e % 16u;
    if (n < g.tiles && o < g.cout && px < g.w) {
      let r = n / g.xb;
      let p = select(r * ow + px, (2u * r + ph / 2u) * ow + 2u * px + ph % 2u, PH == 1u);
      var v = c_s[e] + f32(b[o]);
      if (prm.has_res == 1u) { v += f32(res[prm.res_off + o * hw + p]); }
      if (prm.has_res == 2u) { v += f32(y[prm.y_off + o * hw + p]); }
      y[prm.y_off + o * hw + p] = Elem(v);
    }
  }
}
