// Choosing a plan that fits: the adapter's binding / buffer limits and an optional memory budget pick
// the tiling, the norm mode and the storage precision, preferring exactness: whole frames in f32, then
// exact tiles in f32 (fewest tiles first: least recomputed halo), then f16 storage (not exact) the same
// way; at each tiling the norm modes are tried in the order given (all three are exact). Pure TS.
import { DecoderError } from '../gpu/errors';
import type { DecoderConfig } from '../model/config';
import type { WeightsPrecision } from '../model/quantize';
import { plan, type Plan, type PlanOptions, type Precision } from './planner';

export interface FitRequest {
  /** bytes; undefined = only the adapter limits constrain */
  budget?: number;
  /**
   * CPU bytes the plan may keep besides the frames (Plan.host: a tile-major 'cpu' store, which grows with
   * the number of latent frames, and parked caches); undefined = no limit. A long video whose CPU store
   * would exceed it moves on to a plan without one (the GPU store, or frame-major order when allowed)
   */
  cpuBudget?: number;
  limits: { maxStorageBufferBindingSize: number; maxBufferSize: number };
  /** precisions allowed, in order of preference */
  precisions: Precision[];
  /**
   * conv weight storages allowed (default: base.weightsPrecision, else = each precision). Tried after
   * every plan at full weights: (f32, f32), (f32, f16 weights), (f16, f16), then int8 weights last
   */
  weightsPrecisions?: WeightsPrecision[];
  /** 'auto' searches grids; 'none' forbids tiling; a fixed tile is taken as given */
  tile: 'auto' | 'none' | { th: number; tw: number };
  tileMode?: 'exact' | 'blend';
  /** 'auto': at each tiling tile-major first (its stores), then frame-major (its cache offloads) */
  tileOrder?: 'tile-major' | 'frame-major' | 'auto';
  /** frame-major caches allowed, in order of preference (default ['off']); 'on' parks the idle tiles' rings in CPU memory */
  cacheOffloads?: ('off' | 'on')[];
  /** tile-major stores allowed, in order of preference (default ['gpu']); 'cpu' keeps them in host memory */
  stores?: ('gpu' | 'cpu')[];
  /** norm modes allowed, in order of preference (default ['full']) */
  norms?: NonNullable<PlanOptions['norm']>[];
  normChunk?: number;
}

export interface Fit {
  plan: Plan;
  /** one line: what was chosen and why */
  reason: string;
}

const fits = (p: Plan, r: FitRequest) =>
  p.largestBinding <= r.limits.maxStorageBufferBindingSize && p.largestBuffer <= r.limits.maxBufferSize && (r.budget === undefined || p.memory.total <= r.budget) &&
  (r.cpuBudget === undefined || p.host.total <= r.cpuBudget);

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

export function fitPlan(cfg: DecoderConfig, base: Omit<PlanOptions, 'tile' | 'precision' | 'norm'>, r: FitRequest): Fit {
  // (storage, weights) pairs in order of preference: weights as stored, f16 weights beside f32, then int8
  const wps = (p: Precision): WeightsPrecision[] => r.weightsPrecisions?.filter((w) => w !== 'f32' || p === 'f32') ?? [base.weightsPrecision ?? p];
  const rank = (p: Precision, w: WeightsPrecision) => (w === 'int8' ? 2 : 0) + (p === 'f16' ? 1 : 0);
  const combos = r.precisions.flatMap((p) => wps(p).map((w) => [p, w] as const)).sort((a, b) => rank(...a) - rank(...b));
  const wText = (p: Plan) => (p.opts.weightsPrecision && p.opts.weightsPrecision !== p.opts.precision ? `, ${p.opts.weightsPrecision} weights` : '');
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const norms: NonNullable<PlanOptions['norm']>[] = r.norms?.length ? r.norms : ['full'];
  const normText = (p: Plan) =>
    `norm ${p.opts.norm}${p.opts.norm === 'chunked' ? ` (${p.opts.normChunk} px)` : ''}${p.storeWhere === 'cpu' ? `, store in CPU memory (${mib(p.hostStoreBytes)})` : ''}` +
    `${p.opts.cacheOffload ? `, tile caches parked in CPU memory (${mib(p.host.cache)}, ${mib(p.bus.cache / Math.max(1, p.framesOut))} over the bus per frame)` : ''}`;
  // declared wide: tryNorms assigns it from a closure, which control-flow narrowing cannot see
  let smallest = null as Plan | null;
  // the variants of a tiling: tile-major with each store (a store exists in tile-major order only), then
  // frame-major with each cache offload (offload needs the cache)
  const orders = r.tileOrder === 'auto' ? (['tile-major', 'frame-major'] as const) : [r.tileOrder ?? 'tile-major'];
  const offloads = base.cache === 'off' ? (['off'] as const) : r.cacheOffloads?.length ? r.cacheOffloads : (['off'] as const);
  interface Variant { order: 'tile-major' | 'frame-major'; store?: 'gpu' | 'cpu'; cacheOffload: boolean }
  const variants = orders.flatMap((order): Variant[] =>
    order === 'tile-major'
      ? (r.stores?.length ? r.stores : (['gpu'] as const)).map((store) => ({ order, store, cacheOffload: false }))
      : offloads.map((o) => ({ order, store: undefined, cacheOffload: o === 'on' })),
  );
  /** the first variant / norm mode that makes `tile` fit, or null (remembering the smallest plan seen) */
  const tryNorms = (precision: Precision, weightsPrecision: WeightsPrecision, tile: Omit<NonNullable<PlanOptions['tile']>, 'order'> | undefined): Plan | null => {
    for (const v of tile ? variants : [null])
      for (const norm of norms) {
        const p = plan(cfg, { ...base, precision, weightsPrecision, tile: tile && v ? { ...tile, order: v.order, ...(v.store ? { store: v.store } : {}) } : undefined, cacheOffload: !!v?.cacheOffload, norm, normChunk: r.normChunk });
        if (fits(p, r)) return p;
        if (!smallest || p.memory.total < smallest.memory.total) smallest = p;
      }
    return null;
  };
  const tileOf = (th: number, tw: number) => ({ th, tw, mode: r.tileMode ?? 'exact' });
  for (const [precision, wp] of combos) {
    if (r.tile !== 'auto' && r.tile !== 'none') {
      const p = tryNorms(precision, wp, tileOf(r.tile.th, r.tile.tw));
      if (p) return { plan: p, reason: `${r.tile.th}x${r.tile.tw} tiles, ${precision}${wText(p)}, ${normText(p)}: ${mib(p.memory.total)}` };
      continue;
    }
    const whole = tryNorms(precision, wp, undefined);
    if (whole) return { plan: whole, reason: `whole frames, ${precision}${wText(whole)}, ${normText(whole)}: ${mib(whole.memory.total)}` };
    if (r.tile === 'none') continue;
    const gs = grids(base.h, base.w);
    // the finest grid is (nearly) the smallest plan: when it does not fit, no grid does (fail fast)
    const finest = gs.reduce((a, g) => (g.n > a.n ? g : a), gs[0]!);
    if (!finest || !tryNorms(precision, wp, tileOf(finest.th, finest.tw))) continue;
    for (const g of gs) {
      const p = tryNorms(precision, wp, tileOf(g.th, g.tw));
      if (p)
        return { plan: p, reason: `${g.n} tiles of ${g.th}x${g.tw} latent px (${r.tileMode ?? 'exact'}, ${p.opts.tile!.order}), ${precision}${wText(p)}, ${normText(p)}: ${mib(p.memory.total)}, ${((p.tileOverhead - 1) * 100).toFixed(0)}% more compute in the tiled part` };
    }
  }
  const lim = Math.min(r.limits.maxStorageBufferBindingSize, r.limits.maxBufferSize);
  throw new DecoderError(
    'limits',
    `no plan fits${r.budget !== undefined ? ` a budget of ${mib(r.budget)}` : ''}${r.cpuBudget !== undefined ? ` (CPU budget ${mib(r.cpuBudget)})` : ''} with bindings of at most ${mib(lim)}: the smallest found needs ${mib(smallest!.memory.total)} ` +
      `(largest binding ${mib(smallest!.largestBinding)}; ${smallest!.opts.tile ? `${smallest!.tiles!.length} tiles` : 'whole frames'}, ${smallest!.opts.precision}${wText(smallest!)}, ${normText(smallest!)})` +
      `${r.precisions.includes('f16') ? '' : '; f16 storage (where the adapter offers shader-f16) would halve it'}${norms.includes('fused') ? '' : "; norm 'fused' would drop the normalised tensors"}` +
      `${r.weightsPrecisions?.includes('int8') || base.weightsPrecision === 'int8' ? '' : `; int8 weights (--weights-precision auto) would take the weights (${mib(smallest!.memory.weights)}) to about a quarter`}`,
  );
}
