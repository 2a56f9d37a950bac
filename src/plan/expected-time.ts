// The expected time of a plan's decode, for choices between plans that are equally exact (fitPlan: weights
// streamed at fewer tiles against resident weights at more tiles). A model, not a measurement: conv FLOPs of
// every program run (tile halos included, so the tile recompute counts) at a rate per conv path, plus the
// bytes the plan moves over the bus (streamed weights, the CPU store, parked caches) at the rate weight
// streaming reached. The rates come from H200 decodes (Dawn, 2026-12-01; README) and are only used to
// compare plans of one decode with each other: the ratio matters, not the absolute seconds.
import { runOrder } from './weight-stream';
import type { Plan } from './planner';

/**
 * Conv FLOP/s of a whole decode by path and bus bytes/s of weight streaming, H200 (Dawn, 2026-12-01):
 * Wan2.1 480x832x81 has 2.741e14 conv FLOPs (convFlops, whole frames); f16 on tensor cores decoded it in
 * 4.47 s warm (commit 850128e), the portable f16 conv in 10.76 s; weight streaming moved 39.3 GB in
 * ~9.6 s beyond the compute of its 14 tiles (19.6 s in all, commit 5ae0879) and 45 GB in ~17.6 s at
 * Wan2.2 704x1280 (29.4 s): ~3 GB/s, far from PCIe (writeBuffer through Dawn's staging).
 */
export const EXPECTED_RATES = { tensorCoreFlops: 2.741e14 / 4.47, portableFlops: 2.741e14 / 10.76, busBytes: 3e9 } as const;

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
  /** conv FLOPs at the path's rate */
  compute: number;
  /** bytes over the bus beyond the frames read back (streamed weights, CPU store, parked caches) */
  bus: number;
  total: number;
}

/** Expected seconds of `p`'s decode (model above): compute + bus, not overlapped. */
export function expectedSeconds(p: Pick<Plan, 'programs' | 'opts' | 'bus'>): ExpectedTime {
  const compute = convFlops(p) / flopRate(p);
  const bus = (p.bus.store + p.bus.cache + p.bus.weights) / EXPECTED_RATES.busBytes;
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
  return p.opts.tensorCores && p.opts.precision === 'f16' ? EXPECTED_RATES.tensorCoreFlops : EXPECTED_RATES.portableFlops;
}
