// conv3d-mma-pack: the operand copy of conv3d-mma for one conv call, in the tile-blocked layout
// s[dt][dx][cb][row][xb][16 cin][16 px] of shaders/conv3d-mma-common.wgsl, for temporal taps
// dt = tap0..KT-1 (the frames t-2, t-1 from the cache ring, t from x, exactly as conv3d reads them).
// Row r, block xb, pixel px, horizontal tap dx hold the input at output-space (r - pad, xb*16 + px + dx - pad):
// zero for padding, for channels past cin and pixels past w; UP=1 reads the half-size input at
// (y >> 1, x >> 1) (nearest-2x, never materialised); NORM=1 applies RMS_norm (+ SiLU) with the inverse
// RMS row the frame carries (--norm fused), as conv3d does on load. Same Params as conv3d.
alias Elem = f32;

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
}

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> gamma: array<Elem>;
@group(0) @binding(3) var<storage, read_write> s: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override KT: u32 = 3;
override KS: u32 = 3;
override UP: u32 = 0;
override NORM: u32 = 0;
override SILU: u32 = 0;

const WG: u32 = 256; // 16 pixel blocks x 16 pixels

fn load_src(from_cache: bool, i: u32) -> f32 {
  if (from_cache) { return f32(cache[i]); }
  return f32(x[i]);
}

// Workgroup (x, y, z) = (16 pixel blocks, operand row r, (dt - tap0, dx, cb)); each invocation one pixel
// of one block, looping over the block's 16 channels: the index arithmetic and the norm's inverse RMS
// once per pixel, each step a warp-wide 32-byte run of reads and of writes.
@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let cbn = (prm.cin + 15u) / 16u;
  let xbn = (prm.w + 15u) / 16u;
  let rows = prm.h + KS - 1u;
  let xb = wg.x * 16u + lid / 16u;
  if (xb >= xbn) { return; }
  let px = lid % 16u;
  let r = wg.y;
  let cb = wg.z % cbn;
  let dx = (wg.z / cbn) % KS;
  let dt = prm.tap0 + wg.z / (cbn * KS);
  let out = ((((dt * KS + dx) * cbn + cb) * rows + r) * xbn + xb) * 256u + px;
  let pad = i32((KS - 1u) / 2u);
  let sy = i32(r) - pad;
  let sx = i32(xb * 16u + px + dx) - pad;
  if (sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) {
    for (var cl = 0u; cl < 16u; cl++) { s[out + cl * 16u] = Elem(0.0); }
    return;
  }
  var hw_in = prm.h * prm.w;
  var off = u32(sy) * prm.w + u32(sx);
  if (UP == 1u) {
    hw_in = (prm.h >> 1u) * (prm.w >> 1u);
    off = u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u);
  }
  let from_cache = dt + 1u < KT;
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  var inv = 1.0;
  if (NORM == 1u) { inv = load_src(from_cache, base + prm.cin * hw_in + off); }
  for (var cl = 0u; cl < 16u; cl++) {
    let c = cb * 16u + cl;
    var v = 0.0;
    if (c < prm.cin) {
      v = load_src(from_cache, base + c * hw_in + off);
      if (NORM == 1u) {
        v = v * inv * f32(gamma[c]);
        if (SILU == 1u) { v = v / (1.0 + exp(-v)); }
      }
    }
    s[out + cl * 16u] = Elem(v);
  }
}
