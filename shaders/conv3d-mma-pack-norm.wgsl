// conv3d-mma-pack-norm: conv3d-mma-pack with NORM for a conv whose input carries no inverse-RMS row: the
// RMS_norm statistics of each pixel (shaders/rms-norm.wgsl: inv = sqrt(C) / max(sqrt(sum_c x^2), 1e-12),
// the sum in f32) are computed here, from the frame the pack reads anyway, instead of by an rms-norm
// statistics pass before the conv (--norm fused on tensor cores: src/plan/conv-form.ts statsInPack). Then
// x * inv * gamma (+ SiLU) is written in conv3d-mma-pack's layout (shaders/conv3d-mma-common.wgsl), for
// the frames tap0..KT-1 or (RING=1) frame t alone at the start of s. The inverse RMS stays in f32 (the
// statistics pass rounds it to the storage type). Same bindings, Params and overrides as conv3d-mma-pack.
alias Elem = f32;

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
}

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> gamma: array<Elem>;
@group(0) @binding(3) var<storage, read_write> s: array<vec4<Elem>>;
@group(1) @binding(0) var<uniform> prm: Params;

override KT: u32 = 3;
override KS: u32 = 3;
override UP: u32 = 0;
override SILU: u32 = 0;
override ROWS_OUTER: u32 = 0;
override RING: u32 = 0;

const COLS: u32 = 64; // padded columns per workgroup
const GROUPS: u32 = 4; // channel groups per column: channels c = g, g + 4, ... and blocks cb = g, g + 4, ...

var<workgroup> partial: array<f32, COLS * GROUPS>;

fn load_src(from_cache: bool, i: u32) -> f32 {
  if (from_cache) { return f32(cache[i]); }
  return f32(x[i]);
}

// Workgroup (x, y, z) = (COLS padded columns, operand row r, dt - tap0; RING=1: 0); invocation (column
// lid % COLS, channel group lid / COLS): a partial sum of squares over its channels, the four summed
// through workgroup memory, then its channel blocks written (32 contiguous bytes each).
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let cbn = (prm.cin + 15u) / 16u;
  let wp = ((prm.w + 15u) / 16u) * 16u + KS - 1u;
  let rows = prm.h + KS - 1u;
  let col = lid % COLS;
  let grp = lid / COLS;
  let xp = wg.x * COLS + col;
  let r = wg.y;
  var dt = prm.tap0 + wg.z;
  let frame = cbn * rows * wp * 16u;
  var base_s = dt * frame;
  if (RING == 1u) {
    dt = KT - 1u;
    base_s = 0u;
  }
  let pad = i32((KS - 1u) / 2u);
  let sy = i32(r) - pad;
  let sx = i32(xp) - pad;
  let inside = xp < wp && sy >= 0 && sx >= 0 && sy < i32(prm.h) && sx < i32(prm.w);
  var hw_in = prm.h * prm.w;
  var off = 0u;
  if (UP == 1u) { hw_in = (prm.h >> 1u) * (prm.w >> 1u); }
  if (inside) {
    off = u32(sy) * prm.w + u32(sx);
    if (UP == 1u) { off = u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u); }
  }
  let from_cache = dt + 1u < KT && RING == 0u;
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  var ss = 0.0;
  if (inside) {
    for (var c = grp; c < prm.cin; c += GROUPS) {
      let a = load_src(from_cache, base + c * hw_in + off);
      ss += a * a;
    }
  }
  partial[lid] = ss;
  workgroupBarrier();
  if (xp >= wp) { return; }
  // the four partial sums of this column in a fixed order (every group computes the same inv)
  let total = partial[col] + partial[col + COLS] + partial[col + 2u * COLS] + partial[col + 3u * COLS];
  let inv = sqrt(f32(prm.cin)) / max(sqrt(total), 1e-12);
  for (var cb = grp; cb < cbn; cb += GROUPS) {
    var out = base_s / 4u + ((cb * rows + r) * wp + xp) * 4u;
    if (ROWS_OUTER == 1u) { out = base_s / 4u + ((r * cbn + cb) * wp + xp) * 4u; }
    for (var q = 0u; q < 4u; q++) {
      var v = vec4<f32>();
      for (var k = 0u; k < 4u; k++) {
        let c = cb * 16u + q * 4u + k;
        if (inside && c < prm.cin) {
          var a = load_src(from_cache, base + c * hw_in + off) * inv * f32(gamma[c]);
          if (SILU == 1u) { a = a / (1.0 + exp(-a)); }
          v[k] = a;
        }
      }
      s[out + q] = vec4<Elem>(v);
    }
  }
}
