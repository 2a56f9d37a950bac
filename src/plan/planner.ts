// Planner: pure TypeScript, no GPU. Turns config + latent size + options into a Plan: the step lists of
// the chunk kinds, every SSA tensor assigned to a reusable transient slot by liveness (interval
// colouring: two tensors share a slot only when their live ranges do not overlap), the cache rings,
// and the exact GPU bytes by owner. The arena allocates exactly this; nothing is allocated per frame.
import { DecoderError } from '../gpu/errors';
import type { DecoderConfig } from '../model/config';
import { buildPrograms, DEFAULT_NORM_CHUNK, type ChunkKind, type Program, type Step, type TilePlan, type View } from './graph';
import { convWeightFormat } from '../model/quantize';
import { assignAttentionTensors } from './attention-form';
import { assignConvForms, assignStatsInPack, assignWinoU, countsInt8Scratch, countsMmaScratch, planOnTensorCores, tensorCoresAllowed, type ConvFormContext } from './conv-form';
import { convWeightBytes, kindOf, mmaScratchOf, stepScratchBytes, winoScratchOf, weightBuffers, wqScratchOf } from './step-kinds';
import { makeTiles, type Tile } from './tiling';
import { tiledOverhead, tileWindows, type LevelWindow } from './tile-windows';
import { withWeightStream } from './weight-stream';
import type { BusTraffic, HostBreakdown, MemoryBreakdown, ParkedTile, Plan, PlanOptions, ProgramPlan, RingPlan, ScratchPlace, Slot } from './types';
import { optionError, problem } from '../options/check';
import { WAN22_CACHE_OFF } from '../options/schema';

export * from './types';
export { DEFAULT_NORM_CHUNK } from './graph';

/**
 * One tile per distinct (computed, kept, written) size, and window sizes at every level (shrinking
 * windows clip at the frame edge level by level): a probe plan's tiles (TileOption.probe).
 */
function distinctTiles(tiles: Tile[], windows: (t: Tile) => LevelWindow[]): Tile[] {
  const seen = new Map<string, Tile>();
  const dims = (r: Tile['core']) => `${r.y1 - r.y0}x${r.x1 - r.x0}`;
  for (const t of tiles) {
    const k = `${dims(t.ext)}|${dims(t.core)}|${dims(t.out)}|${windows(t)
      .map((l) => `${dims(l.pre)}>${dims(l.win)}`)
      .join(',')}`;
    if (!seen.has(k)) seen.set(k, t);
  }
  return [...seen.values()];
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

/** Byte alignment of a step's scratch inside its slot (bound at an offset: WebGPU's minStorageBufferOffsetAlignment upper bound). */
const SCRATCH_ALIGN = 256;

/**
 * Assign the tensors of every program to slots, greedy by size (the shared-objects heuristic of
 * Pisarchyk & Lee 2020): an in-place output and its input form one group (one buffer over both live
 * ranges); the groups of all programs are placed largest first into the smallest slot that is free over
 * the group's live range in its program (programs never run at the same time) and big enough, else into
 * the largest free slot (grown), else into a new slot. Largest first keeps the big full-resolution
 * tensors together instead of growing every slot to their size.
 * Then each step's step-local scratch (stepScratchBytes: a per-call Winograd U), live at that step alone:
 * at the end of a slot, past what the slot's groups live at that step take (a 146 MiB slot holding a
 * 73 MiB tensor of a low-resolution level has room for U), the smallest slot where it fits, else the
 * slot it grows least (or a new one where that is less). The tensors' placement is the same with or
 * without scratch. Returns each program's slotOf and scratchOf (by step index).
 */
function assignSlots(progs: Program[], elemBytes: number, slots: Slot[]): { slotOfs: Int32Array[]; scratchOfs: (ScratchPlace | undefined)[][] } {
  interface Group {
    prog: number;
    members: number[];
    start: number;
    end: number;
    bytes: number;
  }
  const all: Group[] = [];
  const scratchAll: { prog: number; step: number; bytes: number }[] = [];
  // programs with the same tensor sizes, live ranges and in-place pairs (tiles of one size) share one
  // assignment: they never run at the same time, so the first stands for all (keeps tiled plans fast)
  const twinOf = new Map<string, number>();
  const twins: [number, number][] = [];
  const slotOfs = progs.map((g, pi) => {
    const live = liveness(g);
    const inPlace = inPlaceCandidates(g, live);
    const scratch = g.steps.map((s) => stepScratchBytes(s, elemBytes));
    const sig = `${g.tensors.map((t) => `${t.io ? 'io' : t.elems}@${live[t.id]}`).join(';')}|${[...inPlace].join(';')}${scratch.some((b) => b) ? `|${scratch.join(';')}` : ''}`;
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
    scratch.forEach((b, i) => b && scratchAll.push({ prog: pi, step: i, bytes: align4(b) }));
    return new Int32Array(g.tensors.length).fill(-1);
  });
  // live ranges placed in each slot, per program, with the bytes they take from the slot's start
  const busy: Map<number, [number, number, number][]>[] = [];
  const free = (k: number, grp: Group) => (busy[k]!.get(grp.prog) ?? []).every(([s, e]) => e < grp.start || s > grp.end);
  const place = (k: number, prog: number, start: number, end: number, top: number) => {
    slots[k]!.bytes = Math.max(slots[k]!.bytes, top);
    const list = busy[k]!.get(prog) ?? [];
    list.push([start, end, top]);
    busy[k]!.set(prog, list);
  };
  const newSlot = () => {
    slots.push({ index: slots.length, bytes: 0 });
    busy.push(new Map());
    return slots.length - 1;
  };
  all.sort((a, b) => b.bytes - a.bytes || a.prog - b.prog || a.start - b.start);
  for (const grp of all) {
    let best = -1;
    for (let k = 0; k < slots.length; k++) {
      if (!free(k, grp)) continue;
      if (best < 0) {
        best = k;
        continue;
      }
      const fits = slots[k]!.bytes >= grp.bytes,
        bestFits = slots[best]!.bytes >= grp.bytes;
      if (fits && (!bestFits || slots[k]!.bytes < slots[best]!.bytes)) best = k;
      else if (!fits && !bestFits && slots[k]!.bytes > slots[best]!.bytes) best = k;
    }
    if (best < 0) best = newSlot();
    place(best, grp.prog, grp.start, grp.end, grp.bytes);
    for (const m of grp.members) slotOfs[grp.prog]![m] = best;
  }
  const scratchOfs: (ScratchPlace | undefined)[][] = progs.map(() => []);
  for (const sc of scratchAll) {
    // per slot: the offset past its groups live at this step, and the bytes the slot would grow by
    let best = -1,
      bestOff = 0,
      bestGrow = sc.bytes; // a new slot grows the plan by the scratch itself
    for (let k = 0; k < slots.length; k++) {
      let used = 0;
      for (const [s, e, top] of busy[k]!.get(sc.prog) ?? []) if (s <= sc.step && e >= sc.step) used = Math.max(used, top);
      const off = Math.ceil(used / SCRATCH_ALIGN) * SCRATCH_ALIGN;
      const grow = Math.max(0, off + sc.bytes - slots[k]!.bytes);
      if (grow < bestGrow || (grow === bestGrow && best >= 0 && grow === 0 && slots[k]!.bytes < slots[best]!.bytes)) [best, bestOff, bestGrow] = [k, off, grow];
    }
    if (best < 0) [best, bestOff] = [newSlot(), 0];
    place(best, sc.prog, sc.step, sc.step, bestOff + sc.bytes);
    scratchOfs[sc.prog]![sc.step] = { slot: best, offset: bestOff };
  }
  for (const [pi, twin] of twins) ((slotOfs[pi] = slotOfs[twin]!), (scratchOfs[pi] = scratchOfs[twin]!));
  return { slotOfs, scratchOfs };
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

type PlanOpts = Plan['opts'];

/**
 * Stage 1, validation: the options with their defaults, checked (one-line errors naming the option), the
 * conv weights' format and the context of the conv-form decision (conv-form.ts).
 */
function validated(cfg: DecoderConfig, options: PlanOptions): { opts: PlanOpts; elemBytes: number; wFormat: ReturnType<typeof convWeightFormat>; forms: ConvFormContext } {
  const opts = { ...options, rgba: options.rgba ?? false, norm: options.norm ?? 'full', normChunk: options.normChunk ?? DEFAULT_NORM_CHUNK };
  // the schema's checks (src/options/): one-line errors naming the option
  for (const k of ['norm', 'normChunk'] as const) if (problem(k, opts[k], 'api')) throw optionError(k, opts[k], 'api');
  const { frames, h, w } = opts;
  if (!(frames >= 1 && h >= 1 && w >= 1) || ![frames, h, w].every(Number.isInteger)) throw new DecoderError('bad-input', `latent size must be positive integers, got T=${frames} h=${h} w=${w}`);
  if (opts.cacheOffload && (opts.tile?.order !== 'frame-major' || opts.cache === 'off'))
    throw new DecoderError(
      'bad-input',
      `cache offload parks the cache rings of frame-major tiles: it needs frame-major tiling and the cache on (got ${opts.tile ? `${opts.tile.order} tiling` : 'whole frames'}, cache ${opts.cache})`,
    );
  if (opts.cache === 'off' && cfg.version === '2.2') throw new DecoderError('unsupported', WAN22_CACHE_OFF);
  const elemBytes = opts.precision === 'f16' ? 2 : 4;
  const wFormat = convWeightFormat(opts.precision, opts.weightsPrecision); // throws for f32 weights with f16 storage
  // the conv forms (conv-form.ts): packed weights keep tensor cores only as int8 with f16 storage
  if (!tensorCoresAllowed(opts.precision, wFormat)) opts.tensorCores = false;
  const forms: ConvFormContext = {
    precision: opts.precision,
    wFormat,
    tensorCores: !!opts.tensorCores,
    weightsStream: !!opts.weightsStream,
    conv: opts.conv ?? 'direct',
    upPhases: opts.upPhases !== false,
  };
  return { opts, elemBytes, wFormat, forms };
}

/** Stage 2, graph building: the tiles (a probe's distinct ones) and the programs of every chunk kind (graph.ts). */
function chunkPrograms(cfg: DecoderConfig, opts: PlanOpts) {
  const { frames, h, w } = opts;
  const allTiles = opts.tile ? makeTiles(h, w, { th: opts.tile.th, tw: opts.tile.tw, mode: opts.tile.mode, halo: opts.tile.halo }) : null;
  // fitPlan's probe (tile-major): one tile per distinct shape, whose programs stand for all the others
  // (tile rings and slots are sized by the largest tile; tiles of one shape share a slot assignment)
  const shrink = opts.tile ? opts.tile.mode === 'exact' && (opts.tile.shrink ?? true) : false;
  const tiles = allTiles && opts.tile?.probe && opts.tile.order === 'tile-major' ? distinctTiles(allTiles, (t) => tileWindows(cfg, t, h, w, shrink)) : allTiles;
  const tiling: TilePlan | undefined = tiles && opts.tile ? { order: opts.tile.order, tiles, overlap: opts.tile.mode === 'blend' ? (opts.tile.halo ?? 2) : 0, shrink } : undefined;
  const kinds: ChunkKind[] = opts.cache === 'off' ? ['nocache'] : frames > 1 ? ['first', 'steady'] : ['first'];
  const programs: Partial<Record<ChunkKind, ProgramPlan[]>> = {};
  const all: Program[] = [];
  for (const k of kinds) {
    programs[k] = buildPrograms(cfg, k, h, w, tiling, { mode: opts.norm, chunk: opts.normChunk }).map((prog) => {
      all.push(prog);
      return { prog, slotOf: new Int32Array(0) };
    });
  }
  return { allTiles, shrink, tiles, tiling, kinds, programs, all };
}

/** Stage 4, the cache rings: one per key, their GPU buffers, and (cache offload) each tile's parked rings. */
function planRings(all: Program[], opts: PlanOpts, elemBytes: number, tiles: Tile[] | null) {
  // one ring per key, sized for its largest frame (tiles differ in size)
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
  return { rings, tileRingKeys, ringBuffers, park, parkStagingBytes };
}

/**
 * The plan of a decode: validation (stage 1), the programs (2), each conv's form recorded on its step
 * (3, conv-form.ts) and the slots by liveness, the rings (4), then the accounting (5): GPU bytes by owner,
 * limits, host memory and bus traffic; weight streaming last (weight-stream.ts).
 */
export function plan(cfg: DecoderConfig, options: PlanOptions): Plan {
  const { opts, elemBytes, wFormat, forms } = validated(cfg, options);
  const { frames, h, w } = opts;
  const { allTiles, shrink, tiles, tiling, kinds, programs, all } = chunkPrograms(cfg, opts);
  const slots: Slot[] = [];
  // every conv's form, recorded on its step (conv-form.ts; Winograd: banded scratch below)
  for (const p of all) assignConvForms(p.steps, forms);
  // the attention's forms on tensor cores that need tensors of their own (split over keys, packed qkv; attention-form.ts)
  for (const p of all) assignAttentionTensors(p, opts, elemBytes);
  // the Winograd convs' U: held, or made per conv call into a step-local scratch (conv-form.ts assignWinoU: all programs at once; assignSlots places it)
  assignWinoU(
    all.flatMap((g) => g.steps),
    opts.winoU ?? 'auto',
    elemBytes,
  );
  for (const p of all) assignStatsInPack(p);
  const { slotOfs, scratchOfs } = assignSlots(all, elemBytes, slots);
  let next = 0;
  for (const k of kinds)
    for (const pp of programs[k]!) {
      const sc = scratchOfs[next]!;
      pp.slotOf = slotOfs[next++]!;
      if (sc.length) pp.scratchOf = sc;
    }
  const { rings, tileRingKeys, ringBuffers, park, parkStagingBytes } = planRings(all, opts, elemBytes, tiles);
  // stage 5, accounting
  const H = h * cfg.scale,
    W = w * cfg.scale;
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
  const outBytes = outElems * 4,
    rgbaBytes = outRgbaElems * 4;
  const storeEntryBytes = Math.ceil((storeFrameElems * elemBytes) / 256) * 256;
  const storeWhere = storePerChunk ? (opts.tile?.store ?? 'gpu') : null;
  if (opts.tile?.store === 'cpu' && opts.tile.order !== 'tile-major') throw new DecoderError('bad-input', 'a CPU store needs tile-major order (frame-major keeps no store)');
  const storeBytes = storeEntryBytes * storePerChunk * frames;
  // tensor cores: one operand copy of the largest conv call (exec/resources.ts allocates it, bound whole)
  const mmaScratchBytes = countsMmaScratch(forms) ? align4(mmaScratchOf(all.flatMap((g) => g.steps)) * elemBytes) : 0;
  // + int8 weights: the f16 blocked weights of the largest conv (dequant-int8 writes them before each GEMM)
  const wqScratchBytes = countsInt8Scratch(forms) ? align4(wqScratchOf(weightSteps(programs)) * 2) : 0;
  // Winograd convs: V + M of the largest band (exec/resources.ts allocates it; kernels/winograd.ts caps it)
  const winoScratchBytes = align4(
    winoScratchOf(
      all.flatMap((g) => g.steps),
      elemBytes,
    ),
  );
  const memory: MemoryBreakdown = {
    // conv weights by the weights precision (int8: 1 byte per weight + a 4-byte scale per output channel)
    weights: weightBuffers(weightSteps(programs)).reduce(
      (a, w) => a + (w.conv ? convWeightBytes(w.conv, wFormat, elemBytes, planOnTensorCores(opts)) : align4(w.elems * (w.wino?.f32 || w.winoRows ? 4 : elemBytes))),
      0,
    ),
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
  const bus: BusTraffic = { store: frames * storeChunk * (1 + nTiles), cache: 2 * (frames - 1) * parkBytes, weights: 0, frames: frameBus, total: 0, perFrame: 0 };
  bus.total = bus.store + bus.cache + bus.frames;
  bus.perFrame = bus.total / framesOut;
  const out: Plan = {
    cfg,
    opts,
    elemBytes,
    programs,
    tiles,
    slots,
    rings,
    tileRingKeys: [...tileRingKeys],
    storeFrameElems,
    storePerChunk,
    storeWhere,
    hostStoreBytes,
    host,
    bus,
    park,
    parkStagingBytes,
    outFrameElems,
    framesOut,
    height: H,
    width: W,
    outElems,
    outRgbaElems,
    uniformStride: UNIFORM_STRIDE,
    maxDispatches,
    memory,
    largestBuffer,
    largestBinding,
    storeEntryBytes,
    tileOverhead: allTiles ? tiledOverhead(cfg, allTiles, h, w, shrink) : 1,
    weightStream: null,
  };
  // --weights-stream: the conv weights in a ring of GPU buffers (weight-stream.ts; exact)
  return opts.weightsStream ? withWeightStream(out, true, opts.weightsStreamSlots) : out;
}

/** Throws DecoderError('limits') naming the buffer and the limit when the plan cannot run on `limits`. */
export function checkLimits(p: Plan, limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): void {
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (p.largestBinding > limits.maxStorageBufferBindingSize)
    throw new DecoderError(
      'limits',
      `this decode binds a ${mib(p.largestBinding)} buffer; the adapter allows ${mib(limits.maxStorageBufferBindingSize)} per binding (maxStorageBufferBindingSize): use spatial tiling (--tile auto), f16 precision or a smaller size`,
    );
  if (p.largestBuffer > limits.maxBufferSize)
    throw new DecoderError(
      'limits',
      `this decode needs a ${mib(p.largestBuffer)} buffer; the adapter allows ${mib(limits.maxBufferSize)} (maxBufferSize): use spatial tiling, f16 precision or a smaller size`,
    );
}
