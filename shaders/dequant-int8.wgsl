// dequant-int8: one conv's int8 weights (--weights-precision int8) expanded to f16 for the tensor-core
// GEMM, just before the conv call that reads them (src/kernels/dequant-int8.ts; src/plan/step-kinds.ts).
//   in:  wq   the int8 buffer of src/model/quantize.ts packInt8Blocked: conv3d-mma's blocked order
//             [tap][ob][cb][16 cout][16 cin], one byte per weight (four consecutive cin in one u32, byte k
//             = element 4m + k, two's complement), then ob * 16 f32 scales s_o
//   out: wt   the same order in f16, two halves per u32 (low half = the even element): exactly what
//             conv3d-mma reads as f16 blocked weights
// w' = f16(q * s_o): the product in f32 (correctly rounded), then rounded to f16 by integer work on the
// bits, round to nearest even (to_half, shaders/to-half.wgsl, appended by the KernelDef: WGSL's
// f16() leaves the rounding of an inexact value to the implementation). So the output equals the f16
// blocked weights of the dequantised f32 weights q * s_o (quantize.ts weightsAs(w, 'int8')) bit for bit.
// Params: conv3d's (cin, cout; the rest unused); overrides KT, KS: the conv's. One invocation per input
// u32 (4 weights, one output channel: a tile row is 16 elements), `words` = KT KS^2 ob cb 64 of them,
// linear over a 2-D grid (linearGrid).
// (Elem is not used: the kernel moves bits; the line is there for the f16 plans' compile, gpu/kernel.ts shaderSource)
alias Elem = f32;

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
}

@group(0) @binding(0) var<storage, read> wq: array<u32>;
@group(0) @binding(1) var<storage, read_write> wt: array<u32>;
@group(1) @binding(0) var<uniform> prm: Params;

override KT: u32 = 3;
override KS: u32 = 3;

const WG: u32 = 256;

// sign-extended byte k of word v, as f32
fn q_of(v: u32, k: u32) -> f32 {
  return f32(extractBits(bitcast<i32>(v), 8u * k, 8u));
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let ob = (prm.cout + 15u) / 16u;
  let cb = (prm.cin + 15u) / 16u;
  let words = KT * KS * KS * ob * cb * 64u;
  let i = gid.y * nwg.x * WG + gid.x;
  if (i >= words) { return; }
  // element 4i: tile (tap, ob, cb) = 4i / 256, row (4i mod 256) / 16; the scales follow the `words` words
  let o = (((4u * i) / (cb * 256u)) % ob) * 16u + ((4u * i) & 255u) / 16u;
  let s = bitcast<f32>(wq[words + o]);
  let v = wq[i];
  let h0 = to_half(bitcast<u32>(q_of(v, 0u) * s));
  let h1 = to_half(bitcast<u32>(q_of(v, 1u) * s));
  let h2 = to_half(bitcast<u32>(q_of(v, 2u) * s));
  let h3 = to_half(bitcast<u32>(q_of(v, 3u) * s));
  wt[2u * i] = h0 | (h1 << 16u);
  wt[2u * i + 1u] = h2 | (h3 << 16u);
}
