// rms-norm: vae.py RMS_norm (F.normalize over channels · sqrt(C) · gamma), then SiLU when SILU = 1:
//   y[c, p] = x[c, p] / max(sqrt(Σ_c x[c, p]²), 1e-12) · sqrt(C) · gamma[c];  silu(v) = v / (1 + exp(-v))
// Layouts: x, y: [C, HW] Elem at x_off / y_off; gamma: [C] Elem. Sums in f32.
// Bindings: 0 x (read), 1 gamma (read), 2 y (read_write). Params: group 1 uniform.
// Dispatch: one invocation per pixel p (WG threads per workgroup); each walks all C channels twice
// (sum of squares, then scale): channel reads are strided by HW, consecutive invocations read
// consecutive pixels, so loads coalesce.
alias Elem = f32;

struct Params { c: u32, hw: u32, x_off: u32, y_off: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> gamma: array<Elem>;
@group(0) @binding(2) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override SILU: u32 = 1;
override WG: u32 = 64;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let p = gid.x;
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
