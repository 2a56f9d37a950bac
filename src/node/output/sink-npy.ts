// The .npy output: float32 [3, F, H, W] (a sink of openOutput, write.ts).
import { closeSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { npyHeader } from '../../model/npy';

import { cannotWrite, done, ensureDir, tempName, type FrameSink, type OutputTarget, type SinkContext, type WriteOptions } from './sink';

export function openNpySink(t: OutputTarget & { kind: 'npy' | 'gif' | 'png' }, o: WriteOptions, c: SinkContext): FrameSink {
  const { frames, H, W, n, accept, complete, tick } = c;
  const header = npyHeader([3, frames, H, W]);
  const tmp = tempName(t.path);
  let fd: number | undefined;
  try {
    ensureDir(dirname(t.path) || '.');
    fd = openSync(tmp, 'w');
    for (let o = 0; o < header.length;) o += writeSync(fd, header, o, header.length - o, o);
    ftruncateSync(fd, header.length + 4 * 3 * frames * n); // the full size up front; each frame's planes land at their offsets
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw cannotWrite(t.path, e);
  }
  const abort = async () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    rmSync(tmp, { force: true });
  };
  return {
    frame(index, rgb) {
      accept(index, rgb);
      try {
        const bytes = new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.byteLength);
        // layout [3, F, H, W]: plane c of frame f at ((c·F + f)·H·W) floats after the header
        for (let c = 0; c < 3; c++) {
          const plane = bytes.subarray(4 * c * n, 4 * (c + 1) * n);
          const at = header.length + 4 * (c * frames + index) * n;
          for (let o = 0; o < plane.length;) o += writeSync(fd!, plane, o, plane.length - o, at + o);
        }
      } catch (e) {
        throw cannotWrite(t.path, e);
      }
      tick(c.count());
      return done; // written when this returns (synchronous writes: the disk's pace is the decode's)
    },
    async finish() {
      try {
        complete();
        closeSync(fd!);
        fd = undefined;
        renameSync(tmp, t.path);
      } catch (e) {
        await abort();
        throw cannotWrite(t.path, e);
      }
      return { files: 1, description: `float32 [3, ${frames}, ${H}, ${W}] in [-1, 1]` };
    },
    abort,
  };
}
