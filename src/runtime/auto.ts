// Choosing a plan that fits: the adapter's binding / buffer limits and an optional memory budget pick
// the tiling and the storage precision, preferring exactness: whole frames in f32, then exact tiles in
// f32 (fewest tiles first: least recomputed halo), then f16 storage (not exact) the same way. Pure TS.
import { DecoderError } from '../gpu/errors';
import type { DecoderConfig } from '../model/config';
import { plan, type Plan, type PlanOptions, type Precision } from './planner';

export interface FitRequest {
  /** bytes; undefined = only the adapter limits constrain */
  budget?: number;
  limits: { maxStorageBufferBindingSize: number; maxBufferSize: number };
  /** precisions allowed, in order of preference */
  precisions: Precision[];
  /** 'auto' searches grids; 'none' forbids tiling; a fixed tile is taken as given */
  tile: 'auto' | 'none' | { th: number; tw: number };
  tileMode?: 'exact' | 'blend';
  tileOrder?: 'tile-major' | 'frame-major';
}

export interface Fit {
  plan: Plan;
  /** one line: what was chosen and why */
  reason: string;
}

const fits = (p: Plan, r: FitRequest) =>
  p.largestBinding <= r.limits.maxStorageBufferBindingSize && p.largestBuffer <= r.limits.maxBufferSize && (r.budget === undefined || p.memory.total <= r.budget);

/** Candidate tile cores (latent px) for an h x w frame, fewest tiles first. */
function grids(h: number, w: number): { th: number; tw: number; n: number }[] {
  const out: { th: number; tw: number; n: number }[] = [];
  for (let ny = 1; ny <= Math.min(h, 12); ny++)
    for (let nx = 1; nx <= Math.min(w, 12); nx++) {
      if (ny * nx === 1) continue;
      out.push({ th: Math.ceil(h / ny), tw: Math.ceil(w / nx), n: ny * nx });
    }
  return out.sort((a, b) => a.n - b.n || Math.abs(a.th - a.tw) - Math.abs(b.th - b.tw));
}

export function fitPlan(cfg: DecoderConfig, base: Omit<PlanOptions, 'tile' | 'precision'>, r: FitRequest): Fit {
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  let smallest: Plan | null = null;
  for (const precision of r.precisions) {
    const whole = plan(cfg, { ...base, precision });
    if (r.tile !== 'auto' && r.tile !== 'none') {
      const p = plan(cfg, { ...base, precision, tile: { ...r.tile, mode: r.tileMode ?? 'exact', order: r.tileOrder ?? 'tile-major' } });
      if (fits(p, r)) return { plan: p, reason: `${r.tile.th}x${r.tile.tw} tiles, ${precision}: ${mib(p.memory.total)}` };
      if (!smallest || p.memory.total < smallest.memory.total) smallest = p;
      continue;
    }
    if (fits(whole, r)) return { plan: whole, reason: `whole frames, ${precision}: ${mib(whole.memory.total)}` };
    if (!smallest || whole.memory.total < smallest.memory.total) smallest = whole;
    if (r.tile === 'none') continue;
    for (const g of grids(base.h, base.w)) {
      const p = plan(cfg, { ...base, precision, tile: { th: g.th, tw: g.tw, mode: r.tileMode ?? 'exact', order: r.tileOrder ?? 'tile-major' } });
      if (fits(p, r))
        return { plan: p, reason: `${g.n} tiles of ${g.th}x${g.tw} latent px (${r.tileMode ?? 'exact'}, ${r.tileOrder ?? 'tile-major'}), ${precision}: ${mib(p.memory.total)}, ${((p.tileOverhead - 1) * 100).toFixed(0)}% more compute in the tiled part` };
      if (!smallest || p.memory.total < smallest.memory.total) smallest = p;
    }
  }
  const lim = Math.min(r.limits.maxStorageBufferBindingSize, r.limits.maxBufferSize);
  throw new DecoderError(
    'limits',
    `no plan fits${r.budget !== undefined ? ` a budget of ${mib(r.budget)}` : ''} with bindings of at most ${mib(lim)}: the smallest found needs ${mib(smallest!.memory.total)} ` +
      `(largest binding ${mib(smallest!.largestBinding)}; ${smallest!.opts.tile ? `${smallest!.tiles!.length} tiles` : 'whole frames'}, ${smallest!.opts.precision})` +
      `${r.precisions.includes('f16') ? '' : '; f16 storage would halve it'}`,
  );
}
