// The fuzz runs' budget, one for every property: WAN_VAE_FUZZ_SECONDS per property (default 2 s, as in CI)
// and a fixed seed, so CI replays the same inputs on every run (a longer run covers what CI's shorter one
// does, and more): WAN_VAE_FUZZ_SEED=N picks another sequence, WAN_VAE_FUZZ_SEED=random a new one each run
// (fast-check prints the seed and the failing input of any failure, to replay it with that seed).
const SECONDS = Number(process.env.WAN_VAE_FUZZ_SECONDS ?? 2);
const seedVar = process.env.WAN_VAE_FUZZ_SEED ?? '20261203';

export const FUZZ_SECONDS = SECONDS;
export const FUZZ_SEED: number | 'random' = seedVar === 'random' ? 'random' : Number(seedVar);
export const fuzzBudget = {
  interruptAfterTimeLimit: SECONDS * 1000,
  numRuns: 1_000_000,
  markInterruptAsFailure: false,
  ...(FUZZ_SEED === 'random' ? {} : { seed: FUZZ_SEED }),
};
