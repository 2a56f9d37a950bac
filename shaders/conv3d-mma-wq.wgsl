// conv3d-mma-wq: shaders/conv3d-mma.wgsl (tensor cores, WGSL subgroup matrices) with int8 weights
// (--weights-precision int8): the weight tiles are dequantised in the operand load. Per channel block,
// the subgroup unpacks its TM int8 16x16 tiles (64 words each) to f16 integers in workgroup memory and
// loads the left matrices from there; the operand `s` is read from storage as in conv3d-mma. Two
// workgroup tiles alternate (a_s[par]): one barrier per channel block keeps the next block's writes
// after every read of the buffer they overwrite (one subgroup per workgroup). After the products, the
// results are multiplied by the per-output-channel scales (conv3d-mma-wq-common), then conv3d-mma's
// epilogue (bias, residual). Weights: half the bytes of the f16 blocked weights (+ 4 bytes per channel).
enable chromium_experimental_subgroup_matrix;
alias Elem = f32;

// Params, bindings, TM / TN, addressing and epilogue: shaders/conv3d-mma-common.wgsl; wq: conv3d-mma-wq-common.wgsl

var<workgroup> a_s: array<Elem, 2u * TM * 256u>; // [par][TM][16 cout][16 cin] integer weights of one channel block

@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = geo();
  let n0 = wg.x * TN;
  let ob0 = wg.y * TM;
  var nn: array<u32, TN>;
  for (var j = 0u; j < TN; j++) { nn[j] = min(n0 + j, g.tiles - 1u); }
  var acc: array<array<subgroup_matrix_result<f32, 16, 16>, TN>, TM>;
  let bs = b_cb_stride(g);
  var par = 0u;
  for (var dt = prm.tap0; dt < KT; dt++) {
    for (var dy = 0u; dy < KS; dy++) {
      for (var dx = 0u; dx < KS; dx++) {
        let tap = (dt * KS + dy) * KS + dx;
        var ao: array<u32, TM>; // word offsets of the TM tiles of channel block 0
        var bo: array<u32, TN>;
        for (var i = 0u; i < TM; i++) { ao[i] = a_off(g, tap, ob0 + i) / 4u; }
        for (var j = 0u; j < TN; j++) { bo[j] = b_off(g, dt, dy, dx, nn[j]); }
        for (var cb = 0u; cb < g.cb; cb++) {
          let base = par * TM * 256u;
          for (var e = lid; e < TM * 64u; e += SG) {
            let i = e / 64u;
            let q = wq_word(ao[i] + cb * 64u + e % 64u);
            let d = base + i * 256u + (e % 64u) * 4u;
            a_s[d] = Elem(q.x);
            a_s[d + 1u] = Elem(q.y);
            a_s[d + 2u] = Elem(q.z);
            a_s[d + 3u] = Elem(q.w);
          }
          workgroupBarrier();
          var a: array<subgroup_matrix_left<Elem, 16, 16>, TM>;
          var r: array<subgroup_matrix_right<Elem, 16, 16>, TN>;
          for (var i = 0u; i < TM; i++) {
            a[i] = subgroupMatrixLoad<subgroup_matrix_left<Elem, 16, 16>, row_major>(&a_s, base + i * 256u, 16u);
          }
          for (var j = 0u; j < TN; j++) {
            r[j] = subgroupMatrixLoad<subgroup_matrix_right<Elem, 16, 16>, col_major>(&s, bo[j] + cb * bs, 16u);
          }
          for (var i = 0u; i < TM; i++) {
            for (var j = 0u; j < TN; j++) { acc[i][j] = subgroupMatrixMultiplyAccumulate(a[i], r[j], acc[i][j]); }
          }
          par = 1u - par;
        }
      }
    }
  }
  for (var i = 0u; i < TM; i++) {
    for (var j = 0u; j < TN; j++) { subgroupMatrixStore<row_major>(&c_s, (i * TN + j) * 256u, acc[i][j], 16u); }
  }
  workgroupBarrier();
  wq_scale_results(g, ob0, lid);
  workgroupBarrier();
  epilogue(g, ob0, n0, lid);
}
