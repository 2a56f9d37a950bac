// attention-mma-emu: what the tensor-core attention (src/kernels/attention-mma.ts) needs to run without
// subgroup matrices: its generated `main` calls these in place of the matrix operations, and everything else
// (tile walk, the named tiles, loop order, offsets, softmax, rescaling, epilogue: attention-mma-common.wgsl)
// is the shipped code. CI runs it on lavapipe / SwiftShader against the CPU reference; only the matrix
// builtins themselves are not covered (the H200 rows check those). Slow.
//   Q tile (left)   its element offset in qkv, col-major, stride N (16: packed): (m, d) at off + d * N + m
//   K tile (right)  its offset in qkv, row-major, stride N (16: packed): (d, j) at off + d * N + j
//   staged Q tile (left)  its offset in qs_s, row-major, stride QS: (m, d) at off + m * QS + d
//   staged K tile (right) its offset in ks_s, col-major, stride QS: (d, j) at off + j * QS + d
//   P tile (left)   its offset in p_s, row-major, stride PT: (m, k) at off + m * PT + k
//   Vᵀ tile (right) its offset in qkv, col-major, stride N (16: packed): (k, c) at off + c * N + k
//   result          EMU_Q values of its 16x16 tile per invocation: element e = lid + q * SG (row e / 16,
//                   column e % 16), so SG divides 256 with 256 / SG <= EMU_Q (SG 32 and up; the def checks)
alias Elem = f32;

const EMU_Q: u32 = 8;
// 1: qkv is the tile-order copy (attention-pack): the Q, K and Vᵀ tiles at stride 16 instead of N
const EMU_PACKED: u32 = 0;
fn emu_stride() -> u32 { return select(prm.n, 16u, EMU_PACKED == 1u); }

// bounds the compiler cannot see (c is never 0xffffffff): keeps lavapipe's LLVM from unrolling the 128
// products of every inlined call (the generated main calls these KB + CT times per block)
fn emu_nq() -> u32 { return select(256u / SG, 0u, prm.c == 0xffffffffu); }
fn emu_nk() -> u32 { return select(16u, 0u, prm.c == 0xffffffffu); }

// c + Q·K for one tile: 16 products per element, in k order
fn emu_qk(a: u32, b: u32, c: array<f32, EMU_Q>, lid: u32) -> array<f32, EMU_Q> {
  var r = c;
  let n = emu_stride();
  for (var q = 0u; q < emu_nq(); q++) {
    let e = lid + q * SG;
    for (var k = 0u; k < emu_nk(); k++) { r[q] += f32(qkv[a + k * n + e / 16u]) * f32(qkv[b + k * n + e % 16u]); }
  }
  return r;
}

// c + Q·K for one tile of the staged chunk
fn emu_qks(a: u32, b: u32, c: array<f32, EMU_Q>, lid: u32) -> array<f32, EMU_Q> {
  var r = c;
  for (var q = 0u; q < emu_nq(); q++) {
    let e = lid + q * SG;
    for (var k = 0u; k < emu_nk(); k++) { r[q] += f32(qs_s[a + (e / 16u) * QS + k]) * f32(ks_s[b + (e % 16u) * QS + k]); }
  }
  return r;
}

// c + P·Vᵀ for one tile
fn emu_pv(a: u32, b: u32, c: array<f32, EMU_Q>, lid: u32) -> array<f32, EMU_Q> {
  var r = c;
  let n = emu_stride();
  for (var q = 0u; q < emu_nq(); q++) {
    let e = lid + q * SG;
    for (var k = 0u; k < emu_nk(); k++) { r[q] += f32(p_s[a + (e / 16u) * PT + k]) * f32(qkv[b + (e % 16u) * n + k]); }
  }
  return r;
}

// a score tile into s_s at off, row-major, stride ST
fn emu_store_s(off: u32, c: array<f32, EMU_Q>, lid: u32) {
  for (var q = 0u; q < 256u / SG; q++) {
    let e = lid + q * SG;
    s_s[off + (e / 16u) * ST + e % 16u] = c[q];
  }
}

// element e (row e / 16, column e % 16) of an O tile in o_s: col-major, or row-major where O_ROW (stride 16)
fn emu_o_at(off: u32, e: u32) -> u32 { return off + select((e % 16u) * 16u + e / 16u, e, O_ROW == 1u); }

// an O tile into o_s at off
fn emu_store_o(off: u32, c: array<f32, EMU_Q>, lid: u32) {
  for (var q = 0u; q < 256u / SG; q++) { o_s[emu_o_at(off, lid + q * SG)] = c[q]; }
}

// an O tile from o_s at off
fn emu_load_o(off: u32, lid: u32) -> array<f32, EMU_Q> {
  var r: array<f32, EMU_Q>;
  for (var q = 0u; q < 256u / SG; q++) { r[q] = o_s[emu_o_at(off, lid + q * SG)]; }
  return r;
}
