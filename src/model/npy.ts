// Reader and writer of NumPy .npy files (format 1.0-3.0), little-endian float32 / float16 / float64, C order.
import { DecoderError } from '../gpu/errors';

export interface NpyArray {
  shape: number[];
  data: Float32Array;
}

function f16(h: number): number {
  const s = h & 0x8000 ? -1 : 1,
    e = (h >> 10) & 0x1f,
    m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/**
 * Parse a .npy file. Every count read from the header is checked against the file before anything is
 * allocated: a lying header (shape, header length, version) gives a 'bad-input' error, never an
 * allocation larger than the file.
 */
export function parseNpy(buf: Uint8Array, source = 'npy file'): NpyArray {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (buf.byteLength < 10 || magic.some((m, i) => buf[i] !== m)) throw new DecoderError('bad-input', `${source}: not a .npy file (missing \\x93NUMPY magic)`);
  const major = buf[6]!;
  if (major < 1 || major > 3) throw new DecoderError('bad-input', `${source}: .npy format version ${major}.${buf[7]} is not supported (1.0-3.0)`);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const hstart = major === 1 ? 10 : 12;
  if (buf.byteLength < hstart) throw new DecoderError('bad-input', `${source}: ${buf.byteLength} bytes, too short for a version ${major} .npy header`);
  const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  if (hstart + hlen > buf.byteLength) throw new DecoderError('bad-input', `${source}: header length ${hlen} runs past the end of the file (${buf.byteLength} bytes); truncated?`);
  const header = new TextDecoder().decode(buf.subarray(hstart, hstart + hlen));
  const oneLine = (t: string) => JSON.stringify(t.trim().slice(0, 200));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeStr = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeStr === undefined) throw new DecoderError('bad-input', `${source}: unreadable .npy header: ${oneLine(header)}`);
  if (fortran === 'True') throw new DecoderError('bad-input', `${source}: Fortran-order arrays are not supported; save with np.ascontiguousarray`);
  const dims = shapeStr
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length);
  if (dims.some((d) => !/^\d{1,15}$/.test(d))) throw new DecoderError('bad-input', `${source}: shape (${oneLine(shapeStr).slice(1, -1)}) is not a tuple of non-negative integers`);
  const shape = dims.map(Number);
  const size: Record<string, number> = { '<f4': 4, '<f2': 2, '<f8': 8 };
  const bytes = size[descr];
  if (!bytes) throw new DecoderError('bad-input', `${source}: dtype ${oneLine(descr)} not supported (expected little-endian float32 '<f4', float16 '<f2' or float64 '<f8')`);
  const off = hstart + hlen;
  // a float product: a lying shape overflows past the file size, it never wraps
  const n = shape.reduce((a, b) => a * b, 1);
  if (buf.byteLength - off < n * bytes) throw new DecoderError('bad-input', `${source}: shape [${shape}] needs ${n * bytes} data bytes, file has ${buf.byteLength - off}; truncated?`);
  const raw = buf.slice(off, off + n * bytes);
  let data: Float32Array;
  if (bytes === 4) data = new Float32Array(raw.buffer, 0, n);
  else if (bytes === 8) data = Float32Array.from(new Float64Array(raw.buffer, 0, n));
  else {
    const u = new Uint16Array(raw.buffer, 0, n);
    data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = f16(u[i]!);
  }
  return { shape, data };
}

/** The .npy v1.0 preamble (magic, header length, dict padded to 64 bytes) of a float32 C-order array. */
export function npyHeader(shape: number[]): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  return out;
}

export function writeNpy(shape: number[], data: Float32Array): Uint8Array {
  const head = npyHeader(shape);
  const out = new Uint8Array(head.length + data.byteLength);
  out.set(head);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), head.length);
  return out;
}
