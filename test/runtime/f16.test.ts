// src/runtime/f16.ts (toHalf / fromHalf / storageBytes: every f16 upload of weights and latents) against
// known IEEE binary16 bit patterns, and against test/helpers/half.ts (an arithmetic implementation that
// the kernel tests' f16 references use) on every half value and on values between them.
// A wrong conversion fails here: a truncating rounding fails the ties and the 1+3·2^-11 case, a missing
// subnormal path fails 2^-24 / 0x03ff, a missing overflow fails 65520 -> inf, a swapped sign fails -2.
import { describe, expect, it } from 'vitest';
import { fromHalf, storageBytes, toHalf } from '../../src/runtime/f16';
import { halfBits, halfRound, halfValue } from '../helpers/half';
import { prng } from '../helpers/random';

// value -> bits, from the IEEE 754 binary16 layout (sign | 5-bit exponent, bias 15 | 10-bit fraction)
const KNOWN: [number, number][] = [
  [0, 0x0000],
  [-0, 0x8000],
  [1, 0x3c00],
  [-2, 0xc000],
  [0.5, 0x3800],
  [0.333251953125, 0x3555], // the half nearest to 1/3
  [65504, 0x7bff], // largest finite
  [2 ** -14, 0x0400], // smallest normal
  [2 ** -24, 0x0001], // smallest subnormal
  [1023 * 2 ** -24, 0x03ff], // largest subnormal
  [3 * 2 ** -24, 0x0003],
  [Infinity, 0x7c00],
  [-Infinity, 0xfc00],
];

// rounding: value -> bits of the nearest half, ties to even
const ROUNDING: [string, number, number][] = [
  ['1/3 (float32) -> 0x3555', Math.fround(1 / 3), 0x3555],
  ['1 + 2^-11 (tie between 1 and 1+2^-10) -> 1 (even)', 1 + 2 ** -11, 0x3c00],
  ['1 + 3·2^-11 (tie) -> 1 + 2^-9 (even)', 1 + 3 * 2 ** -11, 0x3c02],
  ['1 + 2^-11 + 2^-20 (just above the tie) -> up', 1 + 2 ** -11 + 2 ** -20, 0x3c01],
  ['2049 (tie between 2048 and 2050) -> 2048', 2049, 0x6800],
  ['2051 (tie between 2050 and 2052) -> 2052', 2051, 0x6802],
  ['65519 -> 65504 (below the overflow tie)', 65519, 0x7bff],
  ['65520 (tie with 2^16) -> inf', 65520, 0x7c00],
  ['1e6 -> inf', 1e6, 0x7c00],
  ['-1e6 -> -inf', -1e6, 0xfc00],
  ['2^-25 (tie between 0 and 2^-24) -> 0 (even)', 2 ** -25, 0x0000],
  ['3·2^-25 (tie between 2^-24 and 2^-23) -> 2^-23 (even)', 3 * 2 ** -25, 0x0002],
  ['2^-25 + 2^-30 -> 2^-24', 2 ** -25 + 2 ** -30, 0x0001],
  ['2^-26 -> 0', 2 ** -26, 0x0000],
  ['-2^-26 -> -0', -(2 ** -26), 0x8000],
  ['(2^-14 - 2^-25) (tie between the largest subnormal and 2^-14) -> 2^-14 (even)', 2 ** -14 - 2 ** -25, 0x0400],
];

describe('src/runtime/f16.ts', () => {
  it.each(KNOWN)('toHalf(%d) = %i and fromHalf back', (v, bits) => {
    expect(toHalf(v)).toBe(bits);
    expect(Object.is(fromHalf(bits), v)).toBe(true);
  });

  it.each(ROUNDING)('%s', (_n, v, bits) => {
    // every value here is exact in float32, so toHalf sees it unrounded
    expect(Math.fround(v)).toBe(v);
    expect(toHalf(v)).toBe(bits);
  });

  it('NaN stays NaN (exponent all ones, fraction non-zero), both ways', () => {
    const h = toHalf(NaN);
    expect(h & 0x7c00).toBe(0x7c00);
    expect(h & 0x03ff).not.toBe(0);
    expect(fromHalf(0x7e00)).toBeNaN();
    expect(fromHalf(0xfe01)).toBeNaN();
  });

  it('every one of the 65536 bit patterns: fromHalf equals the independent decoding, and toHalf(fromHalf(h)) = h (NaNs excepted)', () => {
    for (let h = 0; h < 0x10000; h++) {
      const v = fromHalf(h);
      const want = halfValue(h);
      if (Number.isNaN(want)) {
        expect(v, `bits 0x${h.toString(16)}`).toBeNaN();
        continue;
      }
      if (!Object.is(v, want)) throw new Error(`fromHalf(0x${h.toString(16)}) = ${v}, want ${want}`);
      if (toHalf(v) !== h) throw new Error(`toHalf(${v}) = 0x${toHalf(v).toString(16)}, want 0x${h.toString(16)}`);
    }
  });

  it('values between halves (every float32 midpoint and 20000 random floats): toHalf agrees with the arithmetic rounding', () => {
    const check = (v: number) => {
      const f = Math.fround(v);
      const want = halfBits(f);
      if (toHalf(f) !== want) throw new Error(`toHalf(${f}) = 0x${toHalf(f).toString(16)}, want 0x${want.toString(16)} (${halfRound(f)})`);
    };
    // midpoints of adjacent positive halves (exact ties) and just either side of them
    for (let h = 0; h < 0x7bff; h++) {
      const mid = (halfValue(h) + halfValue(h + 1)) / 2;
      check(mid);
      check(mid * (1 + 2 ** -20));
      check(mid * (1 - 2 ** -20));
      check(-mid);
    }
    const r = prng(7);
    for (let i = 0; i < 20000; i++) check((r() - 0.5) * 2 ** Math.floor(r() * 50 - 30));
  });

  it('storageBytes: f32 copies the floats, f16 writes little-endian halves padded to 4 bytes', () => {
    const data = new Float32Array([1, -2, 65504]);
    expect(new Float32Array(storageBytes(data, 'f32').buffer)).toEqual(data);
    const b = storageBytes(data, 'f16');
    expect(b.byteLength).toBe(8);
    expect([...b]).toEqual([0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0, 0]);
  });

  it('storageBytes f16 (toHalf inlined for normal halves) gives toHalf bits for every value: random bit patterns, the normal range edges, ties, a view at an offset', () => {
    // a wrong exponent window, rounding or sign in the inlined path differs from toHalf on some of these
    const r = prng(11);
    const u = new Uint32Array(1 << 16);
    for (let i = 0; i < u.length; i++) u[i] = Math.floor(r() * 2 ** 32) >>> 0;
    const edges = [65504, 65519.996, 65520, 6.103515625e-5, 6.1e-5, 5.96e-8, -0, 0, 1 + 2 ** -11, 1 + 3 * 2 ** -11, -(2 - 2 ** -11), NaN, Infinity, -Infinity, 2 ** -14 * (1 - 2 ** -11)];
    const all = new Float32Array(u.length + edges.length + 1);
    all.set(new Float32Array(u.buffer));
    all.set(edges, u.length);
    const view = all.subarray(1); // byteOffset 4
    const got = new Uint16Array(storageBytes(view, 'f16').buffer);
    let bad = 0;
    for (let i = 0; i < view.length; i++) if (got[i] !== toHalf(view[i]!)) bad++;
    expect(bad).toBe(0);
  });
});
