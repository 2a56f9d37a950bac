// Small numeric helpers of the benchmark: spread of repeated timings, output comparison (max |err| and
// PSNR over the [-1, 1] range of the decoded video; max |err| and NMSE of a kernel's output), byte formatting.
import type { Quality, Spread } from './types';

/** Linear-interpolated quantile of sorted values. */
function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i),
    hi = Math.ceil(i);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (i - lo);
}

export function spread(values: number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, median: quantile(s, 0.5), p10: quantile(s, 0.1), p90: quantile(s, 0.9), min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

/** max |a - b| and PSNR (peak-to-peak 2) of `a` against `b`. */
export function quality(a: Float32Array, b: Float32Array, against: string): Quality {
  if (a.length !== b.length) throw new Error(`quality: ${a.length} values against ${b.length} (${against})`);
  let maxAbs = 0,
    se = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= maxAbs)) maxAbs = d;
    se += d * d;
  }
  const mse = se / Math.max(1, a.length);
  return { against, maxAbs, psnr: mse === 0 ? Infinity : 10 * Math.log10(4 / mse) };
}

/** max |got - want| and NMSE (sum of squared errors over sum of squares of `want`) of a kernel's output against a reference. */
export function errorOf(got: ArrayLike<number>, want: ArrayLike<number>): { maxAbs: number; nmse: number } {
  let maxAbs = 0,
    se = 0,
    ss = 0;
  for (let i = 0; i < want.length; i++) {
    const d = got[i]! - want[i]!;
    maxAbs = Math.max(maxAbs, Math.abs(d));
    se += d * d;
    ss += want[i]! * want[i]!;
  }
  return { maxAbs, nmse: se / Math.max(ss, 1e-30) };
}

export function mib(bytes: number | undefined): string {
  return bytes === undefined ? '-' : (bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 1);
}

export function describeError(e: unknown): string {
  if (e instanceof Error) return e.cause instanceof Error && !e.message.includes(e.cause.message) ? `${e.message} (cause: ${e.cause.message})` : e.message;
  return String(e);
}

export const now = (): number => performance.now();
