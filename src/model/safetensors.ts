// Reader and writer of the .safetensors format (8-byte little-endian header length, JSON header, raw data).
// Reads F32 / F16 / BF16 / F64 tensors into Float32Array; keeps the header metadata.
import { DecoderError } from '../gpu/errors';

export type StDtype = 'F32' | 'F16' | 'BF16' | 'F64';

export interface StTensor {
  name: string;
  dtype: StDtype;
  shape: number[];
  /** Raw little-endian bytes of the tensor (a view into the file, not a copy). */
  bytes: Uint8Array;
}

export interface StFile {
  tensors: Map<string, StTensor>;
  metadata: Record<string, string>;
}

const BYTES: Record<StDtype, number> = { F32: 4, F16: 2, BF16: 2, F64: 8 };

/** Parse a safetensors file. `source` names the file in error messages. */
export function parseSafetensors(buf: Uint8Array, source = 'safetensors file'): StFile {
  if (buf.byteLength < 8) throw new DecoderError('bad-input', `${source}: ${buf.byteLength} bytes, too short for a safetensors header`);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  if (n <= 0 || 8 + n > buf.byteLength)
    throw new DecoderError('bad-input', `${source}: header length ${n} does not fit the file (${buf.byteLength} bytes); not a safetensors file?`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + n))) as Record<string, unknown>;
  } catch (e) {
    throw new DecoderError('bad-input', `${source}: header is not valid JSON (${(e as Error).message}); not a safetensors file?`);
  }
  const data = buf.subarray(8 + n);
  const tensors = new Map<string, StTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = (v ?? {}) as Record<string, string>;
      continue;
    }
    const { dtype, shape, data_offsets } = v as { dtype: string; shape: number[]; data_offsets: [number, number] };
    if (!(dtype in BYTES)) {
      // Non-float tensors (e.g. int64 step counters in some checkpoints) are ignored unless asked for.
      continue;
    }
    const [a, b] = data_offsets;
    const numel = shape.reduce((x, y) => x * y, 1);
    if (b - a !== numel * BYTES[dtype as StDtype] || b > data.byteLength)
      throw new DecoderError('bad-input', `${source}: tensor ${name} (${dtype} [${shape}]) has byte range ${a}..${b}, expected ${numel * BYTES[dtype as StDtype]} bytes inside ${data.byteLength}; file truncated or corrupt`);
    tensors.set(name, { name, dtype: dtype as StDtype, shape, bytes: data.subarray(a, b) });
  }
  return { tensors, metadata };
}

function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Decode a tensor's bytes to f32 values. */
export function toFloat32(t: StTensor): Float32Array {
  const n = t.shape.reduce((x, y) => x * y, 1);
  const b = t.bytes;
  // copy into an aligned buffer first: views into the file may be unaligned
  const aligned = new Uint8Array(b.byteLength);
  aligned.set(b);
  switch (t.dtype) {
    case 'F32':
      return new Float32Array(aligned.buffer, 0, n);
    case 'F64':
      return Float32Array.from(new Float64Array(aligned.buffer, 0, n));
    case 'F16': {
      const u = new Uint16Array(aligned.buffer, 0, n);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = f16ToF32(u[i]!);
      return out;
    }
    case 'BF16': {
      const u = new Uint16Array(aligned.buffer, 0, n);
      const out = new Uint32Array(n);
      for (let i = 0; i < n; i++) out[i] = u[i]! << 16;
      return new Float32Array(out.buffer);
    }
  }
}

/** Serialise f32 tensors (and metadata) as a safetensors file. */
export function writeSafetensors(tensors: Record<string, { shape: number[]; data: Float32Array }>, metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let off = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [off, off + t.data.byteLength] };
    off += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8) json += ' ';
  const hb = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + hb.byteLength + off);
  new DataView(out.buffer).setBigUint64(0, BigInt(hb.byteLength), true);
  out.set(hb, 8);
  let p = 8 + hb.byteLength;
  for (const t of Object.values(tensors)) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), p);
    p += t.data.byteLength;
  }
  return out;
}
