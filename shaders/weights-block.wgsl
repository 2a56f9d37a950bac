// weights-block: conv weight preparation for the tensor-core GEMM (conv3d-mma) on the GPU.
//   in:  rows o0 .. o0 + n - 1 of one PyTorch-order f32 conv weight [cout, cin, taps] (as the decoder's
//        Weights hold it), uploaded into a staging buffer from word src0 (rows past cout are not there)
//   out: those rows of conv3d-mma's blocked f16 layout [tap][ob][cb][16 cout][16 cin], two halves per u32
//        word (low half = the even cin), zeros where cout or cin pad to 16 (rows o >= cout write zeros)
// Bit-identical to the JS path storageBytes(packConvWeightBlocked(w), 'f16') (src/kernels/conv3d-mma.ts,
// src/runtime/f16.ts): the f32 -> f16 rounding is integer work on the bits (round to nearest even, NaN ->
// sign | 0x7e00, overflow -> +-inf, halves' subnormals), as toHalf; WGSL's f16() leaves the rounding of an
// inexact value to the implementation, so it is not used (and no shader-f16 is needed).
// Bindings: 0 src (read, f32 bits), 1 dst (read_write, the weight buffer). Params: group 1 uniform.
// Dispatch: one invocation per output word, `words` = taps * n * cb * 8, linear over a 2-D grid of
// `gx` workgroups per row.
struct Params { cin: u32, taps: u32, ob: u32, cb: u32, cout: u32, o0: u32, n: u32, src0: u32, words: u32, gx: u32 }

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(1) @binding(0) var<uniform> prm: Params;

const WG: u32 = 256;

// to_half(x): shaders/to-half.wgsl, appended by src/kernels/weights-block.ts

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * prm.gx * WG + gid.x;
  if (i >= prm.words) { return; }
  // i = ((t * n + rr) * cb + cbi) * 8 + c2: consecutive invocations write consecutive words of a tile row
  let c2 = i % 8u;
  let j = i / 8u;
  let cbi = j % prm.cb;
  let k = j / prm.cb;
  let rr = k % prm.n;
  let t = k / prm.n;
  let o = prm.o0 + rr;
  let c = cbi * 16u + 2u * c2;
  var lo = 0u;
  var hi = 0u;
  if (o < prm.cout) {
    let at = prm.src0 + (rr * prm.cin + c) * prm.taps + t; // w[o, c, t] of the staged rows
    if (c < prm.cin) { lo = to_half(src[at]); }
    if (c + 1u < prm.cin) { hi = to_half(src[at + prm.taps]); }
  }
  dst[((((t * prm.ob + (o >> 4u)) * prm.cb + cbi) * 256u) + (o & 15u) * 16u + 2u * c2) / 2u] = lo | (hi << 16u);
}
