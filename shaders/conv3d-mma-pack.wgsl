// conv3d-mma-pack: the operand copy of conv3d-mma for one conv call, in the channels-innermost layout
// s[dt][cb][row][xp][16 cin] (ROWS_OUTER=1: s[dt][row][cb][xp][16 cin]) of shaders/conv3d-mma-common.wgsl, for temporal taps dt = tap0..KT-1 (the
// frames t-2, t-1 from the cache ring, t from x, exactly as conv3d reads them): ONE copy per frame, the
// horizontal taps are offsets of 16 elements into it. Row r, padded column xp, channel c hold the input at
// output-space (r - pad, xp - pad): zero for padding, for channels past cin and columns past w; UP=1 reads
// the half-size input at (y >> 1, x >> 1) (nearest-2x, never materialised); NORM=1 applies RMS_norm
// (+ SiLU) with the inverse RMS row the frame carries (--norm fused), as conv3d does on load. Same Params
// as conv3d.
// RING=1 (a cached conv whose ring holds packed frames, src/plan/conv-form.ts packedRing): only the current
// frame t is packed, from x at x_off, into frame 0 of s; the GEMM (RING=1) reads t-2 and t-1 from the
// ring, where the executor then copies t over t-2. Each frame is packed once, by the first conv call that
// reads it, instead of once per call that reads it (three).
alias Elem = f32;

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
}

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> gamma: array<Elem>;
// the 16 channels of one column are 32 contiguous bytes (f16): written as four vec4
@group(0) @binding(3) var<storage, read_write> s: array<vec4<Elem>>;
@group(1) @binding(0) var<uniform> prm: Params;

override KT: u32 = 3;
override KS: u32 = 3;
override UP: u32 = 0;
override NORM: u32 = 0;
override SILU: u32 = 0;
override ROWS_OUTER: u32 = 0; // 1: s[dt][row][cb][xp][16] (see conv3d-mma-common.wgsl)
override RING: u32 = 0; // 1: pack frame t only (above)

const WG: u32 = 256; // padded columns per workgroup

fn load_src(from_cache: bool, i: u32) -> f32 {
  if (from_cache) { return f32(cache[i]); }
  return f32(x[i]);
}

// Workgroup (x, y, z) = (WG padded columns, operand row r, (dt - tap0, cb); RING=1: cb); each invocation one column
// of one row, its 16 channels: reads coalesced along x per channel, writes 32 contiguous bytes.
@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let cbn = (prm.cin + 15u) / 16u;
  let wp = ((prm.w + 15u) / 16u) * 16u + KS - 1u;
  let rows = prm.h + KS - 1u;
  let xp = wg.x * WG + lid;
  if (xp >= wp) { return; }
  let r = wg.y;
  let cb = wg.z % cbn;
  var dt = prm.tap0 + wg.z / cbn;
  // element offset of frame dt's copy in s (vec4 units below)
  let frame = cbn * rows * wp * 16u;
  var base_s = dt * frame;
  if (RING == 1u) {
    dt = KT - 1u;
    base_s = 0u;
  }
  var out = base_s / 4u + ((cb * rows + r) * wp + xp) * 4u;
  if (ROWS_OUTER == 1u) { out = base_s / 4u + ((r * cbn + cb) * wp + xp) * 4u; }
  let pad = i32((KS - 1u) / 2u);
  let sy = i32(r) - pad;
  let sx = i32(xp) - pad;
  if (sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) {
    for (var q = 0u; q < 4u; q++) { s[out + q] = vec4<Elem>(); }
    return;
  }
  var hw_in = prm.h * prm.w;
  var off = u32(sy) * prm.w + u32(sx);
  if (UP == 1u) {
    hw_in = (prm.h >> 1u) * (prm.w >> 1u);
    off = u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u);
  }
  let from_cache = dt + 1u < KT && RING == 0u;
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  var inv = 1.0;
  if (NORM == 1u) { inv = load_src(from_cache, base + prm.cin * hw_in + off); }
  for (var q = 0u; q < 4u; q++) {
    var v = vec4<f32>();
    for (var k = 0u; k < 4u; k++) {
      let c = cb * 16u + q * 4u + k;
      if (c < prm.cin) {
        var a = load_src(from_cache, base + c * hw_in + off);
        if (NORM == 1u) {
          a = a * inv * f32(gamma[c]);
          if (SILU == 1u) { a = a / (1.0 + exp(-a)); }
        }
        v[k] = a;
      }
    }
    s[out + q] = vec4<Elem>(v);
  }
}
