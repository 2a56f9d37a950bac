// The CLI's output by the name given to --out: .gif (animated), .png (contact sheet, or the frame
// itself for a one-frame video), DIR/ (a folder of PNG frames), .mp4 / .webm / .webp (through ffmpeg),
// .npy (float32 [3, F, H, W]). resolveOutput checks the name (and ffmpeg) before any decoding.
// Every kind is written frame by frame as the decoder delivers them (openOutput: CPU memory constant in
// the video length): .png keeps only the (at most 16) frames its contact sheet shows; .gif spills each
// frame's RGBA to a file beside the output and keeps the 8 frames its palette comes from, then encodes.
// Backpressure: frame() returns a Promise that settles when the frame is written (a PNG encoded on the
// thread pool and renamed into place, ffmpeg's stdin drained): the decoder's onFrame returns it, so a
// slow disk or encoder slows the decode (framesInFlight frames at most) instead of queueing frames.
import { existsSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { DecoderError } from '../../gpu/errors';
import { findFfmpeg } from './ffmpeg';
import { frameRgb, type Video } from './frames';

import type { FrameSink, OutputTarget, SinkContext, WriteOptions } from './sink';
import { openFfmpegSink } from './sink-ffmpeg';
import { openFramesSink } from './sink-frames';
import { openGifSink } from './sink-gif';
import { openNpySink } from './sink-npy';
import { openPngSink } from './sink-png';

export { ioProblem, type FrameSink, type OutputTarget, type WriteOptions } from './sink';

export const OUTPUT_KINDS = '.gif, .png (contact sheet), DIR/ (PNG frames), .mp4, .webm, .webp (ffmpeg), .npy';

/** What `--out path` writes; throws a one-line DecoderError for an unknown extension or a missing ffmpeg. */
export function resolveOutput(path: string, env: NodeJS.ProcessEnv = process.env): OutputTarget {
  const isDir = /[\\/]$/.test(path) || (existsSync(path) && statSync(path).isDirectory());
  if (isDir) return { kind: 'frames', path };
  const ext = extname(path).toLowerCase().slice(1);
  if (ext === 'npy' || ext === 'gif' || ext === 'png') return { kind: ext, path };
  if (ext === 'mp4' || ext === 'webm' || ext === 'webp') return { kind: 'ffmpeg', path, format: ext, ffmpeg: findFfmpeg(ext, env) };
  if (!ext) return { kind: 'frames', path };
  throw new DecoderError('bad-input', `--out ${path}: unknown extension '.${ext}' (written: ${OUTPUT_KINDS})`);
}

/** Open `t` for a video of `size`; the file appears under its name only at finish(). */
export function openOutput(t: OutputTarget, size: { frames: number; height: number; width: number }, o: WriteOptions): FrameSink {
  const { frames, height: H, width: W } = size;
  const n = H * W;
  const seen = new Uint8Array(frames);
  let count = 0;
  const accept = (index: number, rgb: Float32Array) => {
    if (!Number.isInteger(index) || index < 0 || index >= frames || seen[index])
      throw new DecoderError('bad-input', `cannot write ${t.path}: frame ${index} arrived ${seen[index] ? 'twice' : `outside 0..${frames - 1}`}`);
    if (rgb.length !== 3 * n) throw new DecoderError('bad-input', `cannot write ${t.path}: frame ${index} has ${rgb.length} values, expected 3x${H}x${W}`);
    seen[index] = 1;
    count++;
  };
  const complete = () => {
    if (count !== frames) throw new DecoderError('bad-input', `cannot write ${t.path}: ${count} of ${frames} frames arrived`);
  };
  const tick = (d: number) => o.onFrame?.(d, frames);
  const c: SinkContext = { frames, H, W, n, size, count: () => count, accept, complete, tick };
  switch (t.kind) {
    case 'frames':
      return openFramesSink(t, o, c);
    case 'npy':
      return openNpySink(t, o, c);
    case 'ffmpeg':
      return openFfmpegSink(t, o, c);
    case 'png':
      return openPngSink(t, o, c);
    case 'gif':
      return openGifSink(t, o, c);
  }
}

/** Write the collected video `v` as `t` says (the streamed writer fed one frame at a time); returns the files written. */
export async function writeOutput(t: OutputTarget, v: Video, o: WriteOptions): Promise<{ files: number; description: string }> {
  const sink = openOutput(t, v, o);
  try {
    for (let f = 0; f < v.frames; f++) await sink.frame(f, frameRgb(v, f));
  } catch (e) {
    await sink.abort();
    throw e;
  }
  return await sink.finish();
}
