// conv3d-wq: the weight operand load of the portable conv (shaders/conv3d.wgsl) with packed weights
// (--weights-precision int8, or f16 beside f32 activations), dequantised while loading; src/model/quantize.ts
// packs them. Binding 7 `wq` (u32 words, conv3d's order [taps][cin][cout4]); binding 2 is unused here.
//   WQ=1 int8: one u32 per vec4 of 4 output channels (byte k = channel 4m+k, two's complement), then cout
//        f32 words max|W[o]|. unpack4x8snorm gives q/127; the sum over cin x taps is multiplied by
//        max|W[o]| in the epilogue (wscale): per-output-channel scales factor out of the sum.
//   WQ=2 f16: two u32 per vec4 (unpack2x16float: low half = lower channel); no scales.
@group(0) @binding(7) var<storage, read> wq: array<u32>;

override WQ: u32 = 1;

fn wload(i: u32) -> vec4<f32> {
  if (WQ == 2u) { return vec4<f32>(unpack2x16float(wq[2u * i]), unpack2x16float(wq[2u * i + 1u])); }
  return unpack4x8snorm(wq[i]);
}

fn wscale(o: u32, cout4: u32) -> f32 {
  if (WQ == 2u) { return 1.0; }
  return bitcast<f32>(wq[KT * KS * KS * prm.cin * cout4 + o]);
}
