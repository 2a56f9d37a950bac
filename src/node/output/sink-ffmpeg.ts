// The .mp4 / .webm / .webp output: frames piped to ffmpeg (a sink of openOutput, write.ts).
import { renameSync, rmSync } from 'node:fs';
import { openFfmpeg, type FfmpegPipe } from './ffmpeg';
import { rgbaOf } from './frames';

import { cannotWrite, done, probeWritable, tempName, type FrameSink, type OutputTarget, type SinkContext, type WriteOptions } from './sink';

export function openFfmpegSink(t: Extract<OutputTarget, { kind: 'ffmpeg' }>, o: WriteOptions, c: SinkContext): FrameSink {
  const { frames, H, W, n, accept, complete, tick } = c;
  // ffmpeg takes frames in order: one that arrives early waits here for those before it
  const tmp = tempName(t.path);
  let pipe: FfmpegPipe;
  probeWritable(t.path); // ffmpeg would say it only after the decode
  try {
    pipe = openFfmpeg(t.ffmpeg, t.format, { width: W, height: H }, o.fps, tmp, tick, t.path);
  } catch (e) {
    throw cannotWrite(t.path, e);
  }
  const early = new Map<number, Float32Array>();
  let next = 0;
  const abort = async () => {
    early.clear();
    const killed = pipe.kill(); // SIGKILL sent now; the removal below does not wait for the exit
    rmSync(tmp, { force: true });
    await killed;
  };
  return {
    frame(index, rgb) {
      accept(index, rgb);
      early.set(index, rgb);
      let taken: Promise<void> = done; // an early frame is held (in order) until those before it arrive
      for (let f = early.get(next); f; f = early.get(next)) {
        early.delete(next++);
        taken = pipe.write(rgbaOf(f, n));
      }
      return taken; // settles when ffmpeg's stdin has taken the frame (drained)
    },
    async finish() {
      try {
        complete();
        await pipe.end();
        renameSync(tmp, t.path);
      } catch (e) {
        await abort();
        throw cannotWrite(t.path, e);
      }
      return { files: 1, description: `${t.format} through ${t.ffmpeg}, ${frames} frames at ${o.fps} fps` };
    },
    abort,
  };
}
