// Comparison math of two decodes of the same latents: which frames match in time, PSNR over [-1, 1]
// (peak-to-peak 2), SSIM (luma, src/model/quality.ts), a difference heat map, and a decode against the
// source clip of a trained-model sample.
import { ssim } from '../model/quality';

/** A sample's source clip as the compare view reads it: frame i as [3, H, W] in [-1, 1]. */
export interface SourceClip {
  name: string;
  frames: number;
  height: number;
  width: number;
  frame(i: number): Float32Array;
}

/** SSIM in the compare view up to this many pixels per decode (frames x H x W): ~10 ns per pixel on the main thread. */
export const SSIM_MAX_PIXELS = 8_000_000;

/** SSIM of two [3, H, W] frames in [-1, 1] (luma, 11x11 Gaussian window; 1 when identical). */
export function frameSsim(a: Float32Array, b: Float32Array, height: number, width: number): number {
  return ssim(a, b, [3, 1, height, width]);
}

/**
 * A decode of n frames against its source clip of F frames: frame k of the decode stands for source frame
 * round(k (F − 1) / (n − 1)) (all F when n = F, as alignFrames). PSNR from the MSE over every compared value
 * (decode clamped to [-1, 1]), SSIM the mean over frames. Frames the decode lacks (cancelled) are left out.
 */
export function againstSource(get: (i: number) => Float32Array | undefined, n: number, src: SourceClip, o: { ssim?: boolean } = {}): { psnr: number; ssim: number; frames: number } | null {
  let se = 0,
    count = 0,
    s = 0,
    frames = 0;
  for (const p of alignFrames(n, src.frames)) {
    const f = get(p.a);
    if (!f) continue;
    const ref = src.frame(p.b);
    for (let i = 0; i < f.length; i++) {
      const d = Math.min(1, Math.max(-1, f[i]!)) - ref[i]!;
      se += d * d;
    }
    count += f.length;
    if (o.ssim ?? true) s += frameSsim(f, ref, src.height, src.width);
    frames++;
  }
  if (!frames) return null;
  return { psnr: se === 0 ? Infinity : 10 * Math.log10(4 / (se / count)), ssim: (o.ssim ?? true) ? s / frames : NaN, frames };
}

/**
 * Pairs frames at the same time position. Cache off gives T frames, cache on 1 + 4(T − 1): each frame of
 * the shorter video is matched with the frame of the longer one at the same relative time,
 * round(i · (nLong − 1) / (nShort − 1)) (so latent frame t ↔ output frame 4t). Equal counts pair 1:1.
 */
export function alignFrames(nA: number, nB: number): { a: number; b: number }[] {
  if (nA === nB) return Array.from({ length: nA }, (_, i) => ({ a: i, b: i }));
  const short = Math.min(nA, nB),
    long = Math.max(nA, nB);
  const map = (i: number) => (short === 1 ? 0 : Math.round((i * (long - 1)) / (short - 1)));
  return Array.from({ length: short }, (_, i) => (nA < nB ? { a: i, b: map(i) } : { a: map(i), b: i }));
}

/** PSNR in dB of two [3, H, W] frames in [-1, 1]: 10 · log10(2² / MSE); Infinity when identical. */
export function psnr(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`psnr: frames differ in size (${a.length} vs ${b.length})`);
  let se = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    se += d * d;
  }
  const mse = se / a.length;
  return mse === 0 ? Infinity : 10 * Math.log10(4 / mse);
}

/** Max |a − b| over all channels and pixels. */
export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/**
 * Heat map of the per-pixel mean |a − b| over the three channels, scaled so `scale` is full heat:
 * black → red → yellow → white. Returns RGBA8.
 */
export function diffHeatmap(a: Float32Array, b: Float32Array, height: number, width: number, scale: number): Uint8ClampedArray {
  const n = height * width;
  const out = new Uint8ClampedArray(n * 4);
  const s = scale > 0 ? 1 / scale : 0;
  for (let i = 0; i < n; i++) {
    const d = (Math.abs(a[i]! - b[i]!) + Math.abs(a[n + i]! - b[n + i]!) + Math.abs(a[2 * n + i]! - b[2 * n + i]!)) / 3;
    const v = Math.min(1, d * s) * 3;
    out[4 * i] = 255 * Math.min(1, v);
    out[4 * i + 1] = 255 * Math.min(1, Math.max(0, v - 1));
    out[4 * i + 2] = 255 * Math.min(1, Math.max(0, v - 2));
    out[4 * i + 3] = 255;
  }
  return out;
}
