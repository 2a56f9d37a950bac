// PSNR and SSIM (src/model/quality.ts) against independent references: an SSIM computed by SciPy
// (gaussian_filter, the formula of Wang et al. 2004) on a deterministic clip pair, closed forms for constant
// frames, and a direct (non-separable) 2-D window sum. Each case says what a wrong implementation does.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { lumaFrame, psnr, ssim, ssimKernel, ssimPlane, type ClipShape } from '../../src/model/quality';

/** The pair of the SciPy reference: a = 0.8 sin(0.37 i), b = clip(a + 0.3 sin(1.91 i + 0.5), -1.2, 1.2), float32. */
function pair(shape: ClipShape): { a: Float32Array; b: Float32Array } {
  const n = shape.reduce((x, y) => x * y, 1);
  const a = new Float32Array(n),
    b = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = Math.sin(0.37 * i) * 0.8;
    b[i] = Math.min(1.2, Math.max(-1.2, a[i]! + 0.3 * Math.sin(1.91 * i + 0.5)));
  }
  return { a, b };
}

describe('quality: PSNR and SSIM', () => {
  it("SSIM and PSNR equal SciPy's on a [3, 2, 24, 20] pair", () => {
    // Reference (Python, numpy + scipy.ndimage, 2026-12-01): luma per frame as in quality.ts, then
    //   f = gaussian_filter(., 1.5, truncate=3.5, mode='reflect'); S = ((2 ux uy + C1)(2 cxy + C2)) /
    //   ((ux^2 + uy^2 + C1)(vx + vy + C2)); S[5:-5, 5:-5].mean(), averaged over the 2 frames -> 0.47290298998060204;
    //   PSNR of clip(b) vs a -> 19.650281407484567 dB.
    // A wrong sigma (1.0 or 2.0), a box window, sample variances, per-channel instead of luma, a 'same' mean
    // over the borders, or a missing clamp each move SSIM by more than 1e-4.
    const shape: ClipShape = [3, 2, 24, 20];
    const { a, b } = pair(shape);
    expect(Math.abs(ssim(b, a, shape) - 0.47290298998060204)).toBeLessThan(1e-7);
    expect(Math.abs(psnr(b, a) - 19.650281407484567)).toBeLessThan(1e-6);
  });

  it('constant frames: SSIM = (2ab + C1) / (a^2 + b^2 + C1) (no variance), 1 for equal clips', () => {
    // With zero variance the structure term is C2 / C2 = 1 and only the luminance term is left: a wrong K1,
    // a wrong [0, 1] mapping (L) or a missing mean over frames gives another number.
    const shape: ClipShape = [3, 1, 16, 16];
    const n = 3 * 16 * 16;
    const x = new Float32Array(n).fill(0.2),
      y = new Float32Array(n).fill(-0.4); // luma 0.6 and 0.3
    const want = (2 * 0.6 * 0.3 + 1e-4) / (0.36 + 0.09 + 1e-4);
    expect(ssim(x, y, shape)).toBeCloseTo(want, 6);
    const { a } = pair([3, 2, 16, 16]);
    expect(ssim(a, a, [3, 2, 16, 16])).toBeCloseTo(1, 12);
    expect(psnr(a, a)).toBe(Infinity);
  });

  it('the separable filter equals a direct 11x11 window sum at every valid position', () => {
    // Direct oracle: mean SSIM from the 2-D window w(i, j) = g(i) g(j) summed position by position. An
    // off-by-one in the valid range or a transposed pass (W != H here) fails it.
    const H = 17,
      W = 13;
    const { a, b } = pair([3, 1, H, W]);
    const ya = lumaFrame(a, [3, 1, H, W], 0),
      yb = lumaFrame(b, [3, 1, H, W], 0);
    const g = ssimKernel();
    expect(g.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 14);
    let sum = 0,
      count = 0;
    for (let y0 = 0; y0 + 11 <= H; y0++)
      for (let x0 = 0; x0 + 11 <= W; x0++) {
        let m1 = 0,
          m2 = 0,
          e11 = 0,
          e22 = 0,
          e12 = 0;
        for (let i = 0; i < 11; i++)
          for (let j = 0; j < 11; j++) {
            const w = g[i]! * g[j]!,
              p = ya[(y0 + i) * W + x0 + j]!,
              q = yb[(y0 + i) * W + x0 + j]!;
            m1 += w * p;
            m2 += w * q;
            e11 += w * p * p;
            e22 += w * q * q;
            e12 += w * p * q;
          }
        const c1 = 1e-4,
          c2 = 9e-4;
        sum += ((2 * m1 * m2 + c1) * (2 * (e12 - m1 * m2) + c2)) / ((m1 * m1 + m2 * m2 + c1) * (e11 - m1 * m1 + e22 - m2 * m2 + c2));
        count++;
      }
    expect(count).toBe(7 * 3);
    expect(ssimPlane(ya, yb, H, W)).toBeCloseTo(sum / count, 12);
  });

  it('more noise, lower SSIM and PSNR', () => {
    // A metric that ignored the decode (or the sign of the error) would not fall.
    const shape: ClipShape = [3, 1, 32, 32];
    const { a } = pair(shape);
    const noisy = (amp: number) => a.map((v, i) => v + amp * Math.sin(2.3 * i * i));
    const s = [0.02, 0.1, 0.4].map((amp) => ssim(noisy(amp), a, shape));
    const p = [0.02, 0.1, 0.4].map((amp) => psnr(noisy(amp), a));
    expect(s[0]!).toBeGreaterThan(s[1]!);
    expect(s[1]!).toBeGreaterThan(s[2]!);
    expect(p[0]!).toBeGreaterThan(p[1]!);
    expect(p[1]!).toBeGreaterThan(p[2]!);
  });

  it('bad shapes give one-line errors', () => {
    const e = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err as DecoderError;
      }
      throw new Error('no error');
    };
    expect(e(() => ssim(new Float32Array(10), new Float32Array(10), [3, 1, 2, 5])).message).toBe('SSIM: shape [3,1,2,5] needs 30 values; the decode has 10, the reference 10');
    expect(e(() => ssim(new Float32Array(300), new Float32Array(300), [3, 1, 10, 10])).message).toBe('SSIM: frames of 10x10 are smaller than the 11x11 window');
    expect(e(() => psnr(new Float32Array(2), new Float32Array(3))).message).toBe('PSNR: the decode has 2 values, the reference 3');
    expect(e(() => ssim(new Float32Array(4), new Float32Array(4), [1, 1, 2, 2]))).toBeInstanceOf(DecoderError);
  });
});
