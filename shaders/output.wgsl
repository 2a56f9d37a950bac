// output: the decoded frame's final write: clamp to [-1, 1] (vae.py decode's clamp_), Wan2.2 unpatchify
// (vae2_2.py unpatchify, rearrange 'b (c r q) f h w -> b c f (h q) (w r)'), and an RGBA8 copy:
//   rgb[c, P·y + q, P·x + r] = clamp(x[c·P² + r·P + q, y, x], -1, 1)    (P = PATCH: 1 Wan2.1, 2 Wan2.2)
//   rgba[Y·W + X] = RGBA8(round((rgb·0.5 + 0.5)·255), alpha 255), little-endian bytes R, G, B, A
// Layouts: x: [3·P², h, w] Elem at x_off; rgb: frames of [3, H, W] f32 (always f32); rgba: frames of
//   [H·W] u32; H = P·h, W = P·w; this frame is slot `frame` of both (the frames of one chunk).
// Bindings: 0 x (read), 1 rgb, 2 rgba (read_write). Params: group 1 uniform.
// Dispatch: one invocation per output pixel, 16 x 16 per workgroup over (W, H).
alias Elem = f32;

struct Params { h: u32, w: u32, x_off: u32, frame: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read_write> rgb: array<f32>;
@group(0) @binding(2) var<storage, read_write> rgba: array<u32>;
@group(1) @binding(0) var<uniform> prm: Params;

override PATCH: u32 = 1;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let out_w = prm.w * PATCH;
  let out_h = prm.h * PATCH;
  if (gid.x >= out_w || gid.y >= out_h) { return; }
  let q = gid.y % PATCH;
  let r = gid.x % PATCH;
  let src = prm.x_off + (gid.y / PATCH) * prm.w + gid.x / PATCH;
  let plane = prm.h * prm.w;
  var v: vec3<f32>;
  for (var c = 0u; c < 3u; c++) {
    v[c] = clamp(f32(x[src + (c * PATCH * PATCH + r * PATCH + q) * plane]), -1.0, 1.0);
    rgb[((prm.frame * 3u + c) * out_h + gid.y) * out_w + gid.x] = v[c];
  }
  // pack4x8unorm rounds floor(0.5 + 255·v) = round half up, like Math.round
  rgba[(prm.frame * out_h + gid.y) * out_w + gid.x] = pack4x8unorm(vec4<f32>(v * 0.5 + 0.5, 1.0));
}
