// A decode against its sample's source clip, two ways: the demo's compare view (src/demo/compare.ts
// againstSource: frame getter, alignFrames, running MSE) and the bench / CLI path (src/model/quality.ts
// vsSource: sourceFramesFor, pickFrames, psnr, ssim over the clip). Cache off gives one frame per latent
// frame, which stands for source frame 4k. A wrong frame mapping (e.g. k instead of 4k) or an unclamped
// decode makes the two disagree or misses the hand-computed PSNR.
import { describe, expect, it } from 'vitest';
import { againstSource, type SourceClip } from '../../src/demo/compare';
import { pickFrames, psnr, sourceFramesFor, vsSource, type ClipShape } from '../../src/model/quality';

const [F, H, W] = [9, 16, 12];
const shape: ClipShape = [3, F, H, W];
const plane = H * W;
const source = Float32Array.from({ length: 3 * F * plane }, (_, i) => Math.sin(0.11 * i) * 0.9);
const clip: SourceClip = {
  name: 'test',
  frames: F,
  height: H,
  width: W,
  frame: (f) => pickFrames(source, shape, [f]).data,
};
/** a "decode": the source plus a frame-dependent error, one value pushed past 1 (the clamp must apply) */
function decode(frames: number[]): Float32Array {
  const d = pickFrames(source, shape, frames).data.map((v, i) => v + 0.05 * Math.cos(0.7 * i));
  d[0] = 3;
  return d;
}
const frameOf = (v: Float32Array, n: number) => (i: number) => pickFrames(v, [3, n, H, W], [i]).data;

describe('a decode against the source clip (demo compare view = quality.ts)', () => {
  it('cache off: 3 frames stand for source frames 0, 4, 8', () => {
    expect(sourceFramesFor(3, F)).toEqual([0, 4, 8]);
    const v = decode([0, 4, 8]);
    const demo = againstSource(frameOf(v, 3), 3, clip)!;
    const lib = vsSource(v, source, shape);
    expect(lib.frames).toEqual([0, 4, 8]);
    expect(demo.frames).toBe(3);
    expect(demo.psnr).toBeCloseTo(lib.psnr, 9);
    expect(demo.ssim).toBeCloseTo(lib.ssim, 9);
    // by hand: the decode against source frames 0, 4, 8 (clamped)
    expect(lib.psnr).toBeCloseTo(psnr(v, pickFrames(source, shape, [0, 4, 8]).data), 12);
    expect(lib.ssim).toBeLessThan(1);
  });

  it('cache on: all frames 1:1; a missing (cancelled) frame is left out', () => {
    const all = Array.from({ length: F }, (_, i) => i);
    const v = decode(all);
    const demo = againstSource(frameOf(v, F), F, clip)!;
    const lib = vsSource(v, source, shape);
    expect(demo.psnr).toBeCloseTo(lib.psnr, 9);
    expect(demo.ssim).toBeCloseTo(lib.ssim, 9);
    const part = againstSource((i) => (i < 5 ? frameOf(v, F)(i) : undefined), F, clip)!;
    expect(part.frames).toBe(5);
    expect(againstSource(() => undefined, F, clip)).toBeNull();
  });
});
