// conv3d-mma: one output frame of conv3d (causal 3x3x3, 3x1x1 time conv, 1x1, the upsample Conv2d) on
// tensor cores through WGSL subgroup matrices (Chromium / Dawn experimental feature
// `chromium-experimental-subgroup-matrix`, 16x16x16 f16 products accumulated in f32), reading both
// operands straight from storage in the layouts of shaders/conv3d-mma-common.wgsl (blocked weights, the
// channels-innermost operand read column-major): no
// workgroup-memory staging, every matrix load a contiguous 16x16 tile (stride 16; the operand's column-major).
// The operand copy
// (padding, nearest-2x, cache frames, fused norm + SiLU) is written by shaders/conv3d-mma-pack.wgsl in
// the same pass just before; weights are re-blocked once at upload. f16 storage only.
// Load/store use the current form with the majorness as a template argument and the stride in elements
// of the array (gpuweb subgroup-matrix proposal, 2026-06); the older form with a `col_major: bool`
// argument is what Dawn reports as a deprecated builtin.
// Results and bindings: conv3d's (same Params, HAS_RES 0/1/2 epilogue), except that the operand comes
// from the packed copy `s` and the weights from the blocked `wt`.
enable chromium_experimental_subgroup_matrix;
alias Elem = f32;

// Params, bindings, TM / TN, addressing and epilogue: shaders/conv3d-mma-common.wgsl

@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = geo();
  let n0 = wg.x * TN;
  let ob0 = wg.y * TM;
  var nn: array<u32, TN>; // pixel blocks of this group (the tail repeats the last one; not stored)
  for (var j = 0u; j < TN; j++) { nn[j] = min(n0 + j, g.tiles - 1u); }
  var acc: array<array<subgroup_matrix_result<f32, 16, 16>, TN>, TM>;
  let bs = b_cb_stride(g);
  for (var dt = prm.tap0; dt < KT; dt++) {
    for (var dy = 0u; dy < KS; dy++) {
      for (var dx = 0u; dx < KS; dx++) {
        let tap = (dt * KS + dy) * KS + dx;
        // tile offsets of channel block 0 for this tap (the block loop only adds strides)
        var ao: array<u32, TM>;
        var bo: array<u32, TN>;
        for (var i = 0u; i < TM; i++) { ao[i] = a_off(g, tap, ob0 + i); }
        for (var j = 0u; j < TN; j++) { bo[j] = b_off(g, dt, dy, dx, nn[j]); }
        for (var cb = 0u; cb < g.cb; cb++) {
          var a: array<subgroup_matrix_left<Elem, 16, 16>, TM>;
          var r: array<subgroup_matrix_right<Elem, 16, 16>, TN>;
          for (var i = 0u; i < TM; i++) {
            a[i] = subgroupMatrixLoad<subgroup_matrix_left<Elem, 16, 16>, row_major>(&wt, ao[i] + cb * 256u, 16u);
          }
          for (var j = 0u; j < TN; j++) {
            r[j] = subgroupMatrixLoad<subgroup_matrix_right<Elem, 16, 16>, col_major>(&s, bo[j] + cb * bs, 16u);
          }
          for (var i = 0u; i < TM; i++) {
            for (var j = 0u; j < TN; j++) { acc[i][j] = subgroupMatrixMultiplyAccumulate(a[i], r[j], acc[i][j]); }
          }
        }
      }
    }
  }
  for (var i = 0u; i < TM; i++) {
    for (var j = 0u; j < TN; j++) { subgroupMatrixStore<row_major>(&c_s, (i * TN + j) * 256u, acc[i][j], 16u); }
  }
  workgroupBarrier();
  epilogue(g, ob0, n0, 0u, lid);
}
