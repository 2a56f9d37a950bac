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
  if (2 ** e > a) e -= 1; // log2 rounding at exact powers of two
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
