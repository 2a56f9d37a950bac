// conv3d-w: the weight operand load of the portable conv (shaders/conv3d.wgsl) with weights stored as
// the activations are (Elem, binding 2). Its twin shaders/conv3d-wq.wgsl reads packed int8 / f16 weights.
fn wload(i: u32) -> vec4<f32> { return vec4<f32>(w[i]); }
fn wscale(o: u32, cout4: u32) -> f32 { return 1.0; }
