// Reader and writer of the .safetensors format (8-byte little-endian header length, JSON header, raw data).
// Reads F32 / F16 / BF16 / F64 tensors into Float32Array; keeps the header metadata.
import { DecoderError } from '../gpu/errors';
import type { CheckpointIndex, IndexedTensor, StDtype } from './checkpoint-index';
import type { WeightSource } from './weight-source';

export type { StDtype } from './checkpoint-index';

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
  /** tensors of a dtype the decoder does not read (I32, I64, U8, ...): name -> dtype, for error messages */
  skipped?: Map<string, string>;
}

const BYTES: Record<StDtype, number> = { F32: 4, F16: 2, BF16: 2, F64: 8 };

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The safetensors format's own limit on the JSON header (the reference implementation refuses more). */
const MAX_HEADER_BYTES = 100_000_000;

interface Header {
  /** JSON header length */
  n: number;
  entries: { name: string; dtype: StDtype; shape: number[]; begin: number; end: number }[];
  metadata: Record<string, string>;
  /** non-float tensors: name -> dtype */
  skipped: Map<string, string>;
}

/**
 * The header of a safetensors file of `total` bytes whose first bytes are `buf` (all of its header at
 * least). Every entry is checked (types, shape, byte range inside the file's data) before anything is
 * read: a lying header gives a 'bad-input' error, never a tensor larger than the file.
 */
function parseHeader(buf: Uint8Array, total: number, source: string): Header {
  if (total < 8 || buf.byteLength < 8) throw new DecoderError('bad-input', `${source}: ${total} bytes, too short for a safetensors header`);
  const n = Number(new DataView(buf.buffer, buf.byteOffset, 8).getBigUint64(0, true));
  if (n <= 0 || 8 + n > total || n > MAX_HEADER_BYTES) throw new DecoderError('bad-input', `${source}: header length ${n} does not fit the file (${total} bytes); not a safetensors file?`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + n)));
  } catch (e) {
    throw new DecoderError('bad-input', `${source}: header is not valid JSON (${(e as Error).message.replace(/\s+/g, ' ')}); not a safetensors file?`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) throw new DecoderError('bad-input', `${source}: header is JSON but not an object of tensors; not a safetensors file?`);
  const dataBytes = total - 8 - n;
  const out: Header = { n, entries: [], metadata: {}, skipped: new Map() };
  for (const [name, v] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw new DecoderError('bad-input', `${source}: __metadata__ is not an object of strings`);
      out.metadata = (v ?? {}) as Record<string, string>;
      continue;
    }
    const entry = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    const what = `${source}: tensor ${/^[\x21-\x7e]{1,120}$/.test(name) ? name : JSON.stringify(name).slice(0, 80)}`;
    if (!entry || typeof entry !== 'object' || typeof entry.dtype !== 'string') throw new DecoderError('bad-input', `${what}: header entry needs dtype, shape and data_offsets`);
    const { dtype, shape, data_offsets: offs } = entry;
    if (!Array.isArray(shape) || shape.length > 8 || !shape.every(isCount))
      throw new DecoderError('bad-input', `${what}: shape ${JSON.stringify(shape)?.slice(0, 80)} is not a list of at most 8 non-negative integers`);
    if (!Array.isArray(offs) || offs.length !== 2 || !isCount(offs[0]) || !isCount(offs[1]) || offs[0] > offs[1])
      throw new DecoderError('bad-input', `${what}: data_offsets ${JSON.stringify(offs)?.slice(0, 80)} is not a byte range [begin, end]`);
    // Non-float tensors (e.g. int64 step counters in some checkpoints) are ignored unless asked for.
    if (!(dtype in BYTES)) {
      out.skipped.set(name, dtype);
      continue;
    }
    const [begin, end] = offs as [number, number];
    // a float product: a lying shape overflows past the file size, it never wraps
    const numel = (shape as number[]).reduce((x, y) => x * y, 1);
    if (end - begin !== numel * BYTES[dtype as StDtype] || end > dataBytes)
      throw new DecoderError(
        'bad-input',
        `${what} (${dtype} [${shape}]) has byte range ${begin}..${end}, expected ${numel * BYTES[dtype as StDtype]} bytes inside ${dataBytes}; file truncated or corrupt`,
      );
    out.entries.push({ name, dtype: dtype as StDtype, shape: shape as number[], begin, end });
  }
  return out;
}

/** Parse a safetensors file. `source` names the file in error messages (see parseHeader for the checks). */
export function parseSafetensors(buf: Uint8Array, source = 'safetensors file'): StFile {
  const h = parseHeader(buf, buf.byteLength, source);
  const data = buf.subarray(8 + h.n);
  const tensors = new Map<string, StTensor>();
  for (const e of h.entries) tensors.set(e.name, { name: e.name, dtype: e.dtype, shape: e.shape, bytes: data.subarray(e.begin, e.end) });
  return { tensors, metadata: h.metadata, skipped: h.skipped };
}

/**
 * The tensors of a safetensors file at `src`, located, not read: 8 bytes, then the header (checked as
 * parseSafetensors checks it). Any size: offsets are numbers up to 2^53.
 */
export async function safetensorsIndex(src: WeightSource): Promise<CheckpointIndex> {
  if (src.size < 8) throw new DecoderError('bad-input', `${src.name}: ${src.size} bytes, too short for a safetensors header`);
  const head = await src.read(0, 8);
  const n = Number(new DataView(head.buffer, head.byteOffset, 8).getBigUint64(0, true));
  if (n <= 0 || 8 + n > src.size || n > MAX_HEADER_BYTES) throw new DecoderError('bad-input', `${src.name}: header length ${n} does not fit the file (${src.size} bytes); not a safetensors file?`);
  const buf = new Uint8Array(8 + n);
  buf.set(head);
  buf.set(await src.read(8, n), 8);
  const h = parseHeader(buf, src.size, src.name);
  const tensors = new Map<string, IndexedTensor>();
  for (const e of h.entries) tensors.set(e.name, { name: e.name, dtype: e.dtype, shape: e.shape, offset: 8 + h.n + e.begin, byteLength: e.end - e.begin });
  return { format: 'safetensors', tensors, skipped: h.skipped, metadata: h.metadata };
}

/**
 * For a download (weights from a URL): check a safetensors file from its first bytes and its size (the
 * response's Content-Length) before the body is read. `prefix`: the bytes received so far. Returns
 * `{ need }` while the header is incomplete (read at least `need` bytes, then call again), else the
 * number of float tensors and the bytes they take. Throws 'bad-input' when the header does not parse,
 * places a tensor beyond `total`, or the file is not a safetensors file; the caller never has to hold
 * more than the header (at most 100 MB, and never more than `total`) to know.
 */
export function checkSafetensorsPrefix(prefix: Uint8Array, total: number, source = 'safetensors file'): { need: number } | { tensors: number; dataBytes: number } {
  if (!isCount(total)) throw new DecoderError('bad-input', `${source}: size ${total} (Content-Length) is not a byte count`);
  if (total < 8) throw new DecoderError('bad-input', `${source}: ${total} bytes (Content-Length), too short for a safetensors header`);
  if (prefix.byteLength < 8) return { need: 8 };
  const n = Number(new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true));
  if (n > 0 && 8 + n <= total && n <= MAX_HEADER_BYTES && prefix.byteLength < 8 + n) return { need: 8 + n };
  const h = parseHeader(prefix, total, source);
  return { tensors: h.entries.length, dataBytes: h.entries.reduce((m, e) => Math.max(m, e.end), 0) };
}

function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** The f32 bits of IEEE half `h`: integer work for normal halves (exact), f16ToF32 for zeros, subnormals, inf and NaN. */
const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);
function halfToF32Bits(h: number): number {
  const e = h & 0x7c00;
  if (e !== 0 && e !== 0x7c00) return ((h & 0x8000) << 16) | ((e + 0x1c000) << 13) | ((h & 0x3ff) << 13);
  scratch[0] = f16ToF32(h);
  return scratchBits[0]!;
}

/** `b` as 16-bit words (a view when `b` is 2-byte aligned, else a copy: views into the file may be unaligned). */
function words16(b: Uint8Array, n: number): Uint16Array {
  if (b.byteOffset % 2 === 0) return new Uint16Array(b.buffer, b.byteOffset, n);
  const aligned = new Uint8Array(2 * n);
  aligned.set(b.subarray(0, 2 * n));
  return new Uint16Array(aligned.buffer);
}

/**
 * Decode a tensor's bytes to f32 values. F16 / BF16 (the Wan VAE files): integer work on the bits, no
 * aligned copy of the file's bytes when they are aligned; BF16 two values per 32-bit read. Same values as
 * before (F16: every half checked against f16ToF32, test/model/safetensors-convert.test.ts); 73 M values
 * (Wan2.1) on the 2-core build machine, loaded, 2026-12-01: BF16 1.39-1.44 -> 0.88-0.98 s, F16 4.6-4.8 -> 1.07-1.20 s.
 * `into` (at least the tensor's element count): the values are written there, at its start, and a view
 * of them returned (a reused buffer: lazy weights convert every 16-bit tensor into one); else a new array.
 */
export function toFloat32(t: StTensor, into?: Float32Array): Float32Array {
  const n = t.shape.reduce((x, y) => x * y, 1);
  const b = t.bytes;
  if (into && into.length < n) throw new DecoderError('internal', `${t.name}: ${n} values do not fit the ${into.length} of the conversion buffer`);
  switch (t.dtype) {
    case 'F32':
    case 'F64': {
      if (into) {
        // an aligned copy of the bytes straight into `into` (F32), or of the f64 values converted
        if (t.dtype === 'F32') new Uint8Array(into.buffer, into.byteOffset, 4 * n).set(b.subarray(0, 4 * n));
        else if (b.byteOffset % 8 === 0) into.set(new Float64Array(b.buffer, b.byteOffset, n));
        else {
          const v = new DataView(b.buffer, b.byteOffset, 8 * n);
          for (let i = 0; i < n; i++) into[i] = v.getFloat64(8 * i, true);
        }
        return into.subarray(0, n);
      }
      // copy into an aligned buffer first: views into the file may be unaligned
      const aligned = new Uint8Array(b.byteLength);
      aligned.set(b);
      return t.dtype === 'F32' ? new Float32Array(aligned.buffer, 0, n) : Float32Array.from(new Float64Array(aligned.buffer, 0, n));
    }
    case 'F16': {
      const u = words16(b, n);
      const out = into ? new Uint32Array(into.buffer, into.byteOffset, n) : new Uint32Array(n);
      for (let i = 0; i < n; i++) out[i] = halfToF32Bits(u[i]!);
      return new Float32Array(out.buffer, out.byteOffset, n);
    }
    case 'BF16': {
      const out = into ? new Uint32Array(into.buffer, into.byteOffset, n) : new Uint32Array(n);
      const pairs = n >> 1;
      if (b.byteOffset % 4 === 0) {
        // two little-endian bf16 per 32-bit word: the low one is value 2i, the high one value 2i + 1
        const w = new Uint32Array(b.buffer, b.byteOffset, pairs);
        for (let i = 0; i < pairs; i++) {
          const x = w[i]!;
          out[2 * i] = x << 16;
          out[2 * i + 1] = x & 0xffff0000;
        }
        if (n & 1) out[n - 1] = (b[2 * n - 2]! | (b[2 * n - 1]! << 8)) << 16;
      } else {
        const u = words16(b, n);
        for (let i = 0; i < n; i++) out[i] = u[i]! << 16;
      }
      return new Float32Array(out.buffer, out.byteOffset, n);
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
