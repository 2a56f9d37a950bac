// float32 -> IEEE half conversion (round to nearest even) for f16 storage uploads.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalf(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1),
      half = 1 << (shift - 1);
    if (rem > half || (rem === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
  return sign | h;
}

/** Bytes of `data` in storage precision `elem`, padded to a multiple of 4 bytes. */
export function storageBytes(data: Float32Array, elem: 'f32' | 'f16'): Uint8Array<ArrayBuffer> {
  if (elem === 'f32') return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) as Uint8Array<ArrayBuffer>;
  const out = new Uint16Array(data.length + (data.length & 1));
  // toHalf inlined for normal halves (biased f32 exponent 113..142: most weights and activations), on the
  // bits of `data` (no per-value scratch write): same bits; ~4x faster on the 530 M weights of Wan2.2
  const u = new Uint32Array(data.buffer, data.byteOffset, data.length);
  for (let i = 0; i < u.length; i++) {
    const x = u[i]!;
    const exp = (x >>> 23) & 0xff;
    if (exp > 112 && exp < 143) {
      let h = ((x >>> 16) & 0x8000) | ((exp - 112) << 10) | ((x >>> 13) & 0x3ff);
      const rem = x & 0x1fff;
      if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
      out[i] = h;
    } else out[i] = toHalf(data[i]!);
  }
  return new Uint8Array(out.buffer);
}

/** The float value of IEEE half bits `h` (subnormals, infinities and NaN included). */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}
