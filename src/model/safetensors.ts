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

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Parse a safetensors file. `source` names the file in error messages. Every entry of the header is
 * checked (types, shape, byte range inside the file) before anything is read: a lying header gives a
 * 'bad-input' error, and no tensor is larger than the file.
 */
export function parseSafetensors(buf: Uint8Array, source = 'safetensors file'): StFile {
  if (buf.byteLength < 8) throw new DecoderError('bad-input', `${source}: ${buf.byteLength} bytes, too short for a safetensors header`);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  if (n <= 0 || 8 + n > buf.byteLength)
    throw new DecoderError('bad-input', `${source}: header length ${n} does not fit the file (${buf.byteLength} bytes); not a safetensors file?`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + n)));
  } catch (e) {
    throw new DecoderError('bad-input', `${source}: header is not valid JSON (${(e as Error).message.replace(/\s+/g, ' ')}); not a safetensors file?`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header))
    throw new DecoderError('bad-input', `${source}: header is JSON but not an object of tensors; not a safetensors file?`);
  const data = buf.subarray(8 + n);
  const tensors = new Map<string, StTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, v] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw new DecoderError('bad-input', `${source}: __metadata__ is not an object of strings`);
      metadata = (v ?? {}) as Record<string, string>;
      continue;
    }
    const entry = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    const what = `${source}: tensor ${JSON.stringify(name).slice(0, 80)}`;
    if (!entry || typeof entry !== 'object' || typeof entry.dtype !== 'string')
      throw new DecoderError('bad-input', `${what}: header entry needs dtype, shape and data_offsets`);
    const { dtype, shape, data_offsets: offs } = entry;
    if (!Array.isArray(shape) || shape.length > 8 || !shape.every(isCount))
      throw new DecoderError('bad-input', `${what}: shape ${JSON.stringify(shape)?.slice(0, 80)} is not a list of at most 8 non-negative integers`);
    if (!Array.isArray(offs) || offs.length !== 2 || !isCount(offs[0]) || !isCount(offs[1]) || offs[0] > offs[1])
      throw new DecoderError('bad-input', `${what}: data_offsets ${JSON.stringify(offs)?.slice(0, 80)} is not a byte range [begin, end]`);
    // Non-float tensors (e.g. int64 step counters in some checkpoints) are ignored unless asked for.
    if (!(dtype in BYTES)) continue;
    const [a, b] = offs as [number, number];
    // a float product: a lying shape overflows past the file size, it never wraps
    const numel = (shape as number[]).reduce((x, y) => x * y, 1);
    if (b - a !== numel * BYTES[dtype as StDtype] || b > data.byteLength)
      throw new DecoderError('bad-input', `${what} (${dtype} [${shape}]) has byte range ${a}..${b}, expected ${numel * BYTES[dtype as StDtype]} bytes inside ${data.byteLength}; file truncated or corrupt`);
    tensors.set(name, { name, dtype: dtype as StDtype, shape: shape as number[], bytes: data.subarray(a, b) });
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
