// conv3d-mma-pack-common: what the two operand copies of a tensor-core conv call share, put before each
// by its KernelDef (src/kernels/conv3d-mma.ts, with shaders/conv3d-mma-params.wgsl): the storage type,
// the bindings, the copy's layout constant, the frame of a temporal tap and the source pixel of an operand
// position. Used by conv3d-mma-pack.wgsl (the inverse RMS read from the frame's extra row, or no norm)
// and conv3d-mma-pack-norm.wgsl (the RMS statistics computed from the frame). The conv's form (prm.kt,
// prm.ks, prm.up, prm.norm, prm.silu, prm.ring) is uniform: it moves offsets and takes branches that are
// the same for the whole dispatch, so one pipeline of each copy serves every conv of a decode.
alias Elem = f32;

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> gamma: array<Elem>;
// the 16 channels of one column are 32 contiguous bytes (f16): written as four vec4
@group(0) @binding(3) var<storage, read_write> s: array<vec4<Elem>>;

override ROWS_OUTER: u32 = 0; // 1: s[dt][row][cb][xp][16] (see conv3d-mma-common.wgsl); the GEMM's ROWS_OUTER

fn load_src(from_cache: bool, i: u32) -> f32 {
  if (from_cache) { return f32(cache[i]); }
  return f32(x[i]);
}

// One temporal tap's operand frame: the copy's geometry (channel blocks cbn, padded columns wp, rows), its
// offset in s (elements; prm.ring = 1: frame t alone, at 0), and where its source frame is (the cache ring
// for t-2 / t-1, x for t; channel c at base + c * hw_in, hw_in the input plane: a quarter for prm.up).
struct PackFrame { cbn: u32, wp: u32, rows: u32, base_s: u32, from_cache: bool, base: u32, hw_in: u32 }

fn pack_frame(dt_in: u32) -> PackFrame {
  let cbn = (prm.cin + 15u) / 16u;
  let wp = ((prm.w + 15u) / 16u) * 16u + prm.ks - 1u;
  let rows = prm.h + prm.ks - 1u;
  var dt = dt_in;
  var base_s = dt * cbn * rows * wp * 16u;
  if (prm.ring == 1u) {
    dt = prm.kt - 1u;
    base_s = 0u;
  }
  let from_cache = dt + 1u < prm.kt && prm.ring == 0u;
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  var hw_in = prm.h * prm.w;
  if (prm.up == 1u) { hw_in = (prm.h >> 1u) * (prm.w >> 1u); }
  return PackFrame(cbn, wp, rows, base_s, from_cache, base, hw_in);
}

// vec4 index in s of channel block cb, operand row r, padded column xp of frame f
fn pack_out(f: PackFrame, cb: u32, r: u32, xp: u32) -> u32 {
  if (ROWS_OUTER == 1u) { return f.base_s / 4u + ((r * f.cbn + cb) * f.wp + xp) * 4u; }
  return f.base_s / 4u + ((cb * f.rows + r) * f.wp + xp) * 4u;
}

// Whether operand row r, padded column xp reads the input (not padding), and the pixel offset it reads
// in a channel plane (prm.up: the half-size input at (y >> 1, x >> 1)); 0 for padding.
fn pack_pixel(r: u32, xp: u32) -> vec2<u32> {
  let pad = i32((prm.ks - 1u) / 2u);
  let sy = i32(r) - pad;
  let sx = i32(xp) - pad;
  if (sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) { return vec2<u32>(0u, 0u); }
  if (prm.up == 1u) { return vec2<u32>(1u, u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u)); }
  return vec2<u32>(1u, u32(sy) * prm.w + u32(sx));
}
