// QualityAccumulator (src/model/quality.ts): PSNR and SSIM against a source clip summed frame by frame as
// the frames arrive (the CLI's --sample decodes no longer keep the video) equal psnr() / ssim() of the whole
// clip: SSIM bit for bit, PSNR to 1e-12 dB. Frames are given out of order.
// Why a wrong implementation fails: a frame compared with the wrong source frame (by arrival instead of
// index), a channel plane at the wrong offset, the decode left unclamped, or a missing frame changes the
// numbers or throws; a frame given twice is refused.
import { describe, expect, it } from 'vitest';
import { psnr, QualityAccumulator, ssim, type ClipShape } from '../../src/model/quality';

/** A seeded clip [3, F, H, W] with values a little outside [-1, 1] (the clamp matters). */
function clip(shape: ClipShape, seed: number): Float32Array {
  let s = seed >>> 0;
  return new Float32Array(shape.reduce((a, b) => a * b, 1)).map(() => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2.2 - 1.1;
  });
}

/** Frame f of a [3, F, H, W] clip as [3, H, W]. */
function frameOf(v: Float32Array, [, F, H, W]: ClipShape, f: number): Float32Array {
  const n = H * W,
    out = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++) out.set(v.subarray((c * F + f) * n, (c * F + f + 1) * n), c * n);
  return out;
}

describe('QualityAccumulator (frame by frame) = psnr / ssim of the whole clip', () => {
  it('5 frames of 24x20 out of order: SSIM identical, PSNR to 1e-12 dB; a frame twice or missing is refused', () => {
    const shape: ClipShape = [3, 5, 24, 20];
    const ref = clip(shape, 1).map((x) => Math.max(-1, Math.min(1, x)));
    const dec = clip(shape, 1).map((x, i) => x + 0.05 * Math.sin(i)); // near the reference: PSNR ~ 30 dB
    const q = new QualityAccumulator(ref, shape);
    for (const f of [3, 0, 4, 1, 2]) q.frame(f, frameOf(dec, shape, f));
    const r = q.result();
    expect(r.ssim).toBe(ssim(dec, ref, shape));
    expect(Math.abs(r.psnr - psnr(dec, ref))).toBeLessThan(1e-12);
    expect(r.psnr).toBeGreaterThan(20);
    expect(() => q.frame(2, frameOf(dec, shape, 2))).toThrow(/quality: frame 2 is given twice/);
    const part = new QualityAccumulator(ref, shape);
    part.frame(0, frameOf(dec, shape, 0));
    expect(() => part.result()).toThrow(/quality: frame 1 of 5 never arrived/);
    // the reference itself: Infinity dB, SSIM 1
    const same = new QualityAccumulator(ref, shape);
    for (let f = 0; f < 5; f++) same.frame(f, frameOf(ref, shape, f));
    expect(same.result()).toEqual({ psnr: Infinity, ssim: 1 });
  });
});
