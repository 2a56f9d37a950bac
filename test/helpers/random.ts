// Seeded random tensors for kernel tests (mulberry32 + Box-Muller): same seed, same data, everywhere.

/** A function returning uniform floats in [0, 1) from a 32-bit seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
