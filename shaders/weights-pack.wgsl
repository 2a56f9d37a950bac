// weights-pack: conv weight preparation for the portable convs (conv3d, conv3d-tiled) on the GPU.
//   in:  rows o0 .. o0 + staged - 1 of one PyTorch-order f32 conv weight [cout, cin, taps] (as the
//        decoder's Weights hold it), uploaded into a staging buffer from word src0
//   out: those output channels of conv3d's layout [taps * cin rows][co4] (row t * cin + c, cout padded
//        to co4 = a multiple of 4 with zeros), in the storage precision: F16 = 0 one f32 per word,
//        F16 = 1 two halves per word (low half = the even channel), rounded by to_half (shaders/to-half.wgsl)
// Bit-identical to the JS path storageBytes(packConvWeight(w), elem) (src/kernels/conv3d.ts, src/runtime/f16.ts).
// Bindings: 0 src (read, f32 bits), 1 dst (read_write, the weight buffer). Params: group 1 uniform.
// Dispatch: one invocation per output word, `words` = taps * cin * n / (1 + F16), linear over a 2-D grid
// of `gx` workgroups per row; consecutive invocations write consecutive words of one row.
struct Params { cin: u32, taps: u32, cout: u32, co4: u32, o0: u32, n: u32, src0: u32, words: u32, gx: u32 }

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(1) @binding(0) var<uniform> prm: Params;

override F16: u32 = 0;
const WG: u32 = 256;

// w[o, c, t] of the staged rows as f32 bits; 0 for the padding channels o >= cout
fn wbits(o: u32, c: u32, t: u32) -> u32 {
  if (o >= prm.cout) { return 0u; }
  return src[prm.src0 + ((o - prm.o0) * prm.cin + c) * prm.taps + t];
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * prm.gx * WG + gid.x;
  if (i >= prm.words) { return; }
  let per = prm.n >> F16; // words of one row written here
  let q = i % per;
  let r = i / per; // row t * cin + c
  let c = r % prm.cin;
  let t = r / prm.cin;
  let o = prm.o0 + (q << F16);
  if (F16 == 0u) {
    dst[r * prm.co4 + o] = wbits(o, c, t);
  } else {
    dst[(r * prm.co4 + o) >> 1u] = to_half(wbits(o, c, t)) | (to_half(wbits(o + 1u, c, t)) << 16u);
  }
}
