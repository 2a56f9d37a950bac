// output: the decoded frame's final write: clamp to [-1, 1] (vae.py decode's clamp_), Wan2.2 unpatchify
// (vae2_2.py unpatchify, rearrange 'b (c r q) f h w -> b c f (h q) (w r)'), and an RGBA8 copy, of the
// region [cy, cy+oh) x [cx, cx+ow) of the (tile) frame (the whole frame when untiled):
//   v(c, Y, X) = clamp(x[c·P² + r·P + q, y, x], -1, 1) with Y = P·y + q, X = P·x + r  (P = PATCH: 1 Wan2.1, 2 Wan2.2)
//   rgb[rgb_off + (c·oh + Y-cy)·ow + X-cx] = v;  rgba[rgba_off + (Y-cy)·ow + X-cx] = RGBA8(round((v·0.5+0.5)·255), 255)
// Layouts: x: [3·P², h, w] Elem at x_off; rgb: [3, oh, ow] f32 at rgb_off (always f32); rgba: [oh·ow] u32.
// Bindings: 0 x (read), 1 rgb, 2 rgba (read_write). Params: group 1 uniform.
// Dispatch: one invocation per region pixel, 16 x 16 per workgroup over (ow, oh).
alias Elem = f32;

struct Params { h: u32, w: u32, x_off: u32, cy: u32, cx: u32, oh: u32, ow: u32, rgb_off: u32, rgba_off: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read_write> rgb: array<f32>;
@group(0) @binding(2) var<storage, read_write> rgba: array<u32>;
@group(1) @binding(0) var<uniform> prm: Params;

override PATCH: u32 = 1;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x >= prm.ow || gid.y >= prm.oh) { return; }
  let Y = gid.y + prm.cy;
  let X = gid.x + prm.cx;
  let q = Y % PATCH;
  let r = X % PATCH;
  let src = prm.x_off + (Y / PATCH) * prm.w + X / PATCH;
  let plane = prm.h * prm.w;
  let dst = gid.y * prm.ow + gid.x;
  var v: vec3<f32>;
  for (var c = 0u; c < 3u; c++) {
    v[c] = clamp(f32(x[src + (c * PATCH * PATCH + r * PATCH + q) * plane]), -1.0, 1.0);
    rgb[prm.rgb_off + c * prm.oh * prm.ow + dst] = v[c];
  }
  // pack4x8unorm rounds floor(0.5 + 255·v) = round half up, like Math.round
  rgba[prm.rgba_off + dst] = pack4x8unorm(vec4<f32>(v * 0.5 + 0.5, 1.0));
}
