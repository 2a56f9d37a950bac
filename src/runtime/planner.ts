// Planner: pure TypeScript, no GPU. Turns config + latent size + options into a Plan: the step lists of
// the chunk kinds, every SSA tensor assigned to a reusable transient slot by liveness (interval
// colouring: two tensors share a slot only when their live ranges do not overlap), the cache rings,
// and the exact GPU bytes by owner. The arena allocates exactly this; nothing is allocated per frame.
import { DecoderError } from '../gpu/errors';
import type { DecoderConfig } from '../model/config';
import { packedConvWeightLength } from '../kernels/conv3d';
import { buildChunk, rings, type ChunkGraph, type ChunkKind, type Ring, type Step, type View } from './graph';

export type Precision = 'f32' | 'f16';

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
  /** read back RGBA8 frames too (for display) */
  rgba?: boolean;
}

export interface Slot {
  index: number;
  bytes: number;
}

export interface ChunkPlan {
  graph: ChunkGraph;
  /** slot index of each tensor id (-1 for io tensors) */
  slotOf: Int32Array;
}

export type MemoryBreakdown = {
  weights: number;
  cache: number;
  activations: number;
  io: number;
  staging: number;
  uniforms: number;
  total: number;
};

export interface Plan {
  cfg: DecoderConfig;
  opts: Required<PlanOptions>;
  elemBytes: number;
  chunks: Partial<Record<ChunkKind, ChunkPlan>>;
  slots: Slot[];
  rings: Ring[];
  /** bytes of one ring (2 frames) per ring, same order as rings */
  ringBytes: number[];
  outFrameElems: number;
  framesOut: number;
  height: number;
  width: number;
  maxFramesPerChunk: number;
  uniformStride: number;
  maxSteps: number;
  memory: MemoryBreakdown;
  /** largest single buffer, for the binding-size limit check */
  largestBuffer: number;
}

const UNIFORM_STRIDE = 256; // minUniformBufferOffsetAlignment upper bound in the spec

function align4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

function viewsOf(s: Step): View[] {
  switch (s.kind) {
    case 'conv':
      return s.res ? [s.x, s.y, s.res] : [s.x, s.y];
    case 'norm':
      return [s.x, s.y];
    case 'attn':
      return [s.qkv, s.o];
    case 'dupadd':
      return [s.x, s.y];
    case 'output':
      return [s.x];
  }
}

/** Live range [first, last] step index of every tensor. */
function liveness(g: ChunkGraph): [number, number][] {
  const r: [number, number][] = g.tensors.map(() => [Infinity, -Infinity]);
  g.steps.forEach((s, i) => {
    for (const v of viewsOf(s)) {
      const x = r[v.t.id]!;
      x[0] = Math.min(x[0], i);
      x[1] = Math.max(x[1], i);
    }
  });
  return r;
}

/**
 * Assign tensors to slots: walk tensors by first use; reuse the free slot whose size fits best
 * (smallest >= need), else grow the largest free slot, else open a new slot. Returns slot sizes.
 */
function assignSlots(g: ChunkGraph, elemBytes: number, slots: Slot[]): Int32Array {
  const live = liveness(g);
  const slotOf = new Int32Array(g.tensors.length).fill(-1);
  const busyUntil = slots.map(() => -1);
  const order = g.tensors.filter((t) => !t.io && live[t.id]![1] >= 0).sort((a, b) => live[a.id]![0] - live[b.id]![0]);
  for (const t of order) {
    const [start, end] = live[t.id]!;
    const need = align4(t.elems * elemBytes);
    let best = -1;
    for (let i = 0; i < slots.length; i++) {
      if (busyUntil[i]! >= start) continue;
      if (best < 0) best = i;
      const fits = slots[i]!.bytes >= need, bestFits = slots[best]!.bytes >= need;
      if (fits && (!bestFits || slots[i]!.bytes < slots[best]!.bytes)) best = i;
      else if (!fits && !bestFits && slots[i]!.bytes > slots[best]!.bytes) best = i;
    }
    if (best < 0) {
      best = slots.length;
      slots.push({ index: best, bytes: 0 });
      busyUntil.push(-1);
    }
    slots[best]!.bytes = Math.max(slots[best]!.bytes, need);
    busyUntil[best] = end;
    slotOf[t.id] = best;
  }
  return slotOf;
}

/**
 * Every weight buffer the steps of the plan's chunk kinds use: conv weights packed by packConvWeight
 * (cout padded to a multiple of 4), biases, norm gammas. The arena uploads exactly these.
 */
export function weightBuffers(chunks: ChunkGraph[]): { key: string; elems: number; step: Step }[] {
  const seen = new Set<string>();
  const out: { key: string; elems: number; step: Step }[] = [];
  const add = (key: string, elems: number, step: Step) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ key, elems, step });
  };
  for (const g of chunks)
    for (const s of g.steps) {
      if (s.kind === 'conv') {
        add(`${s.wkey}.weight`, packedConvWeightLength(s.cout, s.cin, s.kt, s.ks), s);
        add(`${s.wkey}.bias`, s.cout, s);
      } else if (s.kind === 'norm') add(s.gkey, s.c, s);
    }
  return out;
}

export function plan(cfg: DecoderConfig, options: PlanOptions): Plan {
  const opts: Required<PlanOptions> = { rgba: false, ...options };
  const { frames, h, w } = opts;
  if (!(frames >= 1 && h >= 1 && w >= 1) || ![frames, h, w].every(Number.isInteger))
    throw new DecoderError('bad-input', `latent size must be positive integers, got T=${frames} h=${h} w=${w}`);
  if (opts.cache === 'off' && cfg.version === '2.2')
    throw new DecoderError('unsupported', 'cache off is not possible for Wan2.2: with feat_cache=None its DupUp3D shortcut doubles time while the main path does not, and the official code raises a shape error');
  const elemBytes = opts.precision === 'f16' ? 2 : 4;
  const kinds: ChunkKind[] = opts.cache === 'off' ? ['nocache'] : frames > 1 ? ['first', 'steady'] : ['first'];
  const slots: Slot[] = [];
  const chunks: Partial<Record<ChunkKind, ChunkPlan>> = {};
  for (const k of kinds) {
    const graph = buildChunk(cfg, k, h, w);
    chunks[k] = { graph, slotOf: assignSlots(graph, elemBytes, slots) };
  }
  const rs = opts.cache === 'on' ? rings(cfg, h, w) : [];
  const ringBytes = rs.map((r) => align4(2 * r.frameElems * elemBytes));
  const maxFramesPerChunk = Math.max(...kinds.map((k) => chunks[k]!.graph.framesOut));
  const H = h * cfg.scale, W = w * cfg.scale;
  const outFrameElems = 3 * H * W;
  const framesOut = opts.cache === 'off' ? frames : 1 + (frames - 1) * (chunks.steady?.graph.framesOut ?? 0);
  const maxSteps = Math.max(...kinds.map((k) => chunks[k]!.graph.steps.length));
  const latentBytes = align4(cfg.zDim * h * w * elemBytes);
  const outBytes = maxFramesPerChunk * outFrameElems * 4;
  const rgbaBytes = opts.rgba ? maxFramesPerChunk * H * W * 4 : 0;
  const memory: MemoryBreakdown = {
    weights: weightBuffers(kinds.map((k) => chunks[k]!.graph)).reduce((a, w) => a + align4(w.elems * elemBytes), 0),
    cache: ringBytes.reduce((a, b) => a + b, 0),
    activations: slots.reduce((a, s) => a + s.bytes, 0),
    // latent frame in; rgb f32 (+ rgba) frames of one chunk out; a 4-byte dummy for unused bindings
    io: latentBytes + outBytes + rgbaBytes + 4,
    staging: outBytes + rgbaBytes,
    uniforms: maxSteps * UNIFORM_STRIDE,
    total: 0,
  };
  memory.total = memory.weights + memory.cache + memory.activations + memory.io + memory.staging + memory.uniforms;
  const largestBuffer = Math.max(outBytes, ...ringBytes, ...slots.map((s) => s.bytes));
  return {
    cfg, opts, elemBytes, chunks, slots, rings: rs, ringBytes, outFrameElems, framesOut, height: H, width: W,
    maxFramesPerChunk, uniformStride: UNIFORM_STRIDE, maxSteps, memory, largestBuffer,
  };
}

/** Throws DecoderError('limits') naming the buffer and the limit when the plan cannot run on `limits`. */
export function checkLimits(p: Plan, limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): void {
  const max = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  if (p.largestBuffer > max)
    throw new DecoderError('limits', `this decode needs a ${(p.largestBuffer / 2 ** 20).toFixed(1)} MiB buffer; the adapter allows ${(max / 2 ** 20).toFixed(1)} MiB per binding: use a smaller size, f16 precision or spatial tiling`);
}
