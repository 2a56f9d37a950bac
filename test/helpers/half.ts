// IEEE binary16 for test references, written independently of src/runtime/f16.ts (the runtime's
// toHalf/fromHalf, which the kernels' f16 uploads use): arithmetic on values (powers of two and
// round-half-even on the quotient by the ulp) instead of bit shifts on the float32 pattern, so a bug in
// the runtime's conversion shows as a difference instead of being copied into the reference.
// test/runtime/f16.test.ts checks both against known bit patterns.

const MAX_HALF = 65504;
/** smallest subnormal 2^-24 */
const TINY = 2 ** -24;

function roundHalfEven(q: number): number {
  const f = Math.floor(q);
  const d = q - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The binary16 value nearest to v (ties to even; beyond the largest finite half, ±Infinity). */
export function halfRound(v: number): number {
  if (Number.isNaN(v) || !Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  // exponent of a, clamped to the subnormal range: the ulp of a half with this exponent is 2^(e-10)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a)
    e -= 1; // log2 rounding at exact powers of two
  else if (2 ** (e + 1) <= a) e += 1;
  const ulp = e < -14 ? TINY : 2 ** (e - 10);
  const r = roundHalfEven(a / ulp) * ulp;
  // 65520 = 65504 + half an ulp: the tie rounds to the even 2^16, which is out of range
  const out = r > MAX_HALF ? Infinity : r;
  return v < 0 ? -out : out;
}

/** Bits of halfRound(v) (NaN: 0x7e00), computed from the value's exponent and significand. */
export function halfBits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const r = halfRound(v);
  const sign = r < 0 || Object.is(r, -0) ? 0x8000 : 0;
  const a = Math.abs(r);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | Math.round(a / TINY); // subnormal (or zero): a multiple of 2^-24
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

/** The value of half bits h. */
export function halfValue(h: number): number {
  const sign = h >= 0x8000 ? -1 : 1;
  const e = Math.floor((h % 0x8000) / 1024);
  const m = h % 1024;
  if (e === 31) return m === 0 ? sign * Infinity : NaN;
  return sign * (e === 0 ? m * TINY : (1024 + m) * 2 ** (e - 25));
}

/**
 * Distinct f32 bit patterns over the f16 range and beyond, with the f32 -> f16 rounding edges first (ties,
 * overflow, subnormals, -0, inf, NaN): the inputs of the GPU weight-preparation tests (weights-prep, weights-pack).
 */
export function halfEdgeValues(n: number, seed: number): Float32Array<ArrayBuffer> {
  const edges = [
    0x3f801000, // 1 + 2^-11: a tie, rounds down to even
    0x3f803000, // 1 + 3 * 2^-11: a tie, rounds up to even
    0x3f801001, // just over a tie: up
    0x477fefff, // 65519.99: the largest finite half
    0x477ff000, // 65520: rounds to inf
    0xc77ff000, // -65520: -inf
    0x38800000, // 2^-14: the smallest normal half
    0x387fc000, // just under 2^-14: a subnormal half, rounded
    0x33800000, // 2^-24: the smallest subnormal half
    0x33000000, // 2^-25: a tie with 0, rounds to even (0)
    0x33000001, // just over 2^-25: rounds to 2^-24
    0x32ffffff, // under 2^-25: 0
    0x80000000, // -0
    0x7f800000, // inf
    0xff800000, // -inf
    0x7fc00000, // NaN
    0xffc00000, // -NaN
    0x00000001, // an f32 subnormal
  ];
  const u = new Uint32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    // exponent 96..150 (2^-31 .. 2^23: subnormal halves to inf), any mantissa, any sign
    const exp = 96 + (s % 55);
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    u[i] = i < edges.length ? edges[i]! : ((s & 0x80000000) | (exp << 23) | (s & 0x7fffff)) >>> 0;
  }
  return new Float32Array(u.buffer);
}
