// conv3d-mma-wq-emu: shaders/conv3d-mma-wq.wgsl with scalar f32 products, on any adapter (as
// conv3d-mma-emu is to conv3d-mma): same bindings, int8 blocked weights, tile walk, scales and epilogue,
// so the int8 blocked layout and its scales are checked against the portable int8 conv where subgroup
// matrices are absent (CI on lavapipe). Only the workgroup staging and the matrix builtins of
// conv3d-mma-wq are not covered by it. Slow.
alias Elem = f32;

// Params, bindings, TM / TN, addressing and epilogue: shaders/conv3d-mma-common.wgsl; wq: conv3d-mma-wq-common.wgsl

@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = geo();
  let n0 = wg.x * TN;
  let ob0 = wg.y * TM;
  for (var e = lid; e < TM * TN * 256u; e += SG) {
    let t = e / 256u;
    let i = t / TN;
    let n = min(n0 + t % TN, g.tiles - 1u);
    let m = (e % 256u) / 16u;
    let col = e % 16u;
    var acc = 0.0;
    for (var dt = prm.tap0; dt < KT; dt++) {
      for (var dy = 0u; dy < KS; dy++) {
        for (var dx = 0u; dx < KS; dx++) {
          let tap = (dt * KS + dy) * KS + dx;
          for (var cb = 0u; cb < g.cb; cb++) {
            let ao = (a_off(g, tap, ob0 + i) + cb * 256u + m * 16u) / 4u; // word of row m's first 4 cin
            let bo = b_off(g, dt, dy, dx, n) + cb * b_cb_stride(g);
            for (var k = 0u; k < 4u; k++) {
              let q = wq_word(ao + k);
              let x = vec4<f32>(f32(s[bo + col * 16u + 4u * k]), f32(s[bo + col * 16u + 4u * k + 1u]), f32(s[bo + col * 16u + 4u * k + 2u]), f32(s[bo + col * 16u + 4u * k + 3u]));
              acc += dot(q, x);
            }
          }
        }
      }
    }
    c_s[e] = acc;
  }
  workgroupBarrier();
  wq_scale_results(g, ob0, lid);
  workgroupBarrier();
  epilogue(g, ob0, n0, lid);
}
