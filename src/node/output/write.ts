// The CLI's output by the name given to --out: .gif (animated), .png (contact sheet, or the frame
// itself for a one-frame video), DIR/ (a folder of PNG frames), .mp4 / .webm / .webp (through ffmpeg),
// .npy (float32 [3, F, H, W]). resolveOutput checks the name (and ffmpeg) before any decoding.
// Every kind is written frame by frame as the decoder delivers them (openOutput: CPU memory constant in
// the video length): .png keeps only the (at most 16) frames its contact sheet shows; .gif spills each
// frame's RGBA to a file beside the output and keeps the 8 frames its palette comes from, then encodes.
// Backpressure: frame() returns a Promise that settles when the frame is written (a PNG encoded on the
// thread pool and renamed into place, ffmpeg's stdin drained): the decoder's onFrame returns it, so a
// slow disk or encoder slows the decode (framesInFlight frames at most) instead of queueing frames.
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { DecoderError } from '../../gpu/errors';
import { npyHeader } from '../../model/npy';
import { findFfmpeg, openFfmpeg, type FfmpegFormat, type FfmpegPipe } from './ffmpeg';
import { contactSheet, frameRgb, frameRgba, rgbaOf, sheetFrames, type Video } from './frames';
import { openGifSpill, type GifSpill } from './gif';
import { encodePng, encodePngAsync } from './png';

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
let temps = 0;
function tempName(path: string, ext = extname(path)): string {
  return join(dirname(path) || '.', `.${Date.now()}-${process.pid}-${temps++}.partial${ext}`);
}

/** A file system error in words, with its code: 'no such file or folder (ENOENT)'. */
export function ioProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file or folder', EACCES: 'permission denied', EPERM: 'operation not permitted', EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device', EDQUOT: 'disk quota exceeded', EISDIR: 'it is a folder, not a file', ENOTDIR: 'a part of the path is a file, not a folder',
    EEXIST: 'a file of that name is in the way', ENAMETOOLONG: 'the name is too long', EMFILE: 'too many open files', EIO: 'input/output error',
  };
  return code ? `${words[code] ?? 'failed'} (${code})` : ((e as Error)?.message ?? String(e)).split('\n')[0]!;
}

function cannotWrite(path: string, e: unknown): DecoderError {
  return e instanceof DecoderError ? e : new DecoderError('bad-input', `cannot write ${path}: ${ioProblem(e)}`);
}

/**
 * mkdir -p without Node's recursive mkdir, which loops forever where mkdir answers ENOENT under an
 * existing folder (/proc: measured with Node 20): each missing part is made in turn, the first failure thrown.
 */
function ensureDir(dir: string): void {
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
function probeWritable(path: string): void {
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

function writeAtomic(path: string, parts: Uint8Array | Uint8Array[]): void {
  ensureDir(dirname(path) || '.');
  const tmp = tempName(path);
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

const done = Promise.resolve();

/** Open `t` for a video of `size`; the file appears under its name only at finish(). */
export function openOutput(t: OutputTarget, size: { frames: number; height: number; width: number }, o: WriteOptions): FrameSink {
  const { frames, height: H, width: W } = size;
  const n = H * W;
  const seen = new Uint8Array(frames);
  let count = 0;
  const accept = (index: number, rgb: Float32Array) => {
    if (!Number.isInteger(index) || index < 0 || index >= frames || seen[index]) throw new DecoderError('bad-input', `cannot write ${t.path}: frame ${index} arrived ${seen[index] ? 'twice' : `outside 0..${frames - 1}`}`);
    if (rgb.length !== 3 * n) throw new DecoderError('bad-input', `cannot write ${t.path}: frame ${index} has ${rgb.length} values, expected 3x${H}x${W}`);
    seen[index] = 1;
    count++;
  };
  const complete = () => {
    if (count !== frames) throw new DecoderError('bad-input', `cannot write ${t.path}: ${count} of ${frames} frames arrived`);
  };
  const tick = (d: number) => o.onFrame?.(d, frames);
  switch (t.kind) {
    case 'frames': {
      const created = !existsSync(t.path);
      try {
        ensureDir(t.path);
      } catch (e) {
        throw cannotWrite(t.path, e);
      }
      const digits = Math.max(4, String(frames - 1).length);
      // frames written under their names, temporary files being written, writes not yet settled
      const written = new Set<string>(), partial = new Set<string>(), pending = new Set<Promise<void>>();
      let stopped = false, writtenCount = 0;
      const remove = () => {
        for (const f of [...partial, ...written]) rmSync(f, { force: true });
      };
      const abort = async () => {
        stopped = true;
        remove(); // before the first await: a second Ctrl-C exits right after this call
        await Promise.allSettled([...pending]);
        remove(); // what finished meanwhile
        written.clear();
        if (created)
          try {
            rmdirSync(t.path); // only when empty: nothing else of the user's is touched
          } catch {
            /* not empty or gone */
          }
      };
      return {
        frame(index, rgb) {
          accept(index, rgb);
          const name = join(t.path, `frame_${String(index).padStart(digits, '0')}.png`);
          const tmp = tempName(name);
          const job = (async () => {
            const bytes = await encodePngAsync(rgbaOf(rgb, n), W, H); // deflate on the thread pool: the decode goes on
            if (stopped) return;
            partial.add(tmp);
            try {
              await writeFile(tmp, bytes);
              if (!stopped) {
                await rename(tmp, name);
                written.add(name);
                tick(++writtenCount);
              }
            } catch (e) {
              throw cannotWrite(name, e);
            } finally {
              partial.delete(tmp);
              if (stopped) rmSync(tmp, { force: true });
            }
          })();
          pending.add(job);
          const settle = () => void pending.delete(job);
          job.then(settle, settle);
          return job;
        },
        async finish() {
          try {
            for (const r of await Promise.allSettled([...pending])) if (r.status === 'rejected') throw r.reason;
            complete();
          } catch (e) {
            await abort();
            throw e;
          }
          return { files: frames, description: `${frames} PNG frames frame_${'0'.repeat(digits)}.png ... ${W}x${H}` };
        },
        abort,
      };
    }
    case 'npy': {
      const header = npyHeader([3, frames, H, W]);
      const tmp = tempName(t.path);
      let fd: number | undefined;
      try {
        ensureDir(dirname(t.path) || '.');
        fd = openSync(tmp, 'w');
        for (let o = 0; o < header.length; ) o += writeSync(fd, header, o, header.length - o, o);
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
              for (let o = 0; o < plane.length; ) o += writeSync(fd!, plane, o, plane.length - o, at + o);
            }
          } catch (e) {
            throw cannotWrite(t.path, e);
          }
          tick(count);
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
    case 'ffmpeg': {
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
    case 'png': {
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
    case 'gif': {
      // RGBA frames spill to a file beside the output (the 8 palette frames stay in memory); encoded at finish
      const spillName = tempName(t.path, '.rgba');
      let spill: GifSpill;
      try {
        ensureDir(dirname(t.path) || '.');
        spill = openGifSpill(spillName, size, o.fps);
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
