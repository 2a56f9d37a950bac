// output: the last step of a frame: (Wan2.2) 2x2 unpatchify, clamp to [-1, 1] (the official wrapper's
// clamp_), f32 RGB planes and packed RGBA8 for display.
//   PATCH = 1: rgb[c, y, x] = x[c, y, x];  PATCH = 2: rgb[c, 2y+q, 2x+r] = x[4c + 2r + q, y, x]
//   rgba[p] = R | G << 8 | B << 16 | 255 << 24 with channel = round((v·0.5 + 0.5)·255)
// Layouts: x: [3·PATCH², h, w] Elem at x_off; rgb: frames of [3, H, W] f32 (H = PATCH·h), this one
// at frame·3·H·W; rgba: frames of [H·W] u32, this one at frame·H·W.
// Bindings: 0 x (read), 1 rgb (read_write), 2 rgba (read_write). Params: group 1 uniform.
// Dispatch: one invocation per output pixel.
alias Elem = f32;

struct Params { h: u32, w: u32, x_off: u32, frame: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read_write> rgb: array<f32>;
@group(0) @binding(2) var<storage, read_write> rgba: array<u32>;
@group(1) @binding(0) var<uniform> prm: Params;

override PATCH: u32 = 1;
override WRITE_RGBA: u32 = 0;
override WG: u32 = 64;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let H = prm.h * PATCH;
  let W = prm.w * PATCH;
  let p = gid.x;
  if (p >= H * W) { return; }
  let yy = p / W;
  let xx = p % W;
  let q = yy % PATCH;
  let r = xx % PATCH;
  let src = (yy / PATCH) * prm.w + xx / PATCH;
  let hw = prm.h * prm.w;
  var packed = 255u << 24u;
  for (var c = 0u; c < 3u; c++) {
    let ch = c * PATCH * PATCH + r * PATCH + q;
    let v = clamp(f32(x[prm.x_off + ch * hw + src]), -1.0, 1.0);
    rgb[prm.frame * 3u * H * W + c * H * W + p] = v;
    packed |= u32(round((v * 0.5 + 0.5) * 255.0)) << (8u * c);
  }
  if (WRITE_RGBA == 1u) { rgba[prm.frame * H * W + p] = packed; }
}
