// toFloat32 (src/model/safetensors.ts) for the half-width dtypes of the Wan VAE files, against oracles
// written here: F16 for all 65536 bit patterns (normal, subnormal, +-0, +-inf, NaN) against the IEEE
// formula s * (1 + m/1024) * 2^(e-15) (subnormals s * m * 2^-24), compared as f32 bit patterns (NaN:
// both NaN); BF16 (the upper 16 bits of an f32) for random words at every alignment of the tensor's bytes
// (4-byte aligned: two values per 32-bit read; 2-byte and odd offsets) and an odd count (the last value
// on its own). A wrong exponent rebias, a lost sign, swapped halves of a 32-bit word or a dropped last
// value changes some bit pattern here.
import { describe, expect, it } from 'vitest';
import { toFloat32, type StTensor } from '../../src/model/safetensors';

const bits = (f: Float32Array) => new Uint32Array(f.buffer, f.byteOffset, f.length);

function halfOracle(h: number): number {
  const s = h & 0x8000 ? -1 : 1,
    e = (h >> 10) & 31,
    m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** `words` (16-bit) stored little-endian at byte offset `off` of a larger buffer. */
function tensorAt(dtype: 'F16' | 'BF16', words: Uint16Array, off: number): StTensor {
  const buf = new Uint8Array(off + 2 * words.length + 3);
  for (let i = 0; i < words.length; i++) {
    buf[off + 2 * i] = words[i]! & 0xff;
    buf[off + 2 * i + 1] = words[i]! >> 8;
  }
  return { dtype, shape: [words.length], bytes: buf.subarray(off, off + 2 * words.length) } as StTensor;
}

describe('toFloat32 of half-width tensors', () => {
  it('F16: all 65536 halves equal the IEEE formula, bit for bit, at aligned and odd offsets', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const want = Float32Array.from(all, halfOracle);
    for (const off of [0, 1]) {
      const got = toFloat32(tensorAt('F16', all, off));
      const g = bits(got),
        w = bits(want);
      const bad = g.findIndex((v, i) => v !== w[i] && !(Number.isNaN(got[i]) && Number.isNaN(want[i])));
      expect(bad === -1 ? 'equal' : `half 0x${bad.toString(16)}: 0x${g[bad]!.toString(16)} vs 0x${w[bad]!.toString(16)}`).toBe('equal');
    }
  });
  it('BF16: every value is its word << 16, for 4-byte aligned, 2-byte and odd offsets and an odd count', () => {
    let s = 7;
    const words = Uint16Array.from({ length: 1001 }, () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 16);
    for (const off of [0, 4, 2, 1]) {
      const got = bits(toFloat32(tensorAt('BF16', words, off)));
      const bad = got.findIndex((v, i) => v !== (words[i]! << 16) >>> 0);
      expect(bad, `offset ${off}`).toBe(-1);
      expect(got.length).toBe(words.length);
    }
  });
});
