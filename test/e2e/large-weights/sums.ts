// The checksum both sides of test/e2e/large-weights.node.test.ts compute for each tensor (page worker and Node).

/** Σ d[i]·(i mod 7 + 1) in f64: equal for equal values in the same order. */
export function weightedSum(d: Float32Array): number {
  let s = 0;
  for (let i = 0; i < d.length; i++) s += d[i]! * ((i % 7) + 1);
  return s;
}
