// conv3d-mma-emu's weight part for f16 (or f32) blocked weights: the same products as conv3d-mma.
// ao: element of the weight row's first cin in wt; bo: element of the operand column's first cin in s.
fn emu_block(acc0: f32, ao: u32, bo: u32) -> f32 {
  var acc = acc0;
  for (var k = 0u; k < 16u; k++) { acc += f32(wt[ao + k]) * f32(s[bo + k]); }
  return acc;
}

// nothing to do to the result tiles before the epilogue
fn emu_results(g: Geo, ob0: u32, lid: u32) {}
