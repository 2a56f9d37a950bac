// crop: copy the window [y0, y0+h) x [x0, x0+w) of every channel of a [C, H, W] frame into a dense
// [C, h, w] tile (the input of a spatial tile, design §6: the latent-rate part runs on the whole frame).
//   y[c, yy, xx] = x[c, y0 + yy, x0 + xx]
// Layouts: x: [C, H, W] Elem at x_off; y: [C, h, w] Elem at y_off.
// Bindings: 0 x (read), 1 y (read_write). Params: group 1 uniform.
// Dispatch: one invocation per tile element, (h·w / WG) x C workgroups.
alias Elem = f32;

struct Params { c: u32, src_h: u32, src_w: u32, y0: u32, x0: u32, h: u32, w: u32, x_off: u32, y_off: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 64;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let p = gid.x;
  let c = gid.y;
  if (p >= prm.h * prm.w || c >= prm.c) { return; }
  let yy = p / prm.w;
  let xx = p % prm.w;
  y[prm.y_off + c * prm.h * prm.w + p] = x[prm.x_off + (c * prm.src_h + prm.y0 + yy) * prm.src_w + prm.x0 + xx];
}
