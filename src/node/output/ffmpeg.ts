// .mp4 / .webm / animated .webp through an ffmpeg found on PATH (or $WAN_VAE_FFMPEG): raw RGBA frames on
// its stdin. Looked up before the decode, so a missing ffmpeg is said before minutes of GPU work.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { DecoderError } from '../../gpu/errors';

export type FfmpegFormat = 'mp4' | 'webm' | 'webp';

/** Codec arguments per container: H.264 yuv420p (plays everywhere), VP9, animated WebP (loops). */
export const FFMPEG_CODEC: Record<FfmpegFormat, string[]> = {
  mp4: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-crf', '18', '-movflags', '+faststart'],
  webm: ['-c:v', 'libvpx-vp9', '-pix_fmt', 'yuv420p', '-crf', '24', '-b:v', '0'],
  webp: ['-c:v', 'libwebp_anim', '-lossless', '0', '-q:v', '90', '-loop', '0'],
};

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The ffmpeg to run, or a DecoderError saying how to get one. */
export function findFfmpeg(format: FfmpegFormat, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.WAN_VAE_FFMPEG;
  if (explicit) {
    if (executable(explicit)) return explicit;
    throw new DecoderError('unsupported', `WAN_VAE_FFMPEG=${explicit} is not an executable file`);
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && executable(join(dir, 'ffmpeg'))) return join(dir, 'ffmpeg');
  throw new DecoderError(
    'unsupported',
    `writing .${format} needs ffmpeg, which is not on PATH: install it (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) or set WAN_VAE_FFMPEG, or write .gif, .png (contact sheet), a folder of PNG frames (--out DIR/) or .npy instead`,
  );
}

/** The argument list given to ffmpeg (exported for the test's fake ffmpeg). */
export function ffmpegArgs(format: FfmpegFormat, v: { width: number; height: number }, fps: number, out: string): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    '-s',
    `${v.width}x${v.height}`,
    '-r',
    String(fps),
    '-i',
    'pipe:0',
    ...FFMPEG_CODEC[format],
    '-f',
    format === 'mp4' ? 'mp4' : format,
    out,
  ];
}

/** An ffmpeg process fed frame by frame (started before the decode, so frames need not be kept). */
export interface FfmpegPipe {
  /** Queue one RGBA frame for its stdin (written in order, each after the previous one drained); throws when ffmpeg has already quit. Resolves when stdin has taken it. */
  write(rgba: Uint8Array): Promise<void>;
  /** After the last frame: close stdin, wait for ffmpeg; rejects with its last stderr lines when it failed. */
  end(): Promise<void>;
  /** Resolves when every frame queued so far is in ffmpeg's stdin. */
  idle(): Promise<void>;
  /** Kill ffmpeg (a failed or cancelled decode) and wait for it to exit. */
  kill(): Promise<void>;
}

/** Start ffmpeg writing `out` (`name` in messages); `onFrame` counts frames taken by its stdin. */
export function openFfmpeg(ffmpeg: string, format: FfmpegFormat, size: { width: number; height: number }, fps: number, out: string, onFrame?: (done: number) => void, name = out): FfmpegPipe {
  const child = spawn(ffmpeg, ffmpegArgs(format, size, fps, out), { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  let exited: number | null = null;
  const exit = new Promise<number>((resolve, reject) => {
    child.on('error', (e) => reject(new DecoderError('unsupported', `cannot run ${ffmpeg}: ${e.message}`)));
    child.on('close', (code) => resolve((exited = code ?? -1)));
  });
  exit.catch(() => undefined); // observed by end() / kill()
  const failure = (code: number) => {
    const last = stderr.trim().split('\n').slice(-3).join(' | ');
    return new DecoderError('unsupported', `ffmpeg failed writing ${name} (exit code ${code})${last ? `: ${last}` : ''}`);
  };
  let broken = false;
  child.stdin.on('error', () => {
    broken = true; // ffmpeg quit early: its exit code and stderr say why
  });
  const drained = () =>
    new Promise<void>((r) => {
      const done = () => {
        child.stdin.off('drain', done).off('close', done);
        r();
      };
      child.stdin.on('drain', done).on('close', done);
    });
  let written = 0;
  // frames wait here (in order) while ffmpeg's stdin is full: stdin backpressure is respected, and what waits
  // is only what the decoder delivered faster than ffmpeg encodes
  let chain = Promise.resolve();
  return {
    write(rgba) {
      if (exited !== null || broken) throw failure(exited ?? -1);
      chain = chain.then(async () => {
        if (broken) return;
        if (!child.stdin.write(rgba)) await drained();
        onFrame?.(++written);
      });
      return chain;
    },
    idle: () => chain,
    async end() {
      await chain;
      child.stdin.end();
      const code = await exit;
      if (code !== 0) throw failure(code);
    },
    async kill() {
      if (exited === null) child.kill('SIGKILL');
      await exit.catch(() => undefined);
    },
  };
}
