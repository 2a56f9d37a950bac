// conv3d-mma-flat-emu: what the straight-line tensor-core GEMM (src/kernels/conv3d-mma-flat.ts, the one
// the decoder ships) needs to run without subgroup matrices: its generated `main` calls these in place
// of the five matrix operations, and everything else (tile walk, the TM x TN named operands and
// accumulators, loop order, a_off / b_off offsets, c_s slots, epilogue) is the shipped code. CI runs it
// on lavapipe / SwiftShader against the CPU reference, so an indexing bug in the shipped GEMM fails there;
// only the three builtins themselves are not covered (the H200 rows check those). Slow.
//   left matrix   the element offset of its 16x16 tile in wt (row-major, stride 16: (m, k) at off + m * 16 + k)
//   right matrix  the element offset of its 16x16 tile in s, or in ring for RING=1's frames t-2, t-1 (column-major,
//                 stride 16: (k, col) at off + col * 16 + k)
//   result        EMU_Q values of its 16x16 tile per invocation: element e = lid + q * SG (row e / 16,
//                 column e % 16), so SG must divide 256 with 256 / SG <= EMU_Q (SG 32 and up; the def checks)
alias Elem = f32;

const EMU_Q: u32 = 8;

// c + a * b for one tile: 16 products per element, summed in k order as one matrix product would be
fn emu_mma(a: u32, b: u32, c: array<f32, EMU_Q>, lid: u32) -> array<f32, EMU_Q> {
  var r = c;
  // bounds the compiler cannot see (cin is never 0xffffffff): keeps lavapipe from unrolling 128 products
  // at every inlined call (the straight-line code calls this TM * TN times per tap: minutes of LLVM)
  let nq = select(256u / SG, 0u, prm.cin == 0xffffffffu);
  let nk = select(16u, 0u, prm.cin == 0xffffffffu);
  for (var q = 0u; q < nq; q++) {
    let e = lid + q * SG;
    for (var k = 0u; k < nk; k++) { r[q] += f32(wt[a + (e / 16u) * 16u + k]) * f32(s[b + (e % 16u) * 16u + k]); }
  }
  return r;
}

// emu_mma with the right matrix from the packed ring (RING=1: frames t-2, t-1)
fn emu_mma_ring(a: u32, b: u32, c: array<f32, EMU_Q>, lid: u32) -> array<f32, EMU_Q> {
  var r = c;
  let nq = select(256u / SG, 0u, prm.cin == 0xffffffffu);
  let nk = select(16u, 0u, prm.cin == 0xffffffffu);
  for (var q = 0u; q < nq; q++) {
    let e = lid + q * SG;
    for (var k = 0u; k < nk; k++) { r[q] += f32(wt[a + (e / 16u) * 16u + k]) * f32(ring[b + (e % 16u) * 16u + k]); }
  }
  return r;
}

// the tile into c_s at element offset off, row-major (stride 16), as the row-major matrix store
fn emu_store(off: u32, c: array<f32, EMU_Q>, lid: u32) {
  for (var q = 0u; q < 256u / SG; q++) { c_s[off + lid + q * SG] = c[q]; }
}
