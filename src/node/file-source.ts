// A weight source over a file on disk (Node): positioned reads of a file descriptor, synchronous and
// asynchronous, any file size (offsets up to 2^53). The descriptor stays open while the decoder may read
// weights again (a replan builds a new GPU decoder from the same file); close() ends it.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DecoderError } from '../gpu/errors';
import { checkRange, type WeightSource } from '../model/weight-source';
import { ioProblem } from './output/sink';

export interface FileSource extends WeightSource {
  close(): void;
}

/** `what` names the file's role in the open errors ('cannot read weights file X: no such file or folder (ENOENT)'). */
export function fileSource(path: string, what = 'weights', name = path): FileSource {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new DecoderError('bad-input', `cannot read ${what} file ${name}: ${ioProblem(e)}`);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new DecoderError('bad-input', `cannot read ${what} file ${name}: ${ioProblem({ code: st.isDirectory() ? 'EISDIR' : 'EINVAL' })}`);
  }
  // `length` bytes at `offset` read into the start of `into`, else a new buffer (readSync reads at most 2 GiB - 1 per call: a loop)
  const fill = (offset: number, length: number, into?: ArrayBuffer): Uint8Array<ArrayBuffer> => {
    checkRange(src, offset, length);
    const out = into ? new Uint8Array(into, 0, length) : new Uint8Array(length);
    for (let at = 0; at < out.byteLength;) {
      const n = readSync(fd, out, at, Math.min(out.byteLength - at, 2 ** 30), offset + at);
      if (n <= 0) throw new DecoderError('bad-input', `${name}: read ended at byte ${offset + at} of ${src.size}; the file shrank?`);
      at += n;
    }
    src.bytesRead += out.byteLength;
    return out;
  };
  const src: FileSource = {
    name,
    size: st.size,
    bytesRead: 0,
    readSync: (offset, length) => fill(offset, length),
    read: async (offset, length) => src.readSync!(offset, length),
    // into the caller's reused buffer (the staged upload's reads: no buffer per tensor)
    readInto: async (offset, length, into) => fill(offset, length, into),
    close: () => closeSync(fd),
  };
  return src;
}
