// conv3d-mma-wq-emu: shaders/conv3d-mma-wq.wgsl with scalar f32 products, on any adapter (as
// conv3d-mma-emu is to conv3d-mma): appended to conv3d-mma-emu's main, it reads the int8 blocked weights
// (wq_word) and applies the per-output-channel scales, so the int8 blocked layout and its scales are
// checked against the portable int8 conv where subgroup matrices are absent (CI on lavapipe). Only the
// workgroup staging and the matrix builtins of conv3d-mma-wq are not covered by it. Slow.
// Scales and wq_word: conv3d-mma-wq-common.wgsl.

// ao: element of the weight row's first cin (4 int8 per word of wq); bo: the operand column's first cin in s
fn emu_block(acc0: f32, ao: u32, bo: u32) -> f32 {
  var acc = acc0;
  for (var k = 0u; k < 4u; k++) {
    let q = wq_word(ao / 4u + k);
    let x = vec4<f32>(f32(s[bo + 4u * k]), f32(s[bo + 4u * k + 1u]), f32(s[bo + 4u * k + 2u]), f32(s[bo + 4u * k + 3u]));
    acc += dot(q, x);
  }
  return acc;
}

fn emu_results(g: Geo, ob0: u32, lid: u32) {
  wq_scale_results(g, ob0, lid);
}
