// Quality of a decode against a reference clip: PSNR and SSIM. Platform-neutral (CLI, bench, demo, tests).
//
// Clips are [3, F, H, W] float, channel-major, in [-1, 1] (the decoder's output layout); the decode is
// clamped to [-1, 1] first, as every viewer and file writer does.
//
// PSNR: over all values, peak-to-peak 2 (the [-1, 1] range): 10 log10(4 / MSE).
// SSIM: Wang, Bovik, Sheikh, Simoncelli, "Image quality assessment: from error visibility to structural
// similarity", IEEE TIP 13(4), 2004: an 11x11 Gaussian window (sigma 1.5, weights normalised),
// K1 = 0.01, K2 = 0.03, computed on the LUMA plane of each frame (BT.601: Y = 0.299 R + 0.587 G + 0.114 B,
// mapped to [0, 1], so L = 1), the SSIM map averaged over every window that lies inside the frame
// ("valid" positions), then averaged over frames. Population (not sample) variances. This equals
// skimage.metrics.structural_similarity(y_ref, y, gaussian_weights=True, sigma=1.5,
// use_sample_covariance=False, data_range=1) per frame. No automatic downsampling (the 2004 paper's
// MATLAB code shrinks frames larger than 256 px first; we measure at full size).
import { DecoderError } from '../gpu/errors';

/** [3, F, H, W] */
export type ClipShape = readonly [number, number, number, number];

const clamp1 = (v: number) => (v < -1 ? -1 : v > 1 ? 1 : v);

/** PSNR in dB over [-1, 1] (peak-to-peak 2) of `video` (clamped to [-1, 1]) against `ref`; Infinity when equal. */
export function psnr(video: Float32Array, ref: Float32Array): number {
  if (video.length !== ref.length) throw new DecoderError('bad-input', `PSNR: the decode has ${video.length} values, the reference ${ref.length}`);
  let se = 0;
  for (let i = 0; i < video.length; i++) {
    const d = clamp1(video[i]!) - ref[i]!;
    se += d * d;
  }
  const mse = se / video.length;
  return mse === 0 ? Infinity : 10 * Math.log10(4 / mse);
}

export const SSIM_WINDOW = 11;
export const SSIM_SIGMA = 1.5;
const K1 = 0.01;
const K2 = 0.03;

/** The normalised 1-D Gaussian of the SSIM window (11 taps, sigma 1.5); the 2-D window is its outer product. */
export function ssimKernel(): Float64Array {
  const r = (SSIM_WINDOW - 1) / 2;
  const g = new Float64Array(SSIM_WINDOW);
  let s = 0;
  for (let i = 0; i < SSIM_WINDOW; i++) s += g[i] = Math.exp(-((i - r) ** 2) / (2 * SSIM_SIGMA * SSIM_SIGMA));
  for (let i = 0; i < SSIM_WINDOW; i++) g[i]! /= s;
  return g;
}

/** Luma in [0, 1] of frame f of a [3, F, H, W] clip in [-1, 1] (clamped): [H * W]. */
export function lumaFrame(clip: Float32Array, shape: ClipShape, f: number): Float64Array {
  const [, F, H, W] = shape;
  const plane = H * W;
  const cs = F * plane; // channel stride
  const o = f * plane;
  const y = new Float64Array(plane);
  for (let i = 0; i < plane; i++) {
    const r = clamp1(clip[o + i]!),
      g = clamp1(clip[cs + o + i]!),
      b = clamp1(clip[2 * cs + o + i]!);
    y[i] = (0.299 * r + 0.587 * g + 0.114 * b + 1) / 2;
  }
  return y;
}

/** Valid-mode separable filtering of an [H, W] plane by the kernel: [(H - 10) * (W - 10)]. */
function filterValid(x: Float64Array, H: number, W: number, k: Float64Array): Float64Array {
  const n = k.length;
  const w2 = W - n + 1,
    h2 = H - n + 1;
  const rows = new Float64Array(H * w2); // along x
  for (let yy = 0; yy < H; yy++)
    for (let xx = 0; xx < w2; xx++) {
      let s = 0;
      const o = yy * W + xx;
      for (let j = 0; j < n; j++) s += k[j]! * x[o + j]!;
      rows[yy * w2 + xx] = s;
    }
  const out = new Float64Array(h2 * w2); // along y
  for (let yy = 0; yy < h2; yy++)
    for (let xx = 0; xx < w2; xx++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += k[j]! * rows[(yy + j) * w2 + xx]!;
      out[yy * w2 + xx] = s;
    }
  return out;
}

/** Mean SSIM of two [H, W] planes in [0, 1] (L = 1), Gaussian window, valid positions. */
export function ssimPlane(a: Float64Array, b: Float64Array, H: number, W: number): number {
  if (H < SSIM_WINDOW || W < SSIM_WINDOW) throw new DecoderError('bad-input', `SSIM: frames of ${H}x${W} are smaller than the ${SSIM_WINDOW}x${SSIM_WINDOW} window`);
  const k = ssimKernel();
  const n = H * W;
  const aa = new Float64Array(n),
    bb = new Float64Array(n),
    ab = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    aa[i] = a[i]! * a[i]!;
    bb[i] = b[i]! * b[i]!;
    ab[i] = a[i]! * b[i]!;
  }
  const [ma, mb, ea, eb, eab] = [a, b, aa, bb, ab].map((p) => filterValid(p, H, W, k)) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  const c1 = K1 * K1,
    c2 = K2 * K2;
  let s = 0;
  for (let i = 0; i < ma.length; i++) {
    const mu1 = ma[i]!,
      mu2 = mb[i]!;
    const va = ea[i]! - mu1 * mu1,
      vb = eb[i]! - mu2 * mu2,
      cov = eab[i]! - mu1 * mu2;
    s += ((2 * mu1 * mu2 + c1) * (2 * cov + c2)) / ((mu1 * mu1 + mu2 * mu2 + c1) * (va + vb + c2));
  }
  return s / ma.length;
}

/** SSIM of `video` against `ref`, both [3, F, H, W] in [-1, 1]: luma per frame, averaged over frames (1 when equal). */
export function ssim(video: Float32Array, ref: Float32Array, shape: ClipShape): number {
  const [C, F, H, W] = shape;
  const n = C * F * H * W;
  if (C !== 3) throw new DecoderError('bad-input', `SSIM: clips must have 3 channels (RGB), got shape [${shape}]`);
  if (video.length !== n || ref.length !== n) throw new DecoderError('bad-input', `SSIM: shape [${shape}] needs ${n} values; the decode has ${video.length}, the reference ${ref.length}`);
  let s = 0;
  for (let f = 0; f < F; f++) s += ssimPlane(lumaFrame(video, shape, f), lumaFrame(ref, shape, f), H, W);
  return s / F;
}

/**
 * Source frames that a decode of `n` frames stands for when it has fewer than the source's F (cache off
 * gives one frame per latent frame: its frame k is latent k's last frame, source frame 4k =
 * round(k (F - 1) / (n - 1))). All F frames when n = F. Same rule as models/train/contact_sheet.py.
 */
export function sourceFramesFor(n: number, F: number): number[] {
  if (n === F) return Array.from({ length: F }, (_, i) => i);
  if (n > F || n < 1) throw new DecoderError('bad-input', `a decode of ${n} frames cannot be compared with a source clip of ${F}`);
  return Array.from({ length: n }, (_, k) => Math.round((k * (F - 1)) / Math.max(1, n - 1)));
}

/** Frames `idx` of a [3, F, H, W] clip, as a new [3, idx.length, H, W] clip. */
export function pickFrames(clip: Float32Array, shape: ClipShape, idx: readonly number[]): { data: Float32Array; shape: ClipShape } {
  const [C, F, H, W] = shape;
  const plane = H * W;
  const out = new Float32Array(C * idx.length * plane);
  for (let c = 0; c < C; c++)
    idx.forEach((f, j) => {
      if (f < 0 || f >= F) throw new DecoderError('bad-input', `frame ${f} is outside a clip of ${F} frames`);
      out.set(clip.subarray((c * F + f) * plane, (c * F + f + 1) * plane), (c * idx.length + j) * plane);
    });
  return { data: out, shape: [C, idx.length, H, W] };
}

/** PSNR and SSIM of a decode [3, n, H, W] against a source clip [3, F, H, W] at the frames it stands for. */
export function vsSource(video: Float32Array, source: Float32Array, shape: ClipShape): { psnr: number; ssim: number; frames: number[] } {
  const [C, F, H, W] = shape;
  const n = video.length / (C * H * W);
  if (!Number.isInteger(n)) throw new DecoderError('bad-input', `a decode of ${video.length} values is not whole frames of ${C}x${H}x${W}`);
  const frames = sourceFramesFor(n, F);
  const ref = n === F ? { data: source, shape } : pickFrames(source, shape, frames);
  return { psnr: psnr(video, ref.data), ssim: ssim(video, ref.data, ref.shape), frames };
}

/**
 * PSNR and SSIM of a decode against `ref` ([3, F, H, W] in [-1, 1]) taken frame by frame as the frames
 * arrive (any order, each once; frame = [3, H, W], the decoder's Frame.rgb), so the decode need not be
 * kept. The same numbers as psnr() / ssim() of the whole clip: SSIM bit for bit (the per-frame values
 * summed in frame order); PSNR to rounding (squared errors summed per channel plane, then the planes in
 * [3, F] order, instead of one running sum: ~1e-15 relative).
 */
export class QualityAccumulator {
  /** squared error per plane [3, F] */
  private readonly se: Float64Array;
  /** SSIM per frame [F] */
  private readonly ss: Float64Array;
  private readonly seen: Uint8Array;

  constructor(
    private readonly ref: Float32Array,
    private readonly shape: ClipShape,
  ) {
    const [C, F] = shape;
    if (C !== 3 || ref.length !== C * F * shape[2] * shape[3]) throw new DecoderError('bad-input', `quality: the reference must be [3, F, H, W], got ${ref.length} values for shape [${shape}]`);
    this.se = new Float64Array(3 * F);
    this.ss = new Float64Array(F);
    this.seen = new Uint8Array(F);
  }

  /** Frame `f` of the decode, [3, H, W]. */
  frame(f: number, rgb: Float32Array): void {
    const [, F, H, W] = this.shape;
    const plane = H * W;
    if (!Number.isInteger(f) || f < 0 || f >= F || this.seen[f]) throw new DecoderError('bad-input', `quality: frame ${f} is ${this.seen[f] ? 'given twice' : `outside 0..${F - 1}`}`);
    if (rgb.length !== 3 * plane) throw new DecoderError('bad-input', `quality: frame ${f} has ${rgb.length} values, expected 3x${H}x${W}`);
    this.seen[f] = 1;
    for (let c = 0; c < 3; c++) {
      const o = (c * F + f) * plane;
      let s = 0;
      for (let i = 0; i < plane; i++) {
        const d = clamp1(rgb[c * plane + i]!) - this.ref[o + i]!;
        s += d * d;
      }
      this.se[c * F + f] = s;
    }
    if (H >= SSIM_WINDOW && W >= SSIM_WINDOW) this.ss[f] = ssimPlane(lumaFrame(rgb, [3, 1, H, W], 0), lumaFrame(this.ref, this.shape, f), H, W);
  }

  /** After every frame: PSNR (dB, Infinity when equal) and SSIM (null for frames under the 11x11 window). */
  result(): { psnr: number; ssim: number | null } {
    const [, F, H, W] = this.shape;
    const missing = this.seen.indexOf(0);
    if (missing >= 0) throw new DecoderError('bad-input', `quality: frame ${missing} of ${F} never arrived`);
    let se = 0;
    for (const s of this.se) se += s;
    const mse = se / this.ref.length;
    let ss = 0;
    for (const s of this.ss) ss += s;
    return { psnr: mse === 0 ? Infinity : 10 * Math.log10(4 / mse), ssim: H >= SSIM_WINDOW && W >= SSIM_WINDOW ? ss / F : null };
  }
}
