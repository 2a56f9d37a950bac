// A Wan2.2-layout f32 safetensors file larger than 2.2 GiB, sparse on disk: the official decoder shapes
// (synthetic.ts decoderShapes) after one 671 MB `encoder.padding` tensor standing for the encoder half of
// a full checkpoint (never read), so the decoder tensors' offsets pass 2^31. The file is all zeros except
// the header and what `fill` writes into each decoder tensor (test/model/large-file.node.test.ts: a
// marker per tensor; test/e2e/large-weights.node.test.ts: random rows).
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { decoderShapes, OFFICIAL } from '../../src/model/synthetic';

/** The encoder half's bytes: one F32 tensor [160, 1024, 1024]. */
const PAD = 160 * 2 ** 22;

export interface SparseWan22 {
  /** bytes of the file */
  size: number;
  /** bytes of the header: its 8-byte length and the JSON (padded to 8) */
  headerBytes: number;
  /** bytes of every decoder tensor together */
  decoderBytes: number;
  /** the decoder tensors in file order: key, shape */
  shapes: [string, number[]][];
}

/**
 * Writes the file at `path`; `fill(write, key, shape, i)` writes decoder tensor `i` through
 * `write(bytes, at)` (`at`: the byte offset inside the tensor). Returns its layout.
 */
export function writeSparseWan22(path: string, fill: (write: (bytes: Uint8Array, at: number) => void, key: string, shape: number[], i: number) => void): SparseWan22 {
  const shapes = decoderShapes(OFFICIAL['2.2']);
  const header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }> = { 'encoder.padding': { dtype: 'F32', shape: [160, 1024, 1024], data_offsets: [0, PAD] } };
  let off = PAD;
  for (const [k, s] of shapes) {
    const n = s.reduce((a, b) => a * b, 1) * 4;
    header[k] = { dtype: 'F32', shape: s, data_offsets: [off, off + n] };
    off += n;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8) json += ' ';
  const headerBytes = 8 + json.length;
  const fd = openSync(path, 'w');
  try {
    const head = Buffer.alloc(headerBytes);
    head.writeBigUInt64LE(BigInt(json.length), 0);
    head.write(json, 8);
    writeSync(fd, head, 0, head.length, 0);
    ftruncateSync(fd, headerBytes + off);
    shapes.forEach(([k, s], i) => {
      const start = headerBytes + header[k]!.data_offsets[0];
      fill((bytes, at) => void writeSync(fd, bytes, 0, bytes.length, start + at), k, s, i);
    });
  } finally {
    closeSync(fd);
  }
  return { size: headerBytes + off, headerBytes, decoderBytes: off - PAD, shapes };
}
