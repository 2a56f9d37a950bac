// The .png output: the contact sheet (or the one frame), from the frames it shows (a sink of openOutput, write.ts).
import { contactSheet, frameRgba, sheetFrames, type Video } from './frames';
import { encodePng } from './png';

import { done, probeWritable, writeAtomic, type FrameSink, type OutputTarget, type SinkContext, type WriteOptions } from './sink';

export function openPngSink(t: OutputTarget & { kind: 'npy' | 'gif' | 'png' }, o: WriteOptions, c: SinkContext): FrameSink {
  const { frames, H, W, n, accept, complete } = c;
  // a contact sheet shows at most 16 frames: only those are kept (a one-frame video: that frame)
  probeWritable(t.path); // written at finish: an unwritable name is said before the decode
  const keep = sheetFrames(frames);
  const slot = new Map(keep.map((f, k) => [f, k]));
  const kept = new Float32Array(3 * keep.length * n);
  return {
    frame(index, rgb) {
      accept(index, rgb);
      const k = slot.get(index);
      if (k !== undefined) for (let c = 0; c < 3; c++) kept.set(rgb.subarray(c * n, (c + 1) * n), (c * keep.length + k) * n);
      return done;
    },
    async finish() {
      complete();
      const sub: Video = { video: kept, frames: keep.length, height: H, width: W };
      if (frames === 1) {
        writeAtomic(t.path, encodePng(frameRgba(sub, 0), W, H));
        return { files: 1, description: `PNG ${W}x${H} (the only frame)` };
      }
      const s = contactSheet(sub); // its frames are all of sub's, in order: the sheet of the whole video
      writeAtomic(t.path, encodePng(s.rgba, s.width, s.height));
      return { files: 1, description: `contact sheet ${s.width}x${s.height}, ${keep.length} of ${frames} frames (${keep.join(', ')}), ${s.cols} per row` };
    },
    abort: async () => undefined, // nothing is written before finish
  };
}
