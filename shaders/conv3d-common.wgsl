// conv3d-common: what shaders/conv3d.wgsl, shaders/conv3d-mma.wgsl and the generated conv3d-tiled
// (src/kernels/conv3d-tiled.ts) share, appended to each by its
// KernelDef (WGSL has no imports; module-scope names may be used before they are declared): the Params,
// the binding table, the overrides of the operation (KT, HAS_RES: each kernel's own, constants or Params' kt, has_res), and the operand addressing (taps, padding,
// nearest-2x, cache frames, the fused norm). Elem is the including shader's `alias Elem = f32;`.

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
  // the conv's temporal taps and residual form as values: conv3d-tiled reads them (one pipeline for KT 1 and 3
  // and residual 0, 1, 2); conv3d and conv3d-head bake KT and HAS_RES and ignore the fields
  kt: u32, has_res: u32,
}

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> w: array<vec4<Elem>>;
@group(0) @binding(3) var<storage, read> b: array<Elem>;
@group(0) @binding(4) var<storage, read> res: array<Elem>;
@group(0) @binding(5) var<storage, read_write> y: array<Elem>;
@group(0) @binding(6) var<storage, read> gamma: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override KS: u32 = 3;
override UP: u32 = 0;
override NORM: u32 = 0; // 1: RMS_norm applied to the operands while loading (--norm fused)
override SILU: u32 = 0; // with NORM=1: SiLU after the norm

struct Tap { base: u32, from_cache: bool, dy: u32, dx: u32 }

const NONE: u32 = 0xffffffffu; // src_offset of a padding pixel

// Source frame and spatial shift of tap index `tap` (= (dt*KS + dy)*KS + dx). conv_kt(): the including
// shader's temporal taps (its KT constant, or Params' kt).
fn tap_info(tap: u32) -> Tap {
  let dt = tap / (KS * KS);
  let from_cache = dt + 1u < conv_kt();
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  return Tap(base, from_cache, (tap / KS) % KS, tap % KS);
}

// Offset of output pixel p's tap source inside one input channel plane, or NONE when it is padding.
// UP=1 reads in[sy >> 1][sx >> 1] of the half-size input (the nearest-2x upsample is never materialised).
fn src_offset(p: u32, dy: u32, dx: u32) -> u32 {
  let pad = (KS - 1u) / 2u;
  let sy = i32(p / prm.w) + i32(dy) - i32(pad);
  let sx = i32(p % prm.w) + i32(dx) - i32(pad);
  if (p >= prm.h * prm.w || sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) { return NONE; }
  if (UP == 1u) { return u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u); }
  return u32(sy) * prm.w + u32(sx);
}

fn load_src(from_cache: bool, i: u32) -> f32 {
  if (from_cache) { return f32(cache[i]); }
  return f32(x[i]);
}

// NORM=1: the conv operand from raw value v of channel c at a pixel with inverse RMS inv.
fn norm_act(v: f32, inv: f32, c: u32) -> f32 {
  var u = v * inv * f32(gamma[c]);
  if (SILU == 1u) { u = u / (1.0 + exp(-u)); }
  return u;
}

// norm_act of four pixels of channel c at once.
fn norm_act4(v: vec4<f32>, inv: vec4<f32>, c: u32) -> vec4<f32> {
  var u = v * inv * f32(gamma[c]);
  if (SILU == 1u) { u = u / (vec4<f32>(1.0) + exp(-u)); }
  return u;
}
