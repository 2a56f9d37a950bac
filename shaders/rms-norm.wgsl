// rms-norm: vae.py RMS_norm over channels (F.normalize(x, dim=1) * sqrt(C) * gamma), optionally
// followed by SiLU (ResidualBlock residual[0..1], [3..4], the head, the attention norm):
//   y[c, p] = x[c, p] / max(sqrt(Σ_c x[c, p]²), 1e-12) · sqrt(C) · gamma[c],  then v / (1 + exp(-v)) if SILU=1
// Layouts: x, y: [C, HW] Elem at element offsets x_off / y_off (different buffers); gamma: [C] Elem.
// Bindings: 0 x, 1 gamma (read), 2 y (read_write). Params: group 1 uniform.
// Dispatch: one invocation per pixel, WG pixels per workgroup, workgroups on a 2D grid (x * y >= HW / WG)
//   so frames larger than 65535 workgroups still fit. Two passes over C: neighbouring invocations read
//   neighbouring pixels of one channel (contiguous). The sum of squares stays in f32: 1024 channels of
//   |x| ~ 8 overflow f16.
alias Elem = f32;

struct Params { c: u32, hw: u32, x_off: u32, y_off: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> gamma: array<Elem>;
@group(0) @binding(2) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 64;
override SILU: u32 = 0;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = (wg.y * nwg.x + wg.x) * WG + lid;
  if (p >= prm.hw) { return; }
  var ss = 0.0;
  for (var c = 0u; c < prm.c; c++) {
    let v = f32(x[prm.x_off + c * prm.hw + p]);
    ss += v * v;
  }
  let inv = sqrt(f32(prm.c)) / max(sqrt(ss), 1e-12);
  for (var c = 0u; c < prm.c; c++) {
    var v = f32(x[prm.x_off + c * prm.hw + p]) * inv * f32(gamma[c]);
    if (SILU == 1u) { v = v / (1.0 + exp(-v)); }
    y[prm.y_off + c * prm.hw + p] = Elem(v);
  }
}
