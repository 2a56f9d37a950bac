// conv3d-mma-emu: shaders/conv3d-mma.wgsl with the 16x16x16 matrix products done by scalar f32 loops,
// on any adapter: same bindings, params, blocked operands, tile walk and epilogue (all from
// shaders/conv3d-mma-common.wgsl). It exists so that the layouts (conv3d-mma-pack, the blocked weights)
// and the addressing are checked against the CPU reference where subgroup matrices are absent (CI on
// lavapipe / SwiftShader); only the three matrix builtins of conv3d-mma are not covered by it. Slow.
// The decoder's emulated GEMM is the straight-line one (shaders/conv3d-mma-flat-emu.wgsl); this looped
// twin checks the looped conv3d-mma's walk and the result-tile shapes the benchmark compares.
// The weight format is the appended part's: emu_block (adds one 16-cin channel block to a result element)
// and emu_results (what happens to the result tiles before the epilogue), in conv3d-mma-emu-f16.wgsl.
alias Elem = f32;

// Params, bindings, TM / TN, addressing and epilogue: shaders/conv3d-mma-common.wgsl

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
            let ao = a_off(g, tap, ob0 + i) + cb * 256u + m * 16u; // element of row m's first cin
            let bo = b_off(g, dt, dy, dx, n) + cb * b_cb_stride(g); // column-major tile: (k, col) at col * 16 + k
            acc = emu_block(acc, ao, bo + col * 16u); // adds in the same order as the tensor-core shader's loops
          }
        }
      }
    }
    c_s[e] = acc;
  }
  workgroupBarrier();
  emu_results(g, ob0, lid);
  workgroupBarrier();
  epilogue(g, ob0, n0, 0u, lid);
}
