// File formats and statistics: .npy written by writeNpy and read by parseNpy (float32 round trip; float16 /
// float64 / format 2.0 files written here byte by byte as NumPy lays them out), parseStats, the wrapper
// prefixes of checkpoint keys (`vae.`, `model.`, `first_stage_model.`), and officialStats against the
// values published in ../shared/reference/wan-vae-spec.md (parsed from the spec's text at test time, so
// a typo in src/model/stats.ts fails here; skipped without ../shared, failing under CI).
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { inferConfig } from '../../src/model/config';
import { parseLatents, parseStats } from '../../src/model/latents';
import { parseNpy, writeNpy } from '../../src/model/npy';
import { writeSafetensors } from '../../src/model/safetensors';
import { officialStats } from '../../src/model/stats';
import { syntheticWeights } from '../../src/model/synthetic';
import { loadWeights } from '../../src/model/weights';
import { readSharedFile } from '../helpers/files';
import { halfBits } from '../helpers/half';
import { needShared } from '../helpers/need';

/** A .npy file of `descr` with `payload` bytes, header padded as NumPy pads it (format `major`). */
function npyBytes(descr: string, shape: number[], payload: Uint8Array, major = 1): Uint8Array {
  const pre = major === 1 ? 10 : 12;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat((64 - ((pre + header.length + 1) % 64)) % 64) + '\n';
  const out = new Uint8Array(pre + header.length + payload.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const dv = new DataView(out.buffer);
  if (major === 1) dv.setUint16(8, header.length, true);
  else dv.setUint32(8, header.length, true);
  out.set(new TextEncoder().encode(header), pre);
  out.set(payload, pre + header.length);
  return out;
}

describe('.npy', () => {
  it('writeNpy -> parseNpy round-trips shape and float32 values exactly; the header is 64-byte aligned as NumPy writes it', () => {
    const data = Float32Array.from({ length: 2 * 3 * 5 }, (_, i) => Math.sin(i) * 1e3 + i / 7);
    const bytes = writeNpy([2, 3, 5], data);
    const hlen = new DataView(bytes.buffer, bytes.byteOffset).getUint16(8, true);
    expect((10 + hlen) % 64).toBe(0);
    expect(new TextDecoder().decode(bytes.subarray(10, 10 + hlen))).toMatch(/^\{'descr': '<f4', 'fortran_order': False, 'shape': \(2, 3, 5\), \}\s*\n$/);
    const back = parseNpy(bytes, 'rt.npy');
    expect(back.shape).toEqual([2, 3, 5]);
    expect(back.data).toEqual(data);
    expect(parseNpy(writeNpy([4], data.subarray(0, 4))).shape).toEqual([4]); // 1-D: the '(4,)' tuple
  });

  it('float16 and float64 files, format 2.0 (4-byte header length)', () => {
    const v = [1, -2, 0.5, 65504, 2 ** -24, 0.1];
    const h = new Uint16Array(v.map(halfBits));
    const f16 = parseNpy(npyBytes('<f2', [2, 3], new Uint8Array(h.buffer)), 'h.npy');
    expect([...f16.data]).toEqual([1, -2, 0.5, 65504, 2 ** -24, Math.fround(0.0999755859375)]);
    const d = new Float64Array(v);
    const f64 = parseNpy(npyBytes('<f8', [6], new Uint8Array(d.buffer), 2), 'd.npy');
    expect([...f64.data]).toEqual(v.map(Math.fround));
  });

  it('one-line errors name the file: not npy, big-endian or integer dtype, Fortran order, truncated data', () => {
    expect(() => parseNpy(new TextEncoder().encode('hello world!'), 'x.npy')).toThrow(/x\.npy: not a \.npy file/);
    expect(() => parseNpy(npyBytes('>f4', [1], new Uint8Array(4)), 'be.npy')).toThrow(/be\.npy: dtype "?>f4"? not supported/);
    expect(() => parseNpy(npyBytes('<i4', [1], new Uint8Array(4)), 'int.npy')).toThrow(/int\.npy: dtype "?<i4/);
    const fortran = npyBytes('<f4', [2, 2], new Uint8Array(16));
    const at = new TextDecoder('latin1').decode(fortran).indexOf('False');
    fortran.set(new TextEncoder().encode('True '), at);
    expect(() => parseNpy(fortran, 'f.npy')).toThrow(/f\.npy: Fortran-order/);
    const full = writeNpy([4, 4], new Float32Array(16));
    expect(() => parseNpy(full.subarray(0, full.length - 4), 't.npy')).toThrow(/t\.npy: shape \[4,4\] needs 64 data bytes, file has 60/);
    for (const bad of [() => parseNpy(new Uint8Array(3), 'short.npy')]) expect(bad).toThrow(DecoderError);
  });
});

describe('parseStats', () => {
  it("reads '@mean' / '@std' (the golden files) and plain 'mean' / 'std'", () => {
    const mean = Float32Array.from({ length: 16 }, (_, i) => i / 10),
      std = Float32Array.from({ length: 16 }, (_, i) => 1 + i);
    const at = parseStats(writeSafetensors({ '@mean': { shape: [16], data: mean }, '@std': { shape: [16], data: std } }), 's.safetensors');
    expect(at.mean).toEqual(mean);
    expect(at.std).toEqual(std);
    const plain = parseStats(writeSafetensors({ mean: { shape: [16], data: mean }, std: { shape: [16], data: std } }), 'p.safetensors');
    expect(plain.std).toEqual(std);
  });

  it('errors: a missing tensor, a non-positive std', () => {
    expect(() => parseStats(writeSafetensors({ '@mean': { shape: [2], data: new Float32Array(2) } }), 'm.safetensors')).toThrow(/m\.safetensors: latent statistics need tensors '@mean' and '@std'/);
    const zero = writeSafetensors({ '@mean': { shape: [2], data: new Float32Array(2) }, '@std': { shape: [2], data: new Float32Array([1, 0]) } });
    expect(() => parseStats(zero, 'z.safetensors')).toThrow(/z\.safetensors: '@std' must be positive everywhere/);
  });

  it('latents in .npy keep their values through parseLatents (no statistics applied there)', () => {
    const data = Float32Array.from({ length: 16 * 2 * 3 * 4 }, (_, i) => i - 50);
    const l = parseLatents(writeNpy([16, 2, 3, 4], data), 'l.npy');
    expect(l.data).toEqual(data);
    expect(l.shape).toEqual([16, 2, 3, 4]);
  });
});

describe('checkpoint key prefixes', () => {
  const w = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 2 });
  const tensors = Object.fromEntries([...w.map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]));
  it.each(['vae.', 'model.', 'first_stage_model.'])('%s-prefixed keys load to the original names with the same values', (prefix) => {
    const pre = Object.fromEntries(Object.entries(tensors).map(([k, t]) => [`${prefix}${k}`, t]));
    const loaded = loadWeights(writeSafetensors(pre), `${prefix}safetensors`);
    expect([...loaded.map.keys()].sort()).toEqual(Object.keys(tensors).sort());
    for (const [k, t] of loaded.map) expect(t.data).toEqual(tensors[k]!.data);
    expect(inferConfig(loaded)).toEqual(inferConfig(w));
  });
  it('an unknown prefix is not guessed: the decoder tensors are reported missing', () => {
    const pre = Object.fromEntries(Object.entries(tensors).map(([k, t]) => [`unet.${k}`, t]));
    expect(() => inferConfig(loadWeights(writeSafetensors(pre), 'u.safetensors'))).toThrow(DecoderError);
  });
});

/** The `mean = [...]` and `std = [...]` lists after `heading` in the spec's text. */
function specList(text: string, heading: RegExp, name: 'mean' | 'std'): number[] {
  const at = text.search(heading);
  if (at < 0) throw new Error(`wan-vae-spec.md: no section matching ${heading}`);
  const m = new RegExp(`${name}\\s*=\\s*\\[([^\\]]*)\\]`).exec(text.slice(at));
  if (!m) throw new Error(`wan-vae-spec.md: no ${name} list after ${heading}`);
  return m[1]!.split(',').map((s) => Number(s.trim()));
}

describe('officialStats', () => {
  it.for([
    [16, /^Wan2\.1 \(16 channels/m],
    [48, /^Wan2\.2 \(48 channels/m],
  ] as const)('z = %i equals the published statistics (shared/reference/wan-vae-spec.md)', async ([z, heading], ctx) => {
    await needShared(ctx);
    const text = new TextDecoder().decode((await readSharedFile('reference/wan-vae-spec.md'))!);
    const mean = specList(text, heading, 'mean'),
      std = specList(text, heading, 'std');
    expect(mean).toHaveLength(z);
    expect(std).toHaveLength(z);
    const s = officialStats(z);
    expect([...s.mean]).toEqual(mean.map(Math.fround));
    expect([...s.std]).toEqual(std.map(Math.fround));
  });
  it('other channel counts are refused with the reason', () => {
    expect(() => officialStats(4)).toThrow(/no official latent statistics for z=4 channels/);
  });
});
