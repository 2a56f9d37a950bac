// dup-up-add: the Wan2.2 DupUp3D shortcut (vae2_2.py DupUp3D, parameter free) of one output sub-frame,
// added in place to the up-block output frame:
//   y[o, yy, xx] += x[(o·ft·fs² + a·fs² + b·fs + c) / r, yy / fs, xx / fs],  b = yy % fs, c = xx % fs
// (integer division; a = sub-frame index 0..ft-1; r = cout·ft·fs² / cin).
// Layouts: x: [cin, h/fs, w/fs] Elem at x_off; y: [cout, h, w] Elem at y_off (different buffers).
// Bindings: 0 x (read), 1 y (read_write). Params: group 1 uniform.
// Dispatch: one invocation per output element, WG per workgroup, on a 2D grid (x * y >= cout·h·w / WG).
alias Elem = f32;

struct Params { cout: u32, h: u32, w: u32, cin: u32, ft: u32, fs: u32, r: u32, a: u32, x_off: u32, y_off: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let hw = prm.h * prm.w;
  let e = (wg.y * nwg.x + wg.x) * WG + lid;
  if (e >= prm.cout * hw) { return; }
  let o = e / hw;
  let yy = (e % hw) / prm.w;
  let xx = e % prm.w;
  let fs = prm.fs;
  let ci = (o * prm.ft * fs * fs + prm.a * fs * fs + (yy % fs) * fs + xx % fs) / prm.r;
  let wi = prm.w / fs;
  let src = prm.x_off + ci * (prm.h / fs) * wi + (yy / fs) * wi + xx / fs;
  y[prm.y_off + e] = Elem(f32(y[prm.y_off + e]) + f32(x[src]));
}
