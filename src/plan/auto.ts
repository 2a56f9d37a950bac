// Choosing a plan that fits: the adapter's binding / buffer limits and an optional memory budget pick
// the tiling, the norm mode and the storage precision, preferring exactness: whole frames in f32, then
// exact tiles in f32 (fewest tiles first: least recomputed halo), then f16 storage (not exact) the same
// way; at each tiling the norm modes are tried in the order given (all three are exact). Pure TS.
import { DecoderError } from '../gpu/errors';
import type { DecoderConfig } from '../model/config';
import { convWeightFormat, type WeightsPrecision } from '../model/quantize';
import { winogradAllowed } from './conv-form';
import { plan, type Plan, type PlanOptions, type Precision } from './planner';
import { streamedFloor, withWeightStream } from './weight-stream';
import { expectedSeconds, flopRate, flopsSplit } from './expected-time';
import { makeTiles } from './tiling';
import { tiledOverhead } from './tile-windows';
import type { OptionOrAuto, OptionValue } from '../options/schema';

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
  tileMode?: OptionValue<'tileMode'>;
  /** 'auto': at each tiling tile-major first (its stores), then frame-major (its cache offloads) */
  tileOrder?: OptionOrAuto<'tileOrder'>;
  /** frame-major caches allowed, in order of preference (default ['off']); 'on' parks the idle tiles' rings in CPU memory */
  cacheOffloads?: OptionValue<'cacheOffload'>[];
  /**
   * weight streaming allowed, in order of preference (default: base.weightsStream, else ['off']). At each
   * tiling every resident variant is tried first; then streamed, the most ring slots that fit (least bus)
   */
  weightsStreams?: OptionValue<'weightsStream'>[];
  /** ring slots of a streamed plan (default: the most that fit, from the fewest without repeated uploads down to 2) */
  weightsStreamSlots?: number;
  /** tile-major stores allowed, in order of preference (default ['gpu']); 'cpu' keeps them in host memory */
  stores?: OptionValue<'tileStore'>[];
  /** norm modes allowed, in order of preference (default ['full']) */
  norms?: NonNullable<PlanOptions['norm']>[];
  normChunk?: number;
}

export interface Fit {
  plan: Plan;
  /** one line: what was chosen and why */
  reason: string;
}

/** Streamed weights that take longer over the bus than the plan's compute (expected-time.ts). */
function isBusBound(p: Plan): boolean {
  const e = expectedSeconds(p);
  return !!p.weightStream && e.bus > e.compute;
}

/** Fits the adapter's limits and the GPU budget (the CPU budget aside). */
const fitsGpu = (p: Plan, r: FitRequest) =>
  p.largestBinding <= r.limits.maxStorageBufferBindingSize && p.largestBuffer <= r.limits.maxBufferSize && (r.budget === undefined || p.memory.total <= r.budget);
const fits = (p: Plan, r: FitRequest) => fitsGpu(p, r) && (r.cpuBudget === undefined || p.host.total <= r.cpuBudget);

/**
 * Finer grids than grids() (more than 12 tiles a side), searched by bisection when none of those fits:
 * cores of at least 2 latent px, at most 2:1, one per core size, fewest tiles first.
 */
function fineGrids(h: number, w: number): { th: number; tw: number; n: number }[] {
  const seen = new Map<string, { th: number; tw: number; n: number }>();
  for (let ny = 1; ny <= h; ny++)
    for (let nx = 1; nx <= w; nx++) {
      if (ny <= 12 && nx <= 12) continue;
      const th = Math.ceil(h / ny),
        tw = Math.ceil(w / nx);
      if (th < 2 || tw < 2 || Math.max(th, tw) > 2 * Math.min(th, tw)) continue;
      seen.set(`${th}x${tw}`, { th, tw, n: Math.ceil(h / th) * Math.ceil(w / tw) });
    }
  return [...seen.values()].sort((a, b) => a.n - b.n || Math.abs(a.th - a.tw) - Math.abs(b.th - b.tw));
}

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

/**
 * --conv auto (the default): the Winograd convs (kernels/winograd.ts: more weight bytes, a scratch) only
 * where the plan needs no other lever for them than the direct conv's plan does (same precision, weights,
 * tiles, stream, offload, norm); else the direct conv's plan. An explicit --conv is planned as asked.
 */
export function fitPlan(cfg: DecoderConfig, base: Omit<PlanOptions, 'tile' | 'precision' | 'norm'>, r: FitRequest): Fit {
  if (base.conv !== 'auto') return fitConv(cfg, base, r);
  const direct = fitConv(cfg, { ...base, conv: 'direct' }, r);
  // two shortcuts that skip the second search (it is the whole cost of planning twice: Wan2.2 704x1280x121 at
  // --budget 1024 took 39 s on the 2-core build machine): Winograd runs only in f32 plans with f32 weights held on
  // the GPU, so a direct plan with other storage could only be matched by a Winograd plan with other levers,
  // which is refused below anyway; and where no conv of the whole-frame f32 plan qualifies (Wan2.2's widths,
  // small frames), no tile's smaller window does either (conv-form.ts: cout and frame size)
  const dp = direct.plan;
  if (!winogradAllowed({ precision: dp.opts.precision, wFormat: convWeightFormat(dp.opts.precision, dp.opts.weightsPrecision), weightsStream: !!dp.weightStream, tensorCores: !!dp.opts.tensorCores }))
    return direct;
  if (!winoConvCount(plan(cfg, { ...base, conv: 'auto', precision: 'f32', weightsPrecision: 'f32', weightsStream: false, tensorCores: false }))) return direct;
  let wino: Fit;
  try {
    wino = fitConv(cfg, { ...base, conv: 'auto' }, r);
  } catch {
    return direct;
  }
  const levers = (p: Plan) => JSON.stringify([p.opts.precision, p.opts.weightsPrecision, p.tiles?.length ?? 0, !!p.weightStream, !!p.opts.cacheOffload, p.opts.norm, !!p.opts.tensorCores]);
  const n = winoConvCount(wino.plan);
  if (!n) return direct;
  if (levers(wino.plan) !== levers(direct.plan))
    return { ...direct, reason: `${direct.reason}; direct convs (Winograd would need other levers: ${(wino.plan.memory.total / 2 ** 20).toFixed(0)} MiB)` };
  return { ...wino, reason: `${wino.reason}; ${n} convs as Winograd (--conv auto)` };
}

/** Convs of a plan's first chunk kind that run as Winograd (the form conv-form.ts recorded on them). */
function winoConvCount(p: Plan): number {
  const pps = Object.values(p.programs)[0] ?? [];
  return pps.reduce((a, pp) => a + pp.prog.steps.filter((s) => s.kind === 'conv' && s.form === 'winograd').length, 0);
}

/**
 * The plan fitting `r` (search below), then its conv path by expected time: where it holds int8 weights
 * on tensor cores, the same search for the same storage and weights on the portable conv (no operand
 * copy, no f16 scratch: it may fit with fewer tiles or no stream), and the faster of the two by the model
 * the search weighs streaming with (expected-time.ts). Both are equally exact (the same int8 weights; f16
 * products either way). With or without a budget: before 2026-12-01 (156ef60) an explicit `--weights-precision
 * int8 --precision f16` without a budget ran the int8 tensor-core GEMM of then (11.5 TFLOP/s) where the
 * portable int8 conv was faster (24.1 s against 14.1 s, Wan2.1 480x832x81 on the H200).
 */
function fitConv(cfg: DecoderConfig, base: Omit<PlanOptions, 'tile' | 'precision' | 'norm'>, r: FitRequest): Fit {
  const fit = searchPlan(cfg, base, r);
  const p = fit.plan;
  // a bus-bound plan (weights streamed, bus > compute) found with tensor cores allowed: the search without
  // them too (whatever combination it reaches, as the bus-bound rule itself allows). Wan2.2 704x1280x121 at
  // 768 MiB: with tensor cores f32 + f16 weights streamed, ~2089 s expected; without, int8 streamed, ~262 s
  if (base.tensorCores && isBusBound(p)) {
    let alt: Fit;
    try {
      alt = searchPlan(cfg, { ...base, tensorCores: false }, r);
    } catch {
      return fit;
    }
    const [tp, tq] = [expectedSeconds(p).total, expectedSeconds(alt.plan).total];
    return tq < tp ? { plan: alt.plan, reason: `${alt.reason}; without tensor cores: expected ~${tq.toFixed(1)} s against ~${tp.toFixed(1)} s bus-bound with them` } : fit;
  }
  if (!(p.opts.tensorCores && p.opts.precision === 'f16' && p.opts.weightsPrecision === 'int8')) return fit;
  const alt = searchPlan(cfg, { ...base, tensorCores: false }, { ...r, precisions: ['f16'], weightsPrecisions: ['int8'] });
  const [tp, tq] = [expectedSeconds(p).total, expectedSeconds(alt.plan).total];
  const text = (f: Fit, on: string) => `${f.plan.tiles ? `${f.plan.tiles.length} tiles` : 'whole frames'}${f.plan.weightStream ? ', weights streamed,' : ''} on ${on}`;
  if (tq < tp) return { plan: alt.plan, reason: `${alt.reason}; portable conv: expected ~${tq.toFixed(1)} s against ~${tp.toFixed(1)} s for int8 weights in ${text(fit, 'tensor cores')}` };
  return { plan: p, reason: `${fit.reason}; tensor cores: expected ~${tp.toFixed(1)} s against ~${tq.toFixed(1)} s in ${text(alt, 'the portable conv')}` };
}

function searchPlan(cfg: DecoderConfig, base: Omit<PlanOptions, 'tile' | 'precision' | 'norm'>, r: FitRequest): Fit {
  // (storage, weights) pairs in order of preference: weights as stored, f16 weights beside f32, then int8
  const wps = (p: Precision): WeightsPrecision[] => r.weightsPrecisions?.filter((w) => w !== 'f32' || p === 'f32') ?? [base.weightsPrecision ?? p];
  const rank = (p: Precision, w: WeightsPrecision) => (w === 'int8' ? 2 : 0) + (p === 'f16' ? 1 : 0);
  const combos = r.precisions.flatMap((p) => wps(p).map((w) => [p, w] as const)).sort((a, b) => rank(...a) - rank(...b));
  const wText = (p: Plan) => (p.opts.weightsPrecision && p.opts.weightsPrecision !== p.opts.precision ? `, ${p.opts.weightsPrecision} weights` : '');
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const norms: NonNullable<PlanOptions['norm']>[] = r.norms?.length ? r.norms : ['full'];
  // every plan assembles at least one output frame in CPU memory (planner: host.frames, 12 B per pixel):
  // a frame over the CPU budget is refused at once instead of searching every tiling (minutes at 100k px)
  const framePx = base.h * base.w * cfg.scale * cfg.scale;
  if (r.cpuBudget !== undefined && framePx * 12 > r.cpuBudget)
    throw new DecoderError(
      'limits',
      `no plan fits: one output frame of ${base.h * cfg.scale}x${base.w * cfg.scale} px takes ${mib(framePx * 12)} of CPU memory (3 channels, f32) while it is assembled, over the CPU budget of ${mib(r.cpuBudget)}`,
    );
  // f16 plans on tensor cores try 'fused' first where it is allowed: the operand copy applies the norm
  // anyway, so fused is both the smallest and the fastest there (H200, 2026-12-01, ee770bd: Wan2.1
  // 480x832x81 4.60 s cold fused vs 5.56 s full); elsewhere the order given (full first: 0-6% faster)
  const normsFor = (precision: Precision): typeof norms => (precision === 'f16' && base.tensorCores === true && norms.includes('fused') ? ['fused', ...norms.filter((n) => n !== 'fused')] : norms);
  const normText = (p: Plan) =>
    `norm ${p.opts.norm}${p.opts.norm === 'chunked' ? ` (${p.opts.normChunk} px)` : ''}${p.storeWhere === 'cpu' ? `, store in CPU memory (${mib(p.hostStoreBytes)})` : ''}` +
    `${p.opts.cacheOffload ? `, tile caches parked in CPU memory (${mib(p.host.cache)}, ${mib(p.bus.cache / Math.max(1, p.framesOut))} over the bus per frame)` : ''}`;
  // declared wide: tryNorms assigns it from a closure, which control-flow narrowing cannot see
  let smallest = null as Plan | null;
  // the variants of a tiling: tile-major with each store (a store exists in tile-major order only), then
  // frame-major with each cache offload (offload needs the cache)
  const orders = r.tileOrder === 'auto' ? (['tile-major', 'frame-major'] as const) : [r.tileOrder ?? 'tile-major'];
  const offloads: ('off' | 'on')[] = base.cache === 'off' ? ['off'] : r.cacheOffloads?.length ? r.cacheOffloads : ['off'];
  interface Variant {
    order: 'tile-major' | 'frame-major';
    store?: 'gpu' | 'cpu';
    cacheOffload: boolean;
  }
  const variants = orders.flatMap((order): Variant[] =>
    order === 'tile-major'
      ? (r.stores?.length ? r.stores : (['gpu'] as const)).map((store) => ({ order, store, cacheOffload: false }))
      : offloads.map((o) => ({ order, store: undefined, cacheOffload: o === 'on' })),
  );
  // every plan made in this search, by its options (the bisection and the stream variants meet them again)
  const planned = new Map<string, Plan>();
  const streams: ('off' | 'on')[] = r.weightsStreams?.length ? r.weightsStreams : [base.weightsStream ? 'on' : 'off'];
  const slotsWanted = r.weightsStreamSlots ?? base.weightsStreamSlots;
  // tile-major plans that fit the GPU but not the CPU budget were seen at the tiling being tried: only then
  // does 'auto' order try frame-major there (its plans hold every tile: slow to make at many tiles)
  let cpuBound = false;
  // the plan of least CPU memory among those that fit the GPU but not the CPU budget (for the error)
  let cpuSmallest = null as Plan | null;
  // 'auto' order in the fail-fast check and the fine grids (hundreds of tiles): tile-major only
  let tileMajorOnly = false;
  /** `p`, or `p` with streamed weights (the most ring slots that fit: least bus traffic), that fits; null: none */
  const fitting = (p: Plan, stream: 'off' | 'on'): Plan | null => {
    if (stream === 'off') {
      if (fits(p, r)) return p;
      if (fitsGpu(p, r)) {
        cpuBound = true;
        if (!cpuSmallest || p.host.total < cpuSmallest.host.total) cpuSmallest = p;
      }
      return null;
    }
    // fail fast: no ring takes less than the largest group plus a second slot (streamedFloor); when that does
    // not fit the budget, no slot count does (saves a replay per slot count on every tiling that does not fit)
    if (r.budget !== undefined && streamedFloor(p) > r.budget) {
      // the error names the smallest plan seen: the 2-slot ring, planned only where it may be that one
      if (!smallest || streamedFloor(p) < smallest.memory.total) {
        const least = withWeightStream(p, true, 2);
        if (!smallest || least.memory.total < smallest.memory.total) smallest = least;
      }
      return null;
    }
    let q = withWeightStream(p, true, slotsWanted);
    for (let n = q.weightStream!.slots; ; n--) {
      if (fits(q, r)) return q;
      if (!smallest || q.memory.total < smallest.memory.total) smallest = q;
      if (n <= 2 || slotsWanted !== undefined) return null;
      q = withWeightStream(p, true, n - 1);
    }
  };
  /**
   * The first variant / norm mode that makes `tile` fit, resident weights before streamed ones, or null
   * (remembering the smallest plan seen). `probe`: tile-major plans are probes (one tile per shape).
   */
  const tryNorms = (
    precision: Precision,
    weightsPrecision: WeightsPrecision,
    tile: Omit<NonNullable<PlanOptions['tile']>, 'order'> | undefined,
    probe = false,
    only?: ('off' | 'on')[],
  ): Plan | null => {
    cpuBound = false;
    for (const stream of only ?? streams)
      for (const v of tile ? variants : [null])
        for (const norm of normsFor(precision)) {
          if (v?.order === 'frame-major' && orders.length > 1 && (!cpuBound || tileMajorOnly)) continue;
          const o: PlanOptions = {
            ...base,
            weightsStream: false,
            precision,
            weightsPrecision,
            tile: tile && v ? { ...tile, order: v.order, ...(v.store ? { store: v.store } : {}), ...(probe && v.order === 'tile-major' ? { probe } : {}) } : undefined,
            cacheOffload: !!v?.cacheOffload,
            norm,
            normChunk: r.normChunk,
          };
          const key = JSON.stringify(o);
          const p = planned.get(key) ?? plan(cfg, o);
          planned.set(key, p);
          const f = fitting(p, stream);
          if (f) return f;
          if (!smallest || p.memory.total < smallest.memory.total) smallest = p;
        }
    return null;
  };
  /** The plan to run for a fitting one: a probe planned in full (the same GPU bytes), else itself. */
  const full = (p: Plan): Plan => {
    if (!p.opts.tile?.probe) return p;
    const q = plan(cfg, { ...p.opts, tile: { ...p.opts.tile, probe: false } });
    if (q.memory.total !== p.memory.total || q.largestBinding !== p.largestBinding)
      throw new DecoderError('internal', `fitPlan: the probe of ${q.tiles!.length} tiles planned ${p.memory.total} bytes, the full plan ${q.memory.total}`);
    return q;
  };
  const streamText = (p: Plan) => (p.weightStream ? `, weights streamed through ${p.weightStream.slots} ring slots (${mib(p.weightStream.busBytesPerChunk)} over the bus per chunk)` : '');
  const tileOf = (th: number, tw: number) => ({ th, tw, mode: r.tileMode ?? 'exact' });
  const tiled = (g: { th: number; tw: number; n: number }, probe: Plan, precision: Precision): Fit => {
    const p = full(probe);
    return {
      plan: p,
      reason: `${p.tiles!.length} tiles of ${g.th}x${g.tw} latent px (${r.tileMode ?? 'exact'}, ${p.opts.tile!.order}), ${precision}${wText(p)}, ${normText(p)}${streamText(p)}: ${mib(p.memory.total)}, ${((p.tileOverhead - 1) * 100).toFixed(0)}% more compute in the tiled part`,
    };
  };
  const secs = (p: Plan) => {
    const e = expectedSeconds(p);
    return `~${e.total.toFixed(1)} s (compute ${e.compute.toFixed(1)} + bus ${e.bus.toFixed(1)})`;
  };
  /**
   * The weight-streaming rule: a plan with streamed weights (the first that fits, at the fewest tiles)
   * against the first plan with resident weights among the next `later` grids (more tiles: more halo
   * recompute, nothing over the bus for weights); both exact alike, the one of least expected time
   * (expected-time.ts) wins and the reason says both. Resident plans are searched among the grids of up to
   * 12x12 tiles only (not the fine grids: hundreds of tiles), fewest tiles first.
   */
  const fasterThanStream = (fit: Fit, precision: Precision, wp: WeightsPrecision, later: { th: number; tw: number; n: number }[]): Fit => {
    if (!fit.plan.weightStream || !streams.includes('off') || !later.length) return fit;
    // none when the finest tiling does not fit resident; else the fewest tiles with resident weights, skipping the tilings whose compute alone (flopsSplit, from
    // the tiling's overhead, without planning them) is already more than the streamed plan's expected time
    const finest = later.reduce((a, g) => (g.n > a.n ? g : a), later[0]!);
    if (!tryNorms(precision, wp, tileOf(finest.th, finest.tw), true, ['off'])) return fit;
    const split = flopsSplit(fit.plan);
    const limit = expectedSeconds(fit.plan).total * flopRate(fit.plan);
    let found: { g: { th: number; tw: number; n: number }; p: Plan } | null = null;
    let skipped = false;
    for (const g of later) {
      if (split && split.latent + split.tiled * tiledOverhead(cfg, makeTiles(base.h, base.w, tileOf(g.th, g.tw)), base.h, base.w, (r.tileMode ?? 'exact') === 'exact') >= limit) {
        skipped = true;
        continue;
      }
      const q = tryNorms(precision, wp, tileOf(g.th, g.tw), true, ['off']);
      if (q) {
        found = { g, p: q };
        break;
      }
    }
    if (!found) return skipped ? { ...fit, reason: `${fit.reason}; expected ${secs(fit.plan)}: resident weights fit only at tilings whose compute alone is more` } : fit;
    const alt = tiled(found.g, found.p, precision);
    const [a, b] = expectedSeconds(alt.plan).total < expectedSeconds(fit.plan).total ? [alt, fit] : [fit, alt];
    return {
      plan: a.plan,
      reason: `${a.reason}; expected ${secs(a.plan)} against ${secs(b.plan)} with ${b.plan.weightStream ? 'streamed' : 'resident'} weights in ${b.plan.tiles?.length ?? 1} tile${b.plan.tiles?.length === 1 ? '' : 's'}`,
    };
  };
  /**
   * Bus-bound streaming: a plan whose streamed weights take longer over the bus than its compute (expected
   * time) waits for a later (less exact) combination that fits without that and is faster; only when none
   * does is it taken. Without this rule shrinking tile windows let f32 storage fit small budgets with weights streamed
   * through 2 slots: Wan2.1 480x832x81 in 512 MiB moved 177 GB (expected 121 s against 9.4 s for f16
   * storage), Wan2.2 704x1280x121 in 1 GiB 3 TB (~30 min).
   */
  let deferred = null as Fit | null;
  const busBound = isBusBound;
  const accept = (f: Fit): Fit | null => {
    if (busBound(f.plan)) {
      deferred ??= f;
      return null;
    }
    if (!deferred) return f;
    // the less exact plan only where it is also faster (Wan2.2 704x1280x121 at 1 GiB on tensor cores: f16
    // weights bus-bound ~240 s, int8 weights ~243 s: the f16 weights stay)
    if (expectedSeconds(f.plan).total < expectedSeconds(deferred.plan).total) return { ...f, reason: `${f.reason}; not ${deferredText(deferred)}` };
    return {
      ...deferred,
      reason: `${deferred.reason}; bus-bound (expected ${secs(deferred.plan)}), but the next choice that fits without streaming that much, ${f.plan.opts.precision}${wText(f.plan)}, is not faster (expected ${secs(f.plan)})`,
    };
  };
  const deferredText = (f: Fit) =>
    `${f.plan.opts.precision}${wText(f.plan)} with weights streamed in ${f.plan.tiles?.length ?? 1} tile${f.plan.tiles?.length === 1 ? '' : 's'}, bus-bound (expected ${secs(f.plan)})`;
  for (const [precision, wp] of combos) {
    tileMajorOnly = false;
    if (r.tile !== 'auto' && r.tile !== 'none') {
      const p = tryNorms(precision, wp, tileOf(r.tile.th, r.tile.tw));
      const a = p && accept({ plan: p, reason: `${r.tile.th}x${r.tile.tw} tiles, ${precision}${wText(p)}, ${normText(p)}${streamText(p)}: ${mib(p.memory.total)}` });
      if (a) return a;
      continue;
    }
    const whole = tryNorms(precision, wp, undefined);
    const gs = grids(base.h, base.w);
    if (whole) {
      const a = accept(
        fasterThanStream(
          { plan: whole, reason: `whole frames, ${precision}${wText(whole)}, ${normText(whole)}${streamText(whole)}: ${mib(whole.memory.total)}` },
          precision,
          wp,
          r.tile === 'none' ? [] : gs,
        ),
      );
      if (a) return a;
      continue;
    }
    if (r.tile === 'none') continue;
    // the finest grid is (nearly) the smallest plan on the GPU: when it does not fit, no grid of these does
    // (CPU memory need not fall with finer tiles: frame-major's parked caches grow with the halos)
    const finest = gs.reduce((a, g) => (g.n > a.n ? g : a), gs[0]!);
    tileMajorOnly = true;
    const finestFits = !!finest && (!!tryNorms(precision, wp, tileOf(finest.th, finest.tw), true) || cpuBound);
    tileMajorOnly = false;
    if (finestFits) {
      for (const [i, g] of gs.entries()) {
        const p = tryNorms(precision, wp, tileOf(g.th, g.tw), true);
        if (!p) continue;
        const a = accept(fasterThanStream(tiled(g, p, precision), precision, wp, gs.slice(i + 1)));
        if (a) return a;
        break;
      }
    }
  }
  if (deferred) return { ...deferred, reason: `${deferred.reason}; bus-bound (expected ${secs(deferred.plan)}), but nothing less exact fits without streaming` };
  // finer grids (hundreds of tiles), only when no combination fits with up to 12x12 tiles: per combination
  // a bisection for the fewest tiles that fit, over probes (the GPU bytes fall with the tile count, nearly
  // monotonically: the grid found fits, a few fewer might too); the fewest tiles of all combinations win
  // (ties: the preferred combination), so f32 storage at 600 tiles does not beat f16 at 300
  let best: { g: { th: number; tw: number; n: number }; p: Plan; precision: Precision } | null = null;
  const fine = r.tile === 'auto' ? fineGrids(base.h, base.w) : [];
  for (const [precision, wp] of fine.length ? combos : []) {
    tileMajorOnly = true;
    if (!tryNorms(precision, wp, tileOf(fine.at(-1)!.th, fine.at(-1)!.tw), true)) continue;
    let lo = 0,
      hi = fine.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tryNorms(precision, wp, tileOf(fine[mid]!.th, fine[mid]!.tw), true)) hi = mid;
      else lo = mid + 1;
    }
    if (!best || fine[lo]!.n < best.g.n) best = { g: fine[lo]!, p: tryNorms(precision, wp, tileOf(fine[lo]!.th, fine[lo]!.tw), true)!, precision };
  }
  if (best) return tiled(best.g, best.p, best.precision);
  const lim = Math.min(r.limits.maxStorageBufferBindingSize, r.limits.maxBufferSize);
  throw new DecoderError(
    'limits',
    `no plan fits${r.budget !== undefined ? ` a budget of ${mib(r.budget)}` : ''}${r.cpuBudget !== undefined ? ` (CPU budget ${mib(r.cpuBudget)})` : ''} with bindings of at most ${mib(lim)}: the smallest found needs ${mib(smallest!.memory.total)} ` +
      `(largest binding ${mib(smallest!.largestBinding)}; ${smallest!.opts.tile ? `${Math.ceil(base.h / smallest!.opts.tile.th) * Math.ceil(base.w / smallest!.opts.tile.tw)} tiles` : 'whole frames'}${streamText(smallest!)}, ${smallest!.opts.precision}${wText(smallest!)}, ${normText(smallest!)})` +
      `${r.precisions.includes('f16') ? '' : '; f16 storage (where the adapter offers shader-f16) would halve it'}${norms.includes('fused') ? '' : "; norm 'fused' would drop the normalised tensors"}` +
      `${r.weightsPrecisions?.includes('int8') || base.weightsPrecision === 'int8' ? '' : `; int8 weights (--weights-precision auto) would take the weights (${mib(smallest!.memory.weights)}) to about a quarter`}` +
      `${streams.includes('on') ? '' : '; weight streaming (--weights-stream auto) would keep the conv weights in CPU memory and a ring of a few layers on the GPU'}` +
      `${cpuSmallest ? `; plans that fit the GPU need at least ${mib(cpuSmallest.host.total)} of CPU memory (${cpuSmallest.opts.tile?.order === 'tile-major' ? 'tile-major: the store and every frame wait for the last tile, growing with the video length' : 'parked tile caches'})${orders.length > 1 && offloads.includes('on') ? '' : ': frame-major order (--tile-order auto) with --cache-offload auto streams in CPU memory constant in the video length'}` : ''}`,
  );
}
