// dup-up-add: Wan2.2 DupUp3D shortcut (vae2_2.py, parameter free) added in place to one output frame:
//   y[o, yy, xx] += x[(o·ft·fs² + a·fs² + (yy % fs)·fs + (xx % fs)) / r, yy / fs, xx / fs]
// where a is the sub-frame (0..ft-1) of this output frame, r = cout·ft·fs² / cin (integer divisions).
// Layouts: x: [cin, h/fs, w/fs] Elem at x_off (the up block's input frame); y: [cout, h, w] at y_off.
// Bindings: 0 x (read), 1 y (read_write). Params: group 1 uniform.
// Dispatch: one invocation per output element, (h·w / WG) x cout workgroups.
alias Elem = f32;

struct Params { cout: u32, h: u32, w: u32, cin: u32, ft: u32, fs: u32, r: u32, a: u32, x_off: u32, y_off: u32 }

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 64;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let p = gid.x;
  let o = gid.y;
  let hw = prm.h * prm.w;
  if (p >= hw || o >= prm.cout) { return; }
  let yy = p / prm.w;
  let xx = p % prm.w;
  let fs = prm.fs;
  let ci = (o * prm.ft * fs * fs + prm.a * fs * fs + (yy % fs) * fs + (xx % fs)) / prm.r;
  let win = prm.w / fs;
  let src = prm.x_off + ci * (prm.h / fs) * win + (yy / fs) * win + xx / fs;
  let i = prm.y_off + o * hw + p;
  y[i] = Elem(f32(y[i]) + f32(x[src]));
}
