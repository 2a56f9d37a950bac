// What every sink of openOutput (write.ts) shares: the output target and options, the sink interface,
// the per-video bookkeeping a sink is opened with (SinkContext), and the file helpers (temporary names,
// atomic writes, one-line errors).
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { DecoderError } from '../../gpu/errors';
import { type FfmpegFormat } from './ffmpeg';

export type OutputTarget = { kind: 'npy' | 'gif' | 'png'; path: string } | { kind: 'frames'; path: string } | { kind: 'ffmpeg'; path: string; format: FfmpegFormat; ffmpeg: string };

/**
 * Write `parts` one after the other to a temporary name beside `path`, then rename: a failed or interrupted
 * write leaves no half file. Parts are written in slices, never joined, so a video larger than one JS
 * array may hold (Node: 4 GiB per Uint8Array, e.g. a 121-frame 1408x2560 .npy is 5.2 GB) is written too.
 */
let temps = 0;
export function tempName(path: string, ext = extname(path)): string {
  return join(dirname(path) || '.', `.${Date.now()}-${process.pid}-${temps++}.partial${ext}`);
}

/** A file system error in words, with its code: 'no such file or folder (ENOENT)'. */
export function ioProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file or folder',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EISDIR: 'it is a folder, not a file',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EEXIST: 'a file of that name is in the way',
    ENAMETOOLONG: 'the name is too long',
    EMFILE: 'too many open files',
    EIO: 'input/output error',
  };
  return code ? `${words[code] ?? 'failed'} (${code})` : ((e as Error)?.message ?? String(e)).split('\n')[0]!;
}

export function cannotWrite(path: string, e: unknown): DecoderError {
  return e instanceof DecoderError ? e : new DecoderError('bad-input', `cannot write ${path}: ${ioProblem(e)}`);
}

/**
 * mkdir -p without Node's recursive mkdir, which loops forever where mkdir answers ENOENT under an
 * existing folder (/proc: measured with Node 20): each missing part is made in turn, the first failure thrown.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  const base = dirname(missing[0] ?? dir);
  if (!missing.length ? !statSync(dir).isDirectory() : existsSync(base) && !statSync(base).isDirectory())
    throw new DecoderError('bad-input', `cannot write into ${missing.length ? base : dir}: it is a file, not a folder`);
  for (const d of missing) mkdirSync(d);
}

/** Before the decode: the folder of `path` exists (made if needed) and takes a file (an empty temporary one, removed at once). */
export function probeWritable(path: string): void {
  const tmp = tempName(path);
  try {
    ensureDir(dirname(path) || '.');
    closeSync(openSync(tmp, 'w'));
    rmSync(tmp, { force: true });
  } catch (e) {
    rmSync(tmp, { force: true });
    throw cannotWrite(path, e);
  }
}

export function writeAtomic(path: string, parts: Uint8Array | Uint8Array[]): void {
  ensureDir(dirname(path) || '.');
  const tmp = tempName(path);
  const SLICE = 1 << 28;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'w');
    for (const p of Array.isArray(parts) ? parts : [parts]) for (let o = 0; o < p.length;) o += writeSync(fd, p, o, Math.min(SLICE, p.length - o));
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw cannotWrite(path, e);
  }
}

export interface WriteOptions {
  /** frames per second of .gif / .mp4 / .webm / .webp (Wan generates 16) */
  fps: number;
  /** called with the number of frames written so far (.gif: encoded, in finish) */
  onFrame?: (done: number, total: number) => void;
}

/** An output written frame by frame: frames may arrive in any order, each exactly once. */
export interface FrameSink {
  /**
   * Frame `index` as [3, H, W] f32 (the decoder's Frame.rgb). Throws a one-line DecoderError at once for a
   * frame out of range or given twice; the Promise settles when the frame is written (rejects, one line,
   * when it cannot be). Frames may be given before the previous ones settled.
   */
  frame(index: number, rgb: Float32Array): Promise<void>;
  /** After the last frame: wait for the writes, complete the file (rename the temporary name); throws (and aborts) when a frame is missing or a write failed. */
  finish(): Promise<{ files: number; description: string }>;
  /** A failed or cancelled decode: kill ffmpeg, remove the temporary files and the frames this run wrote (the removals start before the first await). */
  abort(): Promise<void>;
}

export const done = Promise.resolve();

/** The video a sink is opened for and the checks every sink runs on each frame (write.ts openOutput). */
export interface SinkContext {
  frames: number;
  H: number;
  W: number;
  /** pixels of one frame */
  n: number;
  /** the video's size as openOutput was given it */
  size: { frames: number; height: number; width: number };
  /** frames accepted so far */
  count(): number;
  /** checks frame `index` (range, once, size) and counts it; throws a one-line DecoderError */
  accept(index: number, rgb: Float32Array): void;
  /** throws unless every frame arrived */
  complete(): void;
  /** reports `d` frames written */
  tick(d: number): void;
}
