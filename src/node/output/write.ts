// The CLI's output by the name given to --out: .gif (animated), .png (contact sheet, or the frame
// itself for a one-frame video), DIR/ (a folder of PNG frames), .mp4 / .webm / .webp (through ffmpeg),
// .npy (float32 [3, F, H, W]). resolveOutput checks the name (and ffmpeg) before any decoding.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { DecoderError } from '../../gpu/errors';
import { npyHeader } from '../../model/npy';
import { findFfmpeg, writeWithFfmpeg, type FfmpegFormat } from './ffmpeg';
import { contactSheet, frameRgba, type Video } from './frames';
import { encodeGif } from './gif';
import { encodePng } from './png';

export type OutputTarget =
  | { kind: 'npy' | 'gif' | 'png'; path: string }
  | { kind: 'frames'; path: string }
  | { kind: 'ffmpeg'; path: string; format: FfmpegFormat; ffmpeg: string };

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

/**
 * Write `parts` one after the other to a temporary name beside `path`, then rename: a failed or interrupted
 * write leaves no half file. Parts are written in slices, never joined, so a video larger than one JS
 * array may hold (Node: 4 GiB per Uint8Array, e.g. a 121-frame 1408x2560 .npy is 5.2 GB) is written too.
 */
function writeAtomic(path: string, parts: Uint8Array | Uint8Array[]): void {
  mkdirSync(dirname(path) || '.', { recursive: true });
  const tmp = join(dirname(path) || '.', `.${Date.now()}-${process.pid}.partial${extname(path)}`);
  const SLICE = 1 << 28;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'w');
    for (const p of Array.isArray(parts) ? parts : [parts])
      for (let o = 0; o < p.length; ) o += writeSync(fd, p, o, Math.min(SLICE, p.length - o));
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw new DecoderError('bad-input', `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export interface WriteOptions {
  /** frames per second of .gif / .mp4 / .webm / .webp (Wan generates 16) */
  fps: number;
  /** called with the number of frames written so far */
  onFrame?: (done: number, total: number) => void;
}

/** Write `v` as `t` says; returns the files written (a folder's frames: the folder and the count). */
export async function writeOutput(t: OutputTarget, v: Video, o: WriteOptions): Promise<{ files: number; description: string }> {
  const tick = (d: number) => o.onFrame?.(d, v.frames);
  switch (t.kind) {
    case 'npy':
      writeAtomic(t.path, [npyHeader([3, v.frames, v.height, v.width]), new Uint8Array(v.video.buffer, v.video.byteOffset, v.video.byteLength)]);
      return { files: 1, description: `float32 [3, ${v.frames}, ${v.height}, ${v.width}] in [-1, 1]` };
    case 'gif':
      writeAtomic(t.path, encodeGif(v, o.fps, tick));
      return { files: 1, description: `animated GIF, ${v.frames} frames at ${o.fps} fps, ${v.width}x${v.height}` };
    case 'png': {
      if (v.frames === 1) {
        writeAtomic(t.path, encodePng(frameRgba(v, 0), v.width, v.height));
        return { files: 1, description: `PNG ${v.width}x${v.height} (the only frame)` };
      }
      const s = contactSheet(v);
      writeAtomic(t.path, encodePng(s.rgba, s.width, s.height));
      return { files: 1, description: `contact sheet ${s.width}x${s.height}, ${s.frames.length} of ${v.frames} frames (${s.frames.join(', ')}), ${s.cols} per row` };
    }
    case 'frames': {
      mkdirSync(t.path, { recursive: true });
      const digits = Math.max(4, String(v.frames - 1).length);
      for (let f = 0; f < v.frames; f++) {
        writeAtomic(join(t.path, `frame_${String(f).padStart(digits, '0')}.png`), encodePng(frameRgba(v, f), v.width, v.height));
        tick(f + 1);
      }
      return { files: v.frames, description: `${v.frames} PNG frames frame_${'0'.repeat(digits)}.png ... ${v.width}x${v.height}` };
    }
    case 'ffmpeg': {
      mkdirSync(dirname(t.path) || '.', { recursive: true });
      const tmp = join(dirname(t.path) || '.', `.${Date.now()}-${process.pid}.partial.${t.format}`);
      try {
        await writeWithFfmpeg(t.ffmpeg, t.format, v, o.fps, tmp, tick, t.path);
        renameSync(tmp, t.path);
      } finally {
        rmSync(tmp, { force: true });
      }
      return { files: 1, description: `${t.format} through ${t.ffmpeg}, ${v.frames} frames at ${o.fps} fps` };
    }
  }
}
