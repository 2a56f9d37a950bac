// rms-norm: vae.py RMS_norm over channels (F.normalize(x, dim=1) * sqrt(C) * gamma), optionally
// followed by SiLU (ResidualBlock residual[0..1], [3..4], the head, the attention norm):
//   inv[p] = sqrt(C) / max(sqrt(Σ_c x[c, p]²), 1e-12)
//   y[c, p] = x[c, p] · inv[p] · gamma[c],  then v / (1 + exp(-v)) if SILU=1
// Modes (overrides, so every variant is one pipeline with no runtime branch):
//   STATS=0 INPLACE=0  --norm full:    y is a separate tensor
//   STATS=0 INPLACE=1  --norm chunked: y overwrites x (x is read from the y binding; the x binding is unused)
//   STATS=1            --norm fused:   only inv[p] is written, into the tensor's tail at y_off + C·HW + p
//                                      (the next conv applies x·inv·gamma (+ SiLU) while loading: conv3d NORM=1)
// Layouts: x, y: [C, HW] Elem at element offsets x_off / y_off (STATS: [C+1, HW], row C = inv); gamma: [C].
// Bindings: 0 x, 1 gamma (read), 2 y (read_write). Params: group 1 uniform.
// Dispatch: pixels p0 .. p0+np-1 of the frame (one chunk; np = HW unless --norm-chunk splits it), one
//   invocation per pixel, WG pixels per workgroup on a 2D grid (x * y >= np / WG) so frames larger than
//   65535 workgroups still fit. Two passes over C: neighbouring invocations read neighbouring pixels of
//   one channel (contiguous). The sum of squares stays in f32: 1024 channels of |x| ~ 8 overflow f16.
alias Elem = f32;

struct Params { c: u32, hw: u32, x_off: u32, y_off: u32, p0: u32, np: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> gamma: array<Elem>;
@group(0) @binding(2) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 64;
override SILU: u32 = 0;
override INPLACE: u32 = 0;
override STATS: u32 = 0;
// STATS: inv is clamped to this before storage. f16 storage sets 65504 (the f16 maximum) so that pixels
// with ||x|| < sqrt(C) / 65504 store a finite inv (an all-zero pixel then gives 0, as PyTorch's clamp
// does, instead of 0 · inf = NaN in the conv); such pixels are scaled by 65504 instead of the true inv.
override INV_MAX: f32 = 3.0e38;

// x[c, p] of the input, from the y binding when the input is updated in place (INPLACE or STATS)
fn load(c: u32, p: u32) -> f32 {
  if (INPLACE == 1u || STATS == 1u) { return f32(y[prm.y_off + c * prm.hw + p]); }
  return f32(x[prm.x_off + c * prm.hw + p]);
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wg.y * nwg.x + wg.x) * WG + lid;
  if (i >= prm.np) { return; }
  let p = prm.p0 + i;
  var ss = 0.0;
  for (var c = 0u; c < prm.c; c++) {
    let v = load(c, p);
    ss += v * v;
  }
  let inv = sqrt(f32(prm.c)) / max(sqrt(ss), 1e-12);
  if (STATS == 1u) {
    y[prm.y_off + prm.c * prm.hw + p] = Elem(min(inv, INV_MAX));
    return;
  }
  for (var c = 0u; c < prm.c; c++) {
    var v = load(c, p) * inv * f32(gamma[c]);
    if (SILU == 1u) { v = v / (1.0 + exp(-v)); }
    y[prm.y_off + c * prm.hw + p] = Elem(v);
  }
}
