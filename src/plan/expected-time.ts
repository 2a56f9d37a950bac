// The expected time of a plan's decode, for choices between plans that are equally exact (fitPlan: weights
// streamed at fewer tiles against resident weights at more tiles). A model, not a measurement: conv FLOPs of
// every program run (tile halos included, so the tile recompute counts) at a rate per conv path, a fixed
// cost per dispatch (small tiles: many small dispatches), and the bytes the plan moves over the bus
// (streamed weights, the CPU store, parked caches). Fitted to eleven H200 decodes (below); only used to
// compare plans of one decode with each other.
import { kindOf } from './step-kinds';
import { runOrder } from './weight-stream';
import type { Plan } from './planner';

/**
 * Least squares over the H200 decodes of bench/results/h200/levers-2026-12-01-{5ae0879,fc373eb}/ and the tensor-core
 * whole-frame decode (Dawn, 2026-12-01; Wan2.1 480x832x81 whole frames / 14-40 tiles, f16 tensor cores and
 * portable int8; Wan2.2 704x1280 20-24 tiles streamed): tensor cores 47.7 TFLOP/s, portable f16 19.8
 * TFLOP/s, 65 us per dispatch; bus ~2 GB/s (writeBuffer through Dawn's staging), weight uploads hidden
 * behind the compute with 3 or more ring slots and not with 2. Predicted within 10% of every one of them
 * (e.g. 40 resident tiles 30.9 s predicted / 30.9 s measured; 14 tiles streamed through 3 slots 20.4 / 19.6).
 * int8 weights on tensor cores: since 2026-12-01 (156ef60) each conv's int8 weights are expanded to f16 just before
 * its GEMM (dequant-int8, a few MB per conv) and the straight-line GEMM of f16 weights runs, priced as f16
 * weights. Measured on the H200 (2026-12-01, f92a682; CLI seconds, which include packing the int8 weights in JS)
 * against this model: Wan2.1 480x832x81 whole frames 7.8 s / 6.0 expected, under 512 MiB 10.5 / 9.4,
 * Wan2.2 704x1280x121 under 1 GiB (36 tiles) 109.5 / 113.8 (bench/levers/expected-time-fit.ts). The looped
 * int8 GEMM before it ran 11.5 TFLOP/s: 24.1 s for Wan2.1 480x832x81 whole frames (2026-12-01, 7b0cf0f).
 * Not fitted: f32 storage (Wan2.2 704x1280 f32 whole frames, 2 latent frames: 10.7 s measured, 4.4 predicted;
 * the fixed costs of a short decode cancel out only between plans of the same decode).
 */
export const EXPECTED_RATES = { tensorCoreFlops: 47.7e12, tensorCoreInt8Flops: 47.7e12, portableFlops: 19.8e12, dispatchSeconds: 65e-6, busBytes: 2e9 } as const;

/** 2 x multiply-adds of every conv step of every program run of one decode (tile-major: each tile's run; halos included). */
export function convFlops(p: Pick<Plan, 'programs' | 'opts'>): number {
  const perProgram = new Map<object, number>();
  let total = 0;
  for (const prog of runOrder(p)) {
    let f = perProgram.get(prog);
    if (f === undefined) {
      f = 0;
      for (const s of prog.steps) if (s.kind === 'conv') f += 2 * s.cout * s.cin * s.kt * s.ks * s.ks * s.h * s.w;
      perProgram.set(prog, f);
    }
    total += f;
  }
  return total;
}

export interface ExpectedTime {
  /** conv FLOPs at the path's rate + the dispatches' fixed cost */
  compute: number;
  /** bus seconds not hidden behind the compute (streamed weights with >= 3 slots overlap it; the store and parked caches do not) */
  bus: number;
  total: number;
}

/** Dispatches of one decode (every step of every program run). */
export function dispatchCount(p: Pick<Plan, 'programs' | 'opts'>): number {
  const perProgram = new Map<object, number>();
  let total = 0;
  for (const prog of runOrder(p)) {
    let n = perProgram.get(prog);
    if (n === undefined) {
      n = prog.steps.reduce((a, s) => a + kindOf(s).dispatches(s), 0);
      perProgram.set(prog, n);
    }
    total += n;
  }
  return total;
}

/** Expected seconds of `p`'s decode (model above). */
export function expectedSeconds(p: Pick<Plan, 'programs' | 'opts' | 'bus' | 'weightStream'>): ExpectedTime {
  const compute = convFlops(p) / flopRate(p) + dispatchCount(p) * EXPECTED_RATES.dispatchSeconds;
  const weights = p.bus.weights / EXPECTED_RATES.busBytes;
  const hidden = p.weightStream && p.weightStream.slots >= 3 ? Math.min(weights, compute) : 0;
  const bus = (p.bus.store + p.bus.cache) / EXPECTED_RATES.busBytes + weights - hidden;
  return { compute, bus, total: compute + bus };
}

/**
 * A tile-major plan's conv FLOPs split as latent + tiled * overhead (overhead = Plan.tileOverhead, the
 * tiles' area with halos over the frame's): what another tiling of the same decode would cost is then
 * latent + tiled * its overhead (fitPlan skips tilings that cannot be faster without planning them).
 * null for other plans (whole frames, frame-major: one program holds both parts).
 */
export function flopsSplit(p: Pick<Plan, 'programs' | 'opts' | 'tileOverhead'>): { latent: number; tiled: number } | null {
  if (p.opts.tile?.order !== 'tile-major') return null;
  const total = convFlops(p);
  const latent = convFlops({ opts: p.opts, programs: Object.fromEntries(Object.entries(p.programs).map(([k, v]) => [k, v!.slice(0, 1)])) });
  return { latent, tiled: (total - latent) / p.tileOverhead };
}

/** conv FLOP/s of `p`'s conv path (EXPECTED_RATES). */
export function flopRate(p: Pick<Plan, 'opts'>): number {
  if (!(p.opts.tensorCores && p.opts.precision === 'f16')) return EXPECTED_RATES.portableFlops;
  return p.opts.weightsPrecision === 'int8' ? EXPECTED_RATES.tensorCoreInt8Flops : EXPECTED_RATES.tensorCoreFlops;
}
