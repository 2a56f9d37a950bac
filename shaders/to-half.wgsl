// to_half: IEEE half bits of an f32's bits, round to nearest even, as src/runtime/f16.ts toHalf (line
// for line): NaN -> sign | 0x7e00, overflow -> +-inf, halves' subnormals. Integer work only: WGSL's f16()
// leaves the rounding of an inexact value to the implementation. Appended to the weight-preparation
// kernels' sources (src/kernels/weights-block.ts, weights-pack.ts).
fn to_half(x: u32) -> u32 {
  let sign = (x >> 16u) & 0x8000u;
  let ex = (x >> 23u) & 0xffu;
  var mant = x & 0x7fffffu;
  if (ex == 0xffu) { return sign | 0x7c00u | select(0u, 0x200u, mant != 0u); }
  let e = i32(ex) - 112; // rebiased to the half's exponent (127 - 15)
  if (e >= 31) { return sign | 0x7c00u; }
  if (e <= 0) {
    if (e < -10) { return sign; }
    mant = mant | 0x800000u;
    let shift = u32(14 - e);
    var hs = mant >> shift;
    let rem = mant & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (hs & 1u) != 0u)) { hs = hs + 1u; }
    return sign | hs;
  }
  var h = (u32(e) << 10u) | (mant >> 13u);
  let rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) { h = h + 1u; }
  return sign | h;
}
