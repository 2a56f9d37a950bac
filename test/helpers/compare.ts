// Error metrics for kernel tests: max |err| with its index, NMSE, PSNR over the [-1, 1] range.

export interface Comparison {
  maxAbs: number;
  maxAbsAt: number;
  /** Σ(a-e)² / Σe² (0 when both are all zero) */
  nmse: number;
  /** 10·log10(2² / MSE): peak-to-peak 2 (images in [-1, 1]) */
  psnr: number;
}

export function compare(actual: ArrayLike<number>, expected: ArrayLike<number>): Comparison {
  if (actual.length !== expected.length) throw new Error(`compare: lengths ${actual.length} and ${expected.length} differ`);
  let maxAbs = 0;
  let maxAbsAt = -1;
  let se = 0;
  let ref = 0;
  for (let i = 0; i < actual.length; i++) {
    const e = expected[i]!;
    const d = Math.abs(actual[i]! - e);
    if (!(d <= maxAbs)) {
      maxAbs = d; // NaN also lands here and sticks
      maxAbsAt = i;
      if (Number.isNaN(d)) break;
    }
    se += d * d;
    ref += e * e;
  }
  const nmse = Number.isNaN(maxAbs) ? NaN : se === 0 ? 0 : se / Math.max(ref, 1e-300);
  const mse = se / Math.max(1, actual.length);
  const psnr = mse === 0 ? Infinity : 10 * Math.log10(4 / mse);
  return { maxAbs, maxAbsAt, nmse, psnr };
}

export interface CloseOptions {
  /** elementwise bound |a - e| <= atol + rtol·|e| */
  atol?: number;
  rtol?: number;
  /** bound on NMSE (for reductions / convolutions) */
  nmse?: number;
  label?: string;
}

/** Throws with max |err|, its index and the NMSE when a bound is violated; returns the comparison. */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, opts: CloseOptions): Comparison {
  const c = compare(actual, expected);
  const label = opts.label ? `${opts.label}: ` : '';
  const stats = `max|err| ${c.maxAbs.toExponential(3)} at ${c.maxAbsAt} (got ${actual[c.maxAbsAt]}, want ${expected[c.maxAbsAt]}), nmse ${c.nmse.toExponential(3)}`;
  if (Number.isNaN(c.maxAbs)) throw new Error(`${label}NaN: ${stats}`);
  if (opts.nmse !== undefined && !(c.nmse <= opts.nmse)) throw new Error(`${label}nmse above ${opts.nmse}: ${stats}`);
  if (opts.atol !== undefined || opts.rtol !== undefined) {
    const atol = opts.atol ?? 0;
    const rtol = opts.rtol ?? 0;
    for (let i = 0; i < actual.length; i++) {
      const e = expected[i]!;
      if (!(Math.abs(actual[i]! - e) <= atol + rtol * Math.abs(e))) throw new Error(`${label}|err| at ${i} above ${atol} + ${rtol}·|${e}| (got ${actual[i]}): ${stats}`);
    }
  }
  return c;
}
