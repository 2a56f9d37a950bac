// conv3d-wq: the weight operand load of the portable conv (shaders/conv3d.wgsl) with packed weights
// (--weights-precision int8, or f16 beside f32 activations), dequantised while loading; src/model/quantize.ts
// packs them. Binding 7 `wq` (u32 words, conv3d's order [taps][cin][cout4]); binding 2 is unused here.
//   WQ=1 int8: one u32 per vec4 of 4 output channels (byte k = channel 4m+k, two's complement), then cout
//        f32 words s_o = max|W[o]| / 127. The load sign-extends the 4 bytes with two vector shifts (q as
//        f32, exact); the sum over cin x taps is multiplied by s_o in the epilogue (wscale): per-output-
//        channel scales factor out of the sum. (unpack4x8snorm, q/127, made a generated-model decode on
//        lavapipe take 10 s instead of 1.5 s.)
//   WQ=2 f16: two u32 per vec4 (unpack2x16float: low half = lower channel); no scales.
@group(0) @binding(7) var<storage, read> wq: array<u32>;

override WQ: u32 = 1;

fn wload(i: u32) -> vec4<f32> {
  if (WQ == 2u) { return vec4<f32>(unpack2x16float(wq[2u * i]), unpack2x16float(wq[2u * i + 1u])); }
  return vec4<f32>((vec4<i32>(bitcast<i32>(wq[i])) << vec4<u32>(24u, 16u, 8u, 0u)) >> vec4<u32>(24u));
}

fn wscale(o: u32, cout4: u32) -> f32 {
  if (WQ == 2u) { return 1.0; }
  return bitcast<f32>(wq[KT * KS * KS * prm.cin * cout4 + o]);
}
