// Weight streaming (--weights-stream): the conv weights stay in CPU memory and are uploaded, a group of
// consecutive convs at a time, into a small ring of GPU buffers just before the steps that read them.
// Pure planning (no GPU): which conv weight lives in which group at which offset, the ring's size, and
// the bytes that cross the bus in a decode (a replay of the decode's order of program runs over the
// ring). Biases and norm gammas stay resident (a few KiB per layer; a fused conv reads its norm's gamma
// beside its own weight, so only the weight is streamed). runtime/exec/weight-stream.ts executes this.
//
// Exactness: the kernels read the same packed bytes from a bound range of a ring slot instead of a
// buffer of their own, so the output is bit-identical to resident weights. WebGPU orders the upload's copy
// with the other submits on its one queue: a slot is rewritten only after the work that read its previous
// group was submitted, so no fence is needed; the copy itself runs between two compute segments on the GPU
// (one queue), the host copy into a mapped upload buffer happens while the GPU runs the work already submitted.
import { DecoderError } from '../gpu/errors';
import { convWeightFormat } from '../model/quantize';
import type { Program, Step } from './graph';
import { type Plan, type StreamEntry, type WeightStreamPlan } from './types';
import { convWeightBytes, kindOf, weightBuffers } from './step-kinds';

/** Storage-buffer offsets must be multiples of minStorageBufferOffsetAlignment: 256 is its largest allowed value. */
export const STREAM_ALIGN = 256;

export type { StreamEntry, WeightStreamPlan } from './types';

/** The streamed weight key of a step (a conv's weight), or null. */
export function streamedKey(s: Step): string | null {
  for (const w of kindOf(s).weights(s)) if (w.conv) return w.key;
  return null;
}

/** Bytes of every weight buffer of `steps` as the GPU holds it (conv weights by the weights precision's format). */
export function weightBytesByKey(steps: Step[], opts: Pick<Plan['opts'], 'precision' | 'weightsPrecision' | 'tensorCores'>): Map<string, number> {
  const elemBytes = opts.precision === 'f16' ? 2 : 4;
  const f = convWeightFormat(opts.precision, opts.weightsPrecision);
  return new Map(weightBuffers(steps).map((w) => [w.key, w.conv ? convWeightBytes(w.conv, f, elemBytes, !!opts.tensorCores && opts.precision === 'f16') : Math.ceil((w.elems * elemBytes) / 4) * 4]));
}

/**
 * Groups consecutive conv weights (first use, in the order of `order`'s steps) into groups of at most
 * the largest single weight (aligned); `bytesOf(key)` = the packed bytes the GPU reads. `slotsWanted`:
 * ring slots (>= 2); default the fewest with which no program run uploads a group twice (the higher
 * levels run once per frame of the chunk: their groups then stay in the ring between the frames).
 */
export function planWeightStream(order: Program[], runs: Program[], frames: number, bytesOf: (key: string) => number, slotsWanted?: number): WeightStreamPlan {
  return streamGroups(order, runs, bytesOf).withSlots(frames, slotsWanted);
}

/** The groups of planWeightStream and the fewest slots without repeats, then the ring of any slot count (fitPlan tries several). */
function streamGroups(
  order: Program[],
  runs: Program[],
  bytesOf: (key: string) => number,
): { leastRingBytes: number; entries: Map<string, StreamEntry>; withSlots(frames: number, slotsWanted?: number): WeightStreamPlan } {
  const align = (n: number) => Math.ceil(n / STREAM_ALIGN) * STREAM_ALIGN;
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const p of order)
    for (const s of p.steps) {
      const k = streamedKey(s);
      if (k && !seen.has(k)) {
        seen.add(k);
        keys.push(k);
      }
    }
  const cap = Math.max(STREAM_ALIGN, ...keys.map((k) => align(bytesOf(k))));
  const entries = new Map<string, StreamEntry>();
  const groups: number[] = [];
  let used = cap; // forces a first group
  let hostBytes = 0;
  for (const k of keys) {
    const bytes = bytesOf(k);
    hostBytes += bytes;
    if (used + align(bytes) > cap) {
      groups.push(0);
      used = 0;
    }
    entries.set(k, { key: k, group: groups.length - 1, offset: used, bytes });
    used += align(bytes);
    groups[groups.length - 1] = used;
  }
  const seqOf = new Map<Program, number[]>();
  for (const p of runs) if (!seqOf.has(p)) seqOf.set(p, segmentGroups(p, entries));
  // replay over a ring of n slots: one upload wherever a segment's group is not in its slot (g mod n)
  const replay = (n: number, list: Iterable<number[]>) => {
    const holds = new Array<number>(n).fill(-1);
    let bytes = 0,
      count = 0;
    for (const seq of list)
      for (const g of seq) {
        if (holds[g % n] === g) continue;
        holds[g % n] = g;
        bytes += groups[g]!;
        count++;
      }
    return { bytes, count };
  };
  const most = Math.max(2, groups.length);
  let slotsNoRepeat = 2;
  // the fewest slots with which every program, run alone from a cold ring, uploads each of its groups once
  const once = (n: number) => [...seqOf.values()].every((seq) => replay(n, [seq]).count === new Set(seq).size);
  while (slotsNoRepeat < most && !once(slotsNoRepeat)) slotsNoRepeat++;
  const residentBytes = [...entries.values()].reduce((a, e) => a + Math.ceil(e.bytes / 4) * 4, 0);
  const runSeqs = runs.map((p) => seqOf.get(p)!);
  return {
    /** the least ring any slot count takes: the largest group in one slot, another of at least STREAM_ALIGN */
    leastRingBytes: Math.max(STREAM_ALIGN, ...groups) + STREAM_ALIGN,
    entries,
    withSlots(frames: number, slotsWanted?: number): WeightStreamPlan {
      const slots = Math.min(slotsWanted ?? slotsNoRepeat, most);
      const slotBytes = Array.from({ length: slots }, (_, k) => Math.max(STREAM_ALIGN, ...groups.filter((_, g) => g % slots === k)));
      const { bytes: busBytes, count: uploads } = replay(slots, runSeqs);
      return { slots, slotBytes, groups, entries, hostBytes, residentBytes, busBytes, busBytesPerChunk: busBytes / frames, uploads, slotsNoRepeat };
    },
  };
}

/** streamGroups of a plan's programs (by identity: withWeightStream's copies share them), for fitPlan's tries of several slot counts */
const groupsOf = new WeakMap<Plan['programs'], { bytes: Map<string, number>; groups: ReturnType<typeof streamGroups> }>();

/** The group of each segment of a program: a new segment wherever a conv reads a group other than the last one's. */
export function segmentGroups(p: Program, entries: Map<string, StreamEntry>): number[] {
  const seq: number[] = [];
  for (const s of p.steps) {
    const k = streamedKey(s);
    const g = k ? entries.get(k)!.group : -1;
    if (g >= 0 && g !== seq.at(-1)) seq.push(g);
  }
  return seq;
}

/** The program runs of one decode in the order gpu-decoder.ts runs them (tile-major: the latent program of every chunk, then tile by tile). */
export function runOrder(p: Pick<Plan, 'programs' | 'opts'>): Program[] {
  const { frames, cache } = p.opts;
  const kind = (i: number) => (cache === 'off' ? 'nocache' : i === 0 ? 'first' : 'steady');
  const prog = (i: number, j: number) => p.programs[kind(i)]![j]!.prog;
  const runs: Program[] = [];
  for (let i = 0; i < frames; i++) runs.push(prog(i, 0));
  if (p.opts.tile?.order !== 'tile-major') return runs;
  const nTiles = p.programs[kind(0)]!.length - 1;
  for (let j = 0; j < nTiles; j++) for (let i = 0; i < frames; i++) runs.push(prog(i, 1 + j));
  return runs;
}

/**
 * `p` with its conv weights streamed through a ring of `slots` slots (default: the fewest with no
 * repeated upload in a run), or resident again (`stream` false): only the weights figure (and the total)
 * change, so fitPlan can try the stream on a plan without planning it again.
 */
function groupsFor(p: Plan) {
  let g = groupsOf.get(p.programs);
  if (!g) {
    const all = Object.values(p.programs)
      .flat()
      .map((x) => x.prog);
    const bytes = weightBytesByKey(
      all.flatMap((x) => x.steps),
      p.opts,
    );
    g = { bytes, groups: streamGroups([...(p.programs.steady ?? []).map((x) => x.prog), ...all], runOrder(p), (k) => bytes.get(k)!) };
    groupsOf.set(p.programs, g);
  }
  return g;
}

/**
 * A lower bound of `p`'s GPU bytes with its weights streamed through any ring (>= 2 slots): fitPlan skips
 * the replay of every slot count on tilings where even this does not fit (no plan changes: a bound).
 */
export function streamedFloor(p: Plan): number {
  const g = groupsFor(p);
  let weights = g.groups.leastRingBytes;
  for (const [k, b] of g.bytes) if (!g.groups.entries.has(k)) weights += b;
  return p.memory.total - p.memory.weights + weights;
}

export function withWeightStream(p: Plan, stream: boolean, slots?: number): Plan {
  if (slots !== undefined && !(Number.isInteger(slots) && slots >= 2)) throw new DecoderError('bad-input', `weight stream slots must be an integer >= 2, got ${String(slots)}`);
  const g = groupsFor(p);
  const bytes = g.bytes;
  const ws = stream ? g.groups.withSlots(p.opts.frames, slots) : null;
  let weights = 0;
  for (const [k, b] of bytes) if (!ws?.entries.has(k)) weights += b;
  if (ws) weights += ws.slotBytes.reduce((a, b) => a + b, 0);
  const memory = { ...p.memory, weights, total: p.memory.total - p.memory.weights + weights };
  // CPU memory and bus traffic: the host keeps every packed group; the replay's uploads cross the bus
  const host = { ...p.host, weights: ws?.hostBytes ?? 0 };
  host.total = p.host.total - p.host.weights + host.weights;
  const bus = { ...p.bus, weights: ws?.busBytes ?? 0 };
  bus.total = p.bus.total - p.bus.weights + bus.weights;
  bus.perFrame = bus.total / p.framesOut;
  return { ...p, opts: { ...p.opts, weightsStream: stream, weightsStreamSlots: stream ? slots : undefined }, memory, host, bus, weightStream: ws };
}
