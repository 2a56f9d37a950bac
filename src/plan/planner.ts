// Planner: pure TypeScript, no GPU. Turns config + latent size + options into a Plan: the step lists of
// the chunk kinds, every SSA tensor assigned to a reusable transient slot by liveness (interval
// colouring: two tensors share a slot only when their live ranges do not overlap), the cache rings,
// and the exact GPU bytes by owner. The arena allocates exactly this; nothing is allocated per frame.
import { DecoderError } from '../gpu/errors';
import type { DecoderConfig } from '../model/config';
import { buildPrograms, DEFAULT_NORM_CHUNK, type ChunkKind, type NormMode, type Program, type Step, type TilePlan, type View } from './graph';
import { convWeightFormat, type WeightsPrecision } from '../model/quantize';
import { convFormFor, type ConvOption } from '../kernels/winograd-plan';
import { convWeightBytes, kindOf, mmaScratchOf, winoScratchOf, weightBuffers, wqScratchOf } from './step-kinds';
import { makeTiles, type Tile } from './tiling';
import { tiledOverhead, tileWindows, type LevelWindow } from './tile-windows';
import { withWeightStream, type WeightStreamPlan } from './weight-stream';
import { optionError, problem } from '../options/check';
import { WAN22_CACHE_OFF, type OptionValue } from '../options/schema';

export type Precision = OptionValue<'precision'>;

export interface TileOption {
  /** tile core in latent pixels */
  th: number;
  tw: number;
  mode: OptionValue<'tileMode'>;
  order: OptionValue<'tileOrder'>;
  /** halo in latent pixels (default 7 exact, 2 blend) */
  halo?: number;
  /**
   * tile-major only: where the latent-rate output of every latent frame waits for the tiles. 'gpu'
   * (default): a GPU buffer of all frames; 'cpu': read back per chunk into host memory and uploaded into
   * a one-frame GPU window before each tile's run of that chunk (GPU bytes of one frame, PCIe traffic
   * of one frame per tile and chunk).
   */
  store?: OptionValue<'tileStore'>;
  /**
   * fitPlan's search only (tile-major): plan one tile per distinct shape. Every GPU memory figure and
   * limit equals the full plan's (test/levers/fit-grids.node.test.ts); tiles, bus and host figures do
   * not, and such a plan is never run.
   */
  probe?: boolean;
  /**
   * exact tiles: crop each up block's input to the context that level still needs (tile-windows.ts:
   * the same output, less compute and smaller tile rings). Default true; false = the tile's ext at
   * every level (the plans before 2026-12-01, c4e0032, for comparisons); number[]: the margins per level
   * (tests: a margin one short must change the output)
   */
  shrink?: boolean | number[];
}

/**
 * One tile per distinct (computed, kept, written) size, and window sizes at every level (shrinking
 * windows clip at the frame edge level by level): a probe plan's tiles (TileOption.probe).
 */
function distinctTiles(tiles: Tile[], windows: (t: Tile) => LevelWindow[]): Tile[] {
  const seen = new Map<string, Tile>();
  const dims = (r: Tile['core']) => `${r.y1 - r.y0}x${r.x1 - r.x0}`;
  for (const t of tiles) {
    const k = `${dims(t.ext)}|${dims(t.core)}|${dims(t.out)}|${windows(t).map((l) => `${dims(l.pre)}>${dims(l.win)}`).join(',')}`;
    if (!seen.has(k)) seen.set(k, t);
  }
  return [...seen.values()];
}

export interface PlanOptions {
  /** latent frames T */
  frames: number;
  /** latent size */
  h: number;
  w: number;
  /** causal feature cache: 'on' exact, 'off' = official feat_cache=None loop (Wan2.1 only) */
  cache: 'on' | 'off';
  /** storage precision of weights, activations and cache (accumulation is f32) */
  precision: Precision;
  /**
   * storage of the conv weights (default: = precision): 'int8' (per-output-channel scales) or 'f16' beside
   * f32 storage are packed and dequantised in the portable conv's operand load (conv3d-wq; biases and
   * gammas stay in `precision`); 'f32' needs f32 storage
   */
  weightsPrecision?: WeightsPrecision;
  /** read back RGBA8 frames too (for display) */
  rgba?: boolean;
  /** spatial tiling; undefined = whole frames */
  tile?: TileOption;
  /** where RMS_norm results live (graph.ts NormMode); default 'full' */
  norm?: NormMode['mode'];
  /** pixels per norm dispatch with norm 'chunked' (default DEFAULT_NORM_CHUNK) */
  normChunk?: number;
  /** f16 only: the convs run on tensor cores (conv3d-mma), whose operand copy the plan counts (activations) */
  tensorCores?: boolean;
  /** f32 portable plans: the 3x3 convs' form (kernels/winograd.ts convFormFor; default 'direct': the API and CLI pass the option's default, 'auto'); others stay direct */
  conv?: ConvOption;
  /** conv weights stay in CPU memory and stream through a ring of GPU buffers (weight-stream.ts); exact */
  weightsStream?: boolean;
  /** ring slots of the weight stream (>= 2); default: the fewest with which no program run uploads a group twice */
  weightsStreamSlots?: number;
  /**
   * frame-major tiling only: the causal cache rings of the tiles not being decoded are parked in CPU
   * memory (read back after each tile's run of a chunk, uploaded before its next run), so the GPU holds
   * the rings of one tile (plus a readback buffer of them) instead of every tile's (cache-park.ts)
   */
  cacheOffload?: boolean;
}

export { DEFAULT_NORM_CHUNK } from './graph';

export interface Slot {
  index: number;
  bytes: number;
}

export interface ProgramPlan {
  prog: Program;
  /** slot index of each tensor id (-1 for io tensors) */
  slotOf: Int32Array;
}

export type MemoryBreakdown = {
  weights: number;
  cache: number;
  activations: number;
  /** tile-major tiling: the latent-rate output of every latent frame */
  store: number;
  io: number;
  staging: number;
  uniforms: number;
  total: number;
};

/**
 * CPU (host) memory the decoder itself keeps during a decode, by owner, bytes (the caller's copy of the
 * video, DecodeOptions.collect, is not counted). Tile-major's grows with the video length.
 */
export type HostBreakdown = {
  /** tile-major 'cpu' store: every latent frame's store entries (grows with the number of latent frames) */
  store: number;
  /** cache offload: every tile's parked cache rings (constant in the video length) */
  cache: number;
  /** weight streaming: the packed conv weights (plan/weight-stream.ts) */
  weights: number;
  /**
   * frames being assembled (rgb f32, + rgba, + blend weights): tile-major order completes every frame
   * with its last tile, so it holds ALL frames (grows with the video length); other orders one chunk's
   */
  frames: number;
  total: number;
};

/** Bytes a decode moves between CPU and GPU memory, by cause, over the whole decode. */
export type BusTraffic = {
  /** tile-major 'cpu' store: each chunk's entries read back once and uploaded before every tile's run */
  store: number;
  /** cache offload: each tile's rings read back after its run of a chunk and uploaded before the next */
  cache: number;
  /** weight streaming: the conv weight groups written into the ring (plan/weight-stream.ts replay) */
  weights: number;
  /** the decoded frames (rgb f32, + rgba) read back */
  frames: number;
  total: number;
  /** total / output frames */
  perFrame: number;
  /** the levers' traffic (store + cache + weights) at BUS_BYTES_PER_S: the time they may add where not overlapped */
  leverSeconds: number;
};

/**
 * A tile's parked rings (cache offload): where each ring's bytes sit in host memory (`offset`) and, in
 * readback batch `batch`, in the readback buffer (`stagingOffset`). The readback buffer holds the largest
 * ring; consecutive rings share a batch while they fit (one map per batch).
 */
export interface ParkedTile {
  tile: number;
  rings: { key: string; buffer: string; bytes: number; offset: number; batch: number; stagingOffset: number }[];
  bytes: number;
  batches: number;
}

/** Host <-> GPU bandwidth assumed for the time estimate of bus traffic (PCIe 4.0 x16, practical). */
export const BUS_BYTES_PER_S = 16e9;

export interface RingPlan {
  key: string;
  label: string;
  /** elements of one frame (largest tile) */
  frameElems: number;
  bytes: number;
  /** the GPU buffer holding it: = key, or (cache offload) one buffer shared by the same ring of every tile */
  buffer: string;
  /** frame-major tile rings: the tile index (null: the latent-rate part, or untiled / tile-major) */
  tile: number | null;
}

export interface Plan {
  cfg: DecoderConfig;
  opts: PlanOptions & { rgba: boolean; norm: NormMode['mode']; normChunk: number };
  elemBytes: number;
  /** programs by chunk kind, in execution order within a chunk (latent, then tiles) */
  programs: Partial<Record<ChunkKind, ProgramPlan[]>>;
  tiles: Tile[] | null;
  slots: Slot[];
  rings: RingPlan[];
  /** ring keys of the tile programs (zeroed at every tile start in tile-major order) */
  tileRingKeys: string[];
  /** store entry size in elements and entries per chunk (tile-major) */
  storeFrameElems: number;
  storePerChunk: number;
  /** 'cpu': the store lives in host memory (hostStoreBytes) and the GPU holds one chunk's entries */
  storeWhere: 'gpu' | 'cpu' | null;
  hostStoreBytes: number;
  /** CPU memory the plan keeps (the tile store, parked caches), by owner */
  host: HostBreakdown;
  /** bytes moved between CPU and GPU over the decode */
  bus: BusTraffic;
  /** cache offload: each tile's parked rings (null without it) */
  park: ParkedTile[] | null;
  /** cache offload: bytes of the rings' readback buffer (the largest tile's rings) */
  parkStagingBytes: number;
  outFrameElems: number;
  framesOut: number;
  height: number;
  width: number;
  /** largest rgb / rgba element counts any program writes */
  outElems: number;
  outRgbaElems: number;
  uniformStride: number;
  /** uniform slots of the longest program: one per step, one per chunk of a chunked norm */
  maxDispatches: number;
  memory: MemoryBreakdown;
  /** largest single buffer (maxBufferSize) */
  largestBuffer: number;
  /** largest range bound to a shader (maxStorageBufferBindingSize): the store is bound one entry at a time */
  largestBinding: number;
  /** bytes of one store entry, padded to the 256-byte storage offset alignment */
  storeEntryBytes: number;
  /** conv work of the tiled part over the untiled frame's (1 untiled; tile-windows.ts tiledOverhead) */
  tileOverhead: number;
  /** weightsStream: the ring, its groups and the bus bytes of a decode (memory.weights counts the ring) */
  weightStream: WeightStreamPlan | null;
}

const UNIFORM_STRIDE = 256; // minUniformBufferOffsetAlignment upper bound in the spec

function align4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

/** Live range [first, last] step index of every tensor. */
function liveness(g: Program): [number, number][] {
  const r: [number, number][] = g.tensors.map(() => [Infinity, -Infinity]);
  g.steps.forEach((s, i) => {
    for (const v of kindOf(s).views(s)) {
      const x = r[v.t.id]!;
      x[0] = Math.min(x[0], i);
      x[1] = Math.max(x[1], i);
    }
  });
  return r;
}

/**
 * In-place candidates: output tensor id -> input tensor id whose slot it may take because the input dies
 * at that step and the step's kernel can update in place (step-kinds.ts `inPlace`: a conv's residual,
 * a 'chunked' norm's input).
 */
function inPlaceCandidates(g: Program, live: [number, number][]): Map<number, number> {
  const m = new Map<number, number>();
  const ok = (src: View, dst: View, i: number) => !src.t.io && src.off === 0 && dst.off === 0 && src.t !== dst.t && live[src.t.id]![1] === i && live[dst.t.id]![0] === i;
  g.steps.forEach((s, i) => {
    const pair = kindOf(s).inPlace(s);
    if (pair && ok(pair[0], pair[1], i)) m.set(pair[1].t.id, pair[0].t.id);
  });
  return m;
}

/**
 * Assign the tensors of every program to slots, greedy by size (the shared-objects heuristic of
 * Pisarchyk & Lee 2020): an in-place output and its input form one group (one buffer over both live
 * ranges); the groups of all programs are placed largest first into the smallest slot that is free over
 * the group's live range in its program (programs never run at the same time) and big enough, else into
 * the largest free slot (grown), else into a new slot. Largest first keeps the big full-resolution
 * tensors together instead of growing every slot to their size. Returns each program's slotOf.
 */
function assignSlots(progs: Program[], elemBytes: number, slots: Slot[]): Int32Array[] {
  interface Group { prog: number; members: number[]; start: number; end: number; bytes: number }
  const all: Group[] = [];
  // programs with the same tensor sizes, live ranges and in-place pairs (tiles of one size) share one
  // assignment: they never run at the same time, so the first stands for all (keeps tiled plans fast)
  const twinOf = new Map<string, number>();
  const twins: [number, number][] = [];
  const slotOfs = progs.map((g, pi) => {
    const live = liveness(g);
    const inPlace = inPlaceCandidates(g, live);
    const sig = `${g.tensors.map((t) => `${t.io ? 'io' : t.elems}@${live[t.id]}`).join(';')}|${[...inPlace].join(';')}`;
    const twin = twinOf.get(sig);
    if (twin !== undefined) {
      twins.push([pi, twin]);
      return new Int32Array(0);
    }
    twinOf.set(sig, pi);
    // groups: union of in-place pairs
    const root = g.tensors.map((t) => t.id);
    const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i]!)));
    for (const [y, src] of inPlace) root[find(y)] = find(src);
    const groups = new Map<number, Group>();
    for (const t of g.tensors) {
      if (t.io || live[t.id]![1] < 0) continue;
      const r = find(t.id);
      const grp = groups.get(r) ?? { prog: pi, members: [], start: Infinity, end: -Infinity, bytes: 0 };
      grp.members.push(t.id);
      grp.start = Math.min(grp.start, live[t.id]![0]);
      grp.end = Math.max(grp.end, live[t.id]![1]);
      grp.bytes = Math.max(grp.bytes, align4(t.elems * elemBytes));
      groups.set(r, grp);
    }
    for (const grp of groups.values()) all.push(grp); // not push(...): a frame-major program of 144 tiles has >100k groups (stack overflow)
    return new Int32Array(g.tensors.length).fill(-1);
  });
  // live ranges placed in each slot, per program
  const busy: Map<number, [number, number][]>[] = [];
  const free = (k: number, grp: Group) => (busy[k]!.get(grp.prog) ?? []).every(([s, e]) => e < grp.start || s > grp.end);
  all.sort((a, b) => b.bytes - a.bytes || a.prog - b.prog || a.start - b.start);
  for (const grp of all) {
    let best = -1;
    for (let k = 0; k < slots.length; k++) {
      if (!free(k, grp)) continue;
      if (best < 0) { best = k; continue; }
      const fits = slots[k]!.bytes >= grp.bytes, bestFits = slots[best]!.bytes >= grp.bytes;
      if (fits && (!bestFits || slots[k]!.bytes < slots[best]!.bytes)) best = k;
      else if (!fits && !bestFits && slots[k]!.bytes > slots[best]!.bytes) best = k;
    }
    if (best < 0) {
      best = slots.length;
      slots.push({ index: best, bytes: 0 });
      busy.push(new Map());
    }
    slots[best]!.bytes = Math.max(slots[best]!.bytes, grp.bytes);
    const list = busy[best]!.get(grp.prog) ?? [];
    list.push([grp.start, grp.end]);
    busy[best]!.set(grp.prog, list);
    for (const m of grp.members) slotOfs[grp.prog]![m] = best;
  }
  for (const [pi, twin] of twins) slotOfs[pi] = slotOfs[twin]!;
  return slotOfs;
}

/**
 * The steps that name every conv weight once per chunk kind: every tile runs the same layers, so the
 * latent part and the first tile stand for all (frame-major: the main program up to its second tile).
 * fitPlan plans hundreds of tilings; walking every tile's steps for the weights was ~10% of its time.
 */
function* weightSteps(programs: Partial<Record<ChunkKind, ProgramPlan[]>>): Generator<Step> {
  for (const pps of Object.values(programs)) {
    const first = pps![0]!.prog;
    yield* first.tileStarts && first.tileStarts.length > 1 ? first.steps.slice(0, first.tileStarts[1]) : first.steps;
    if (pps![1]) yield* pps![1].prog.steps;
  }
}

/** Uniform slots a step uses: one per dispatch (a chunked norm dispatches once per chunk). */
function dispatchesOf(s: Step): number {
  return kindOf(s).dispatches(s);
}

export function plan(cfg: DecoderConfig, options: PlanOptions): Plan {
  const opts = { ...options, rgba: options.rgba ?? false, norm: options.norm ?? 'full', normChunk: options.normChunk ?? DEFAULT_NORM_CHUNK };
  // the schema's checks (src/options/): one-line errors naming the option
  for (const k of ['norm', 'normChunk'] as const) if (problem(k, opts[k], 'api')) throw optionError(k, opts[k], 'api');
  const { frames, h, w } = opts;
  if (!(frames >= 1 && h >= 1 && w >= 1) || ![frames, h, w].every(Number.isInteger))
    throw new DecoderError('bad-input', `latent size must be positive integers, got T=${frames} h=${h} w=${w}`);
  if (opts.cacheOffload && (opts.tile?.order !== 'frame-major' || opts.cache === 'off'))
    throw new DecoderError('bad-input', `cache offload parks the cache rings of frame-major tiles: it needs frame-major tiling and the cache on (got ${opts.tile ? `${opts.tile.order} tiling` : 'whole frames'}, cache ${opts.cache})`);
  if (opts.cache === 'off' && cfg.version === '2.2')
    throw new DecoderError('unsupported', WAN22_CACHE_OFF);
  const elemBytes = opts.precision === 'f16' ? 2 : 4;
  const wFormat = convWeightFormat(opts.precision, opts.weightsPrecision); // throws for f32 weights with f16 storage
  // packed weights run the portable conv3d-wq (no tensor cores, no operand copy), except int8 with f16
  // storage: tensor cores (dequant-int8 expands each conv's weights to f16 just before its GEMM)
  if (wFormat !== 'elem' && !(wFormat === 'int8' && opts.precision === 'f16')) opts.tensorCores = false;
  const allTiles = opts.tile ? makeTiles(h, w, { th: opts.tile.th, tw: opts.tile.tw, mode: opts.tile.mode, halo: opts.tile.halo }) : null;
  // fitPlan's probe (tile-major): one tile per distinct shape, whose programs stand for all the others
  // (tile rings and slots are sized by the largest tile; tiles of one shape share a slot assignment)
  const shrink = opts.tile ? opts.tile.mode === 'exact' && (opts.tile.shrink ?? true) : false;
  const tiles = allTiles && opts.tile?.probe && opts.tile.order === 'tile-major' ? distinctTiles(allTiles, (t) => tileWindows(cfg, t, h, w, shrink)) : allTiles;
  const tiling: TilePlan | undefined = tiles && opts.tile
    ? { order: opts.tile.order, tiles, overlap: opts.tile.mode === 'blend' ? (opts.tile.halo ?? 2) : 0, shrink }
    : undefined;
  const kinds: ChunkKind[] = opts.cache === 'off' ? ['nocache'] : frames > 1 ? ['first', 'steady'] : ['first'];
  const slots: Slot[] = [];
  const programs: Partial<Record<ChunkKind, ProgramPlan[]>> = {};
  const all: Program[] = [];
  for (const k of kinds) {
    programs[k] = buildPrograms(cfg, k, h, w, tiling, { mode: opts.norm, chunk: opts.normChunk }).map((prog) => {
      all.push(prog);
      return { prog, slotOf: new Int32Array(0) };
    });
  }
  // --conv: the Winograd form of each eligible conv (f32 storage, f32 weights held on the GPU; banded scratch below)
  if (opts.precision === 'f32' && wFormat === 'elem' && !opts.weightsStream)
    for (const p of all) for (const s of p.steps) if (s.kind === 'conv') s.wino = convFormFor(opts.conv ?? 'direct', s) ?? undefined;
  const slotOfs = assignSlots(all, elemBytes, slots);
  let next = 0;
  for (const k of kinds) for (const pp of programs[k]!) pp.slotOf = slotOfs[next++]!;
  // rings: one per key, sized for its largest frame (tiles differ in size)
  const ringMap = new Map<string, RingPlan>();
  const tileRingKeys = new Set<string>();
  const frameMajorTiled = opts.tile?.order === 'frame-major';
  for (const p of all)
    for (const s of p.steps) {
      const push = kindOf(s).ringPush(s);
      if (!push) continue;
      // frame-major tile rings are keyed 't<j>.s<slot>' (graph.ts); offloaded, ring s<slot> of every tile shares one buffer
      const m = frameMajorTiled ? /^t(\d+)\.(.*)$/.exec(push.key) : null;
      const r = ringMap.get(push.key) ?? { key: push.key, label: s.label, frameElems: 0, bytes: 0, buffer: m && opts.cacheOffload ? `park.${m[2]}` : push.key, tile: m ? Number(m[1]) : null };
      r.frameElems = Math.max(r.frameElems, push.frameElems);
      r.bytes = align4(2 * r.frameElems * elemBytes);
      ringMap.set(push.key, r);
      if (p.name.startsWith('tile ')) tileRingKeys.add(push.key);
    }
  const rings = [...ringMap.values()];
  // GPU ring buffers: one per `buffer`, sized for the largest ring it holds
  const ringBuffers = new Map<string, number>();
  for (const r of rings) ringBuffers.set(r.buffer, Math.max(ringBuffers.get(r.buffer) ?? 0, r.bytes));
  let park: ParkedTile[] | null = null;
  // cache offload: the readback buffer holds the largest tile ring (not a whole tile's: ~2x less GPU memory, more maps)
  const parkStagingBytes = opts.cacheOffload ? Math.max(0, ...rings.filter((r) => r.tile !== null).map((r) => r.bytes)) : 0;
  if (opts.cacheOffload) {
    park = (tiles ?? []).map((t) => ({ tile: t.index, rings: [], bytes: 0, batches: 0 }));
    const fill = new Map<number, number>();
    for (const r of rings)
      if (r.tile !== null) {
        const pt = park[r.tile]!;
        let used = fill.get(r.tile) ?? parkStagingBytes;
        if (used + r.bytes > parkStagingBytes) (pt.batches++, (used = 0));
        pt.rings.push({ key: r.key, buffer: r.buffer, bytes: r.bytes, offset: pt.bytes, batch: pt.batches - 1, stagingOffset: used });
        fill.set(r.tile, used + r.bytes);
        pt.bytes += r.bytes;
      }
  }
  const H = h * cfg.scale, W = w * cfg.scale;
  const outFrameElems = 3 * H * W;
  const steadyFrames = programs.steady ? Math.max(...programs.steady.map((p) => p.prog.framesOut)) : 0;
  const framesOut = opts.cache === 'off' ? frames : 1 + (frames - 1) * steadyFrames;
  const maxDispatches = Math.max(...all.map((p) => p.steps.reduce((a, s) => a + dispatchesOf(s), 0)));
  const outElems = Math.max(...all.map((p) => p.outElems));
  const outRgbaElems = opts.rgba ? Math.max(...all.map((p) => p.outRgbaElems)) : 0;
  const b0 = cfg.upBlocks[0]!;
  const storePerChunk = tiling?.order === 'tile-major' ? (b0.dupUp ? 2 : 1) : 0;
  const storeFrameElems = storePerChunk ? Math.max(b0.resblocks.at(-1)?.cout ?? cfg.midDim, cfg.midDim) * h * w : 0;
  const latentBytes = align4(cfg.zDim * h * w * elemBytes);
  const outBytes = outElems * 4, rgbaBytes = outRgbaElems * 4;
  const storeEntryBytes = Math.ceil((storeFrameElems * elemBytes) / 256) * 256;
  const storeWhere = storePerChunk ? (opts.tile?.store ?? 'gpu') : null;
  if (opts.tile?.store === 'cpu' && opts.tile.order !== 'tile-major')
    throw new DecoderError('bad-input', "a CPU store needs tile-major order (frame-major keeps no store)");
  const storeBytes = storeEntryBytes * storePerChunk * frames;
  // tensor cores: one operand copy of the largest conv call (exec/resources.ts allocates it, bound whole)
  const mmaScratchBytes = opts.tensorCores && opts.precision === 'f16' && wFormat !== 'f16' ? align4(mmaScratchOf(all.flatMap((g) => g.steps)) * elemBytes) : 0;
  // + int8 weights: the f16 blocked weights of the largest conv (dequant-int8 writes them before each GEMM)
  const wqScratchBytes = opts.tensorCores && opts.precision === 'f16' && wFormat === 'int8' ? align4(wqScratchOf(weightSteps(programs)) * 2) : 0;
  // Winograd convs: V + M of the largest band (exec/resources.ts allocates it; kernels/winograd.ts caps it)
  const winoScratchBytes = align4(winoScratchOf(all.flatMap((g) => g.steps)) * 4);
  const memory: MemoryBreakdown = {
    // conv weights by the weights precision (int8: 1 byte per weight + a 4-byte scale per output channel)
    weights: weightBuffers(weightSteps(programs)).reduce((a, w) => a + (w.conv ? convWeightBytes(w.conv, wFormat, elemBytes, !!opts.tensorCores && opts.precision === 'f16') : align4(w.elems * elemBytes)), 0),
    // cache offload: the shared buffers of one tile's rings (+ the latent-rate part's rings)
    cache: [...ringBuffers.values()].reduce((a, b) => a + b, 0),
    // + tensor cores: one operand copy of the largest conv call (exec/resources.ts allocates it); int8: + the f16 weights of one conv
    activations: slots.reduce((a, s) => a + s.bytes, 0) + mmaScratchBytes + wqScratchBytes + winoScratchBytes,
    // 'cpu': one chunk's entries (the upload window); the host keeps all of them
    store: storeWhere === 'cpu' ? storeEntryBytes * storePerChunk : storeBytes,
    // latent frame in; rgb f32 (+ rgba) regions of one program out; a 4-byte dummy for unused bindings
    io: latentBytes + outBytes + rgbaBytes + 4,
    // two readback buffers of the rgb (+ rgba) regions (run i+1 runs while run i is read back);
    // 'cpu' store: plus one chunk's store entries
    // cache offload: plus one readback buffer of a tile's rings
    staging: 2 * (outBytes + rgbaBytes) + (storeWhere === 'cpu' ? storeEntryBytes * storePerChunk : 0) + parkStagingBytes,
    uniforms: maxDispatches * UNIFORM_STRIDE,
    total: 0,
  };
  memory.total = memory.weights + memory.cache + memory.activations + memory.store + memory.io + memory.staging + memory.uniforms;
  const largestBinding = Math.max(outBytes, storeEntryBytes, mmaScratchBytes, wqScratchBytes, winoScratchBytes, ...rings.map((r) => r.bytes), ...slots.map((s) => s.bytes));
  const largestBuffer = Math.max(largestBinding, memory.store, parkStagingBytes);
  const hostStoreBytes = storeWhere === 'cpu' ? storeBytes : 0;
  const parkBytes = park ? park.reduce((a, t) => a + t.bytes, 0) : 0;
  // frames being assembled (runtime/assembler.ts: rgb f32, rgba bytes, blend weights per pixel)
  const frameHostBytes = H * W * (12 + (opts.rgba ? 4 : 0) + (opts.tile?.mode === 'blend' ? 4 : 0));
  const assembling = tiling?.order === 'tile-major' ? framesOut : Math.max(1, steadyFrames);
  const host: HostBreakdown = { store: hostStoreBytes, cache: parkBytes, weights: 0, frames: assembling * frameHostBytes, total: 0 };
  host.total = host.store + host.cache + host.frames;
  // bus: per chunk, the 'cpu' store's entries come back once and go up before each tile's run; parked
  // rings come back after every chunk but the last and go up before every chunk but the first
  const storeChunk = storeWhere === 'cpu' ? storeEntryBytes * storePerChunk : 0;
  const nTiles = tiles?.length ?? 0;
  const chunkKind = (i: number): ChunkKind => (opts.cache === 'off' ? 'nocache' : i === 0 ? 'first' : 'steady');
  const framesOfChunk = (k: ChunkKind) => programs[k]!.reduce((a, pp) => a + (pp.prog.outElems + (opts.rgba ? pp.prog.outRgbaElems : 0)) * 4, 0);
  const frameBus = frames <= 1 ? framesOfChunk(chunkKind(0)) : framesOfChunk(chunkKind(0)) + (frames - 1) * framesOfChunk(chunkKind(1));
  const bus: BusTraffic = { store: frames * storeChunk * (1 + nTiles), cache: 2 * (frames - 1) * parkBytes, weights: 0, frames: frameBus, total: 0, perFrame: 0, leverSeconds: 0 };
  bus.total = bus.store + bus.cache + bus.frames;
  bus.perFrame = bus.total / framesOut;
  bus.leverSeconds = (bus.store + bus.cache) / BUS_BYTES_PER_S;
  const out: Plan = {
    cfg, opts, elemBytes, programs, tiles, slots, rings, tileRingKeys: [...tileRingKeys], storeFrameElems, storePerChunk,
    storeWhere, hostStoreBytes, host, bus, park, parkStagingBytes,
    outFrameElems, framesOut, height: H, width: W, outElems, outRgbaElems, uniformStride: UNIFORM_STRIDE, maxDispatches, memory,
    largestBuffer, largestBinding, storeEntryBytes, tileOverhead: allTiles ? tiledOverhead(cfg, allTiles, h, w, shrink) : 1, weightStream: null,
  };
  // --weights-stream: the conv weights in a ring of GPU buffers (weight-stream.ts; exact)
  return opts.weightsStream ? withWeightStream(out, true, opts.weightsStreamSlots) : out;
}

/** Throws DecoderError('limits') naming the buffer and the limit when the plan cannot run on `limits`. */
export function checkLimits(p: Plan, limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): void {
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (p.largestBinding > limits.maxStorageBufferBindingSize)
    throw new DecoderError('limits', `this decode binds a ${mib(p.largestBinding)} buffer; the adapter allows ${mib(limits.maxStorageBufferBindingSize)} per binding (maxStorageBufferBindingSize): use spatial tiling (--tile auto), f16 precision or a smaller size`);
  if (p.largestBuffer > limits.maxBufferSize)
    throw new DecoderError('limits', `this decode needs a ${mib(p.largestBuffer)} buffer; the adapter allows ${mib(limits.maxBufferSize)} (maxBufferSize): use spatial tiling, f16 precision or a smaller size`);
}
