// conv3d-mma-wq-common: what shaders/conv3d-mma-wq.wgsl (tensor cores) and shaders/conv3d-mma-wq-emu.wgsl
// (its scalar twin) share: the int8 weights of --weights-precision int8 in conv3d-mma's blocked order,
// appended after shaders/conv3d-mma-common.wgsl (Params, bindings, TM / TN, addressing, epilogue).
//
// Binding 5 `wq` (u32 words; the same buffer is also bound at conv3d-mma's `wt`, which these kernels do not read):
//   [tap][ob][cb][16 cout][16 cin] int8, four consecutive cin in one u32 (byte k = cin 4m+k, two's
//   complement; each 16x16 tile = 64 words, the blocked f16 tile's element e is byte e), then ob*16 f32
//   scales s_o = max|W[o]| / 127 (zero past cout). src/model/quantize.ts packInt8Blocked writes it.
// The GEMM multiplies the integer q (exact in f16: |q| <= 127) with the f16 operand, accumulated in f32;
// per-output-channel scales factor out of the sum over cin x taps, so the results are multiplied by s_o
// once, before the bias (wq_scale_results): the same arithmetic as the portable conv3d-wq (WQ=1).
@group(0) @binding(5) var<storage, read> wq: array<u32>;

// The 4 int8 of word i as f32 (sign-extended with two vector shifts, exact).
fn wq_word(i: u32) -> vec4<f32> {
  return vec4<f32>((vec4<i32>(bitcast<i32>(wq[i])) << vec4<u32>(24u, 16u, 8u, 0u)) >> vec4<u32>(24u));
}

// s_o of output channel o (o < ob * 16): after the KT*KS*KS*ob*cb*64 words of int8.
fn wq_scale(g: Geo, o: u32) -> f32 {
  return bitcast<f32>(wq[KT * KS * KS * g.ob * g.cb * 64u + min(o, g.ob * 16u - 1u)]);
}

// c_s (TM x TN results of 16 x 16, row-major [cout][px]) times s_o of each row; all SG invocations,
// between two barriers.
fn wq_scale_results(g: Geo, ob0: u32, lid: u32) {
  for (var e = lid; e < TM * TN * 256u; e += SG) {
    let o = (ob0 + (e / 256u) / TN) * 16u + (e % 256u) / 16u;
    c_s[e] = c_s[e] * wq_scale(g, o);
  }
}
