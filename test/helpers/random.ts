// Seeded random tensors for kernel tests (mulberry32 + Box-Muller): same seed, same data, everywhere.
import { rng } from '../../src/model/synthetic';

/** A function returning uniform floats in [0, 1) from a 32-bit seed (the decoder's own mulberry32). */
export const prng = rng;

/** n standard normal samples, scaled by `std`. */
export function randn(n: number, seed: number, std = 1): Float32Array {
  const r = prng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = 1 - r();
    const v = r();
    const m = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = m * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = m * Math.sin(2 * Math.PI * v);
  }
  return out;
}

/** n uniform samples in [lo, hi). */
export function uniform(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  const r = prng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * r();
  return out;
}
