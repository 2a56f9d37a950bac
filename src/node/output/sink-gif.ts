// The .gif output: frames spilled beside it, encoded at finish (a sink of openOutput, write.ts).
import { closeSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { rgbaOf } from './frames';
import { openGifSpill, type GifSpill } from './gif';

import { cannotWrite, done, ensureDir, tempName, type FrameSink, type OutputTarget, type SinkContext, type WriteOptions } from './sink';

export function openGifSink(t: OutputTarget & { kind: 'npy' | 'gif' | 'png' }, o: WriteOptions, c: SinkContext): FrameSink {
  const { frames, H, W, n, accept, complete, tick } = c;
  // RGBA frames spill to a file beside the output (the 8 palette frames stay in memory); encoded at finish
  const spillName = tempName(t.path, '.rgba');
  let spill: GifSpill;
  try {
    ensureDir(dirname(t.path) || '.');
    spill = openGifSpill(spillName, c.size, o.fps);
  } catch (e) {
    throw cannotWrite(t.path, e);
  }
  const abort = async () => spill.abort();
  return {
    frame(index, rgb) {
      accept(index, rgb);
      try {
        spill.frame(index, rgbaOf(rgb, n));
      } catch (e) {
        throw cannotWrite(t.path, e);
      }
      return done;
    },
    async finish() {
      const tmp = tempName(t.path);
      let fd: number | undefined;
      try {
        complete();
        fd = openSync(tmp, 'w');
        spill.encode(fd, tick);
        closeSync(fd);
        fd = undefined;
        renameSync(tmp, t.path);
      } catch (e) {
        if (fd !== undefined) closeSync(fd);
        rmSync(tmp, { force: true });
        spill.abort();
        throw cannotWrite(t.path, e);
      }
      return { files: 1, description: `animated GIF, ${frames} frames at ${o.fps} fps, ${W}x${H}` };
    },
    abort,
  };
}
