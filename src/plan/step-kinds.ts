// The step-kind table: one record per step kind of graph.ts. Each record says, for one step, what the
// planner needs (the tensors it touches, the in-place pair it allows, its weight buffers, its dispatch
// count, the ring it pushes, the store entry it writes) and its params per dispatch; the kernels a step
// dispatches, with overrides and bindings, are the executor's half (runtime/exec/step-kernels.ts).
// Adding or re-laying-out an op is an edit of its record there and here (as ONNX Runtime's op table).
// Pure planning: no kernel module carrying shaders (test/structure/no-cycles.node.test.ts).
import { blockedConvWeightLength, mmaFrameElems, mmaScratchElems, packConvWeight, packConvWeightBlocked, packedConvWeightLength, upPhaseBlockedLength, upPhaseWeight } from '../kernels/conv-layout';
import { convFrame, convWeightKey, onTensorCores, packedRing, upPhases, winoBandCount, winoBandParams, winoScratchBytes, winoScratchElems, winoUBytes } from './conv-form';
import { packWinogradWeight, winoWeightLength } from '../kernels/winograd-transforms';
import { winoMmaWeightLayout } from '../kernels/winograd-mma-layout';
import { int8BlockedBytes, packedWeightBytes } from '../model/quantize';
import type { Weights } from '../model/weights';
import type { AttnStep, ConvStep, CropStep, DupAddStep, NormStep, OutputStep, Step, StoreStep, View } from './graph';

/** A weight buffer a step reads: `elems` as the planner counts them, `data` packed for the kernel. */
export interface WeightUse {
  key: string;
  elems: number;
  /** the values to upload, checked against the step's shape (`mma`: the tensor-core layout where it differs) */
  data(w: Weights, mma: boolean): Float32Array;
  /**
   * a conv weight in conv3d's order ([rows = taps * cin][cout4 * 4]): stored by the weights precision
   * (model/quantize.ts); `blocked`: its elements in conv3d-mma's blocked layout (tensor-core plans with
   * f16 weights hold that instead: convWeightBytes); `upPhases`: the 16-tap phase weight (conv-form.ts upPhases) made
   * from the model's 3x3 weight of this key (conv-layout.ts upPhaseWeight), which the GPU preparation maps first
   */
  conv?: { cout: number; rows: number; blocked: number; cin: number; upPhases?: string };
  /** a Winograd conv's U (in the storage type, or f32 where `f32`: the conv's scratch type, conv-form.ts winoScratchFor): made on the GPU from the model's weight `src` where the executor can (exec/wino-weights.ts) */
  wino?: { r: 2 | 4; src: string; cout: number; cin: number; kt: number; f32: boolean; mma?: boolean };
  /** a Winograd conv with U made per call (conv-form.ts WinoPlan.u): its 3x3 weights as the model's f32 rows [cout][cin][kt][3][3], f32 in every storage type */
  winoRows?: { src: string; cout: number; cin: number; kt: number };
}

export interface StepKind<S extends Step> {
  /** every tensor view the step reads or writes (liveness) */
  views(s: S): View[];
  /** [input, output]: the planner may give the output the input's slot when the input dies here */
  inPlace(s: S): [View, View] | null;
  weights(s: S): WeightUse[];
  /** uniform slots: one per dispatch */
  dispatches(s: S): number;
  /**
   * the ring this step pushes its input into after its dispatches: key, the input, elements of one frame,
   * and what is copied: the input itself, or (a packed ring, conv-form.ts packedRing) its packed frame,
   * which the step's pack wrote at the start of the tensor-core operand copy
   */
  ringPush(s: S): { key: string; x: View; frameElems: number; from: 'x' | 'operand' } | null;
  /** the store entry this step copies its input into (tile-major) */
  storeWrite(s: S): { which: number; x: View; elems: number } | null;
  /** true when the bindings depend on the chunk (a crop from the store): bind groups are made per chunk */
  perChunk(s: S): boolean;
  /** params of each dispatch; `ringCount(key)`: frames pushed into a ring so far in this decode */
  params(s: S, ringCount: (key: string) => number): Record<string, number>[];
}

/** Which convs run on tensor cores: conv-form.ts decides (re-exported for existing imports). */
export { onTensorCores } from './conv-form';

/** GPU bytes of conv weight `w`: conv3d-mma's blocked layout in a tensor-core plan with f16 weights, else packedWeightBytes. */
export function convWeightBytes(w: NonNullable<WeightUse['conv']>, format: Parameters<typeof packedWeightBytes>[0], elemBytes: number, tensorCores: boolean): number {
  if (tensorCores && format === 'int8') return int8BlockedBytes(w.blocked, w.cout); // dequant-int8's input: int8 in the blocked order + scales
  return tensorCores && format === 'elem' ? Math.ceil((w.blocked * elemBytes) / 4) * 4 : packedWeightBytes(format, w.cout, w.rows, elemBytes);
}

/** A Winograd conv's weight: U = G g G^T in float64 ([E][kt*cin][cout4*4], f32; its own key, (r+2)^2/9 of the 3x3 weights). */
function winoWeight(s: ConvStep, r: 2 | 4, f32: boolean, mma = false): WeightUse {
  return {
    // mma ('wino-mma' convs): the same U in the tensor-core GEMM's blocked layout (kernels/winograd-mma-layout.ts)
    key: `${s.wkey}.weight.wino${r}${mma ? 'm' : ''}`,
    elems: winoWeightLength(r, s.cout, s.cin, s.kt),
    wino: { r, src: `${s.wkey}.weight`, cout: s.cout, cin: s.cin, kt: s.kt, f32, ...(mma ? { mma } : {}) },
    data(w) {
      const want = s.up ? [s.cout, s.cin, 3, 3] : [s.cout, s.cin, s.kt, 3, 3];
      const u = packWinogradWeight(w.get(`${s.wkey}.weight`, want).data, r, s.cout, s.cin, s.kt);
      return mma ? winoMmaWeightLayout(u, r, s.cout, s.cin, s.kt) : u;
    },
  };
}

/** A Winograd conv's 3x3 weights held for U made per call: the model's f32 rows as they are (winograd-u reads them). */
function winoRows(s: ConvStep): WeightUse {
  return {
    key: `${s.wkey}.weight.rows`,
    elems: s.cout * s.cin * s.kt * 9,
    winoRows: { src: `${s.wkey}.weight`, cout: s.cout, cin: s.cin, kt: s.kt },
    data: (w) => w.get(`${s.wkey}.weight`, s.up ? [s.cout, s.cin, 3, 3] : [s.cout, s.cin, s.kt, 3, 3]).data,
  };
}

/** An upsample Conv2d as its four output phases (conv-form.ts upPhases): the 16-tap weight in conv3d-mma's blocked layout. */
function upPhaseUse(s: ConvStep): WeightUse {
  const src = `${s.wkey}.weight`;
  return {
    key: convWeightKey(s),
    elems: packedConvWeightLength(s.cout, s.cin, 16, 1),
    conv: { cout: s.cout, cin: s.cin, rows: 16 * s.cin, blocked: upPhaseBlockedLength(s.cout, s.cin), upPhases: src },
    // (without `mma`: the same 16 taps in conv3d's order, as every conv weight's `elems` counts it; no portable kernel reads
    // a phase weight: runtime/exec/step-kernels.ts refuses the form on a device without subgroup matrices)
    data(w, mma) {
      const wp = upPhaseWeight(w.get(src, [s.cout, s.cin, 3, 3]).data, s.cout, s.cin);
      return mma ? packConvWeightBlocked(wp, s.cout, s.cin, 16, 1) : packConvWeight(wp, s.cout, s.cin, 16, 1);
    },
  };
}

const conv: StepKind<ConvStep> = {
  views: (s) => (s.res ? [s.x, s.y, s.res] : [s.x, s.y]),
  // conv3d HAS_RES=2: the conv reads its residual at the output pixel only, so y may take its slot
  inPlace: (s) => (s.res && s.res.t !== s.x.t ? [s.res, s.y] : null),
  weights: (s) => [
    s.wino?.u === 'call'
      ? winoRows(s)
      : upPhases(s)
        ? upPhaseUse(s)
        : s.wino
          ? winoWeight(s, s.wino.r, s.wino.scratch === 'f32', !!s.wino.mma)
          : {
              key: `${s.wkey}.weight`,
              elems: packedConvWeightLength(s.cout, s.cin, s.kt, s.ks),
              conv: { cout: s.cout, cin: s.cin, rows: s.kt * s.ks * s.ks * s.cin, blocked: blockedConvWeightLength(s.cout, s.cin, s.kt, s.ks) },
              data(w, mma) {
                const t = w.get(`${s.wkey}.weight`);
                const want = s.up ? [s.cout, s.cin, 3, 3] : t.shape.length === 4 ? [s.cout, s.cin, 1, 1] : [s.cout, s.cin, s.kt, s.ks, s.ks];
                w.get(`${s.wkey}.weight`, want);
                return mma && onTensorCores(s) ? packConvWeightBlocked(t.data, s.cout, s.cin, s.kt, s.ks) : packConvWeight(t.data, s.cout, s.cin, s.kt, s.ks);
              },
            },
    { key: `${s.wkey}.bias`, elems: s.cout, data: (w) => w.get(`${s.wkey}.bias`, [s.cout]).data },
    // the norm's gamma, which its statistics step (dropped: conv-form.ts assignStatsInPack) listed otherwise
    ...(s.norm?.inPack ? [{ key: s.norm.gkey, elems: s.cin, data: (w: Weights) => w.get(s.norm!.gkey, [s.cin]).data }] : []),
  ],
  // Winograd: the three kernels once per band of tiles
  dispatches: (s) => (s.wino ? winoBandCount(s.wino, s.h, s.w) : 1),
  // the cache stores the conv input (a packed ring: its packed frame): copied over frame t-2 once the conv has read it
  ringPush: (s) => (s.ring ? (packedRing(s) ? { key: s.ring, x: s.x, frameElems: mmaFrameElems(s, s.ks), from: 'operand' } : { key: s.ring, x: s.x, frameElems: s.ringFrame, from: 'x' }) : null),
  storeWrite: () => null,
  perChunk: () => false,
  params(s, ringCount) {
    let prev2 = 0,
      prev1 = 0,
      tap0 = s.kt === 3 ? 2 : 0;
    if (s.ring) {
      const k = ringCount(s.ring);
      const frame = packedRing(s) ? mmaFrameElems(s, s.ks) : s.ringFrame;
      prev2 = (k & 1) * frame;
      prev1 = ((k + 1) & 1) * frame;
      tap0 = Math.max(0, 2 - k);
    }
    const f = convFrame(s);
    const p = { cin: s.cin, cout: s.cout, h: f.h, w: f.w, x_off: s.x.off, prev2_off: prev2, prev1_off: prev1, res_off: s.res?.off ?? 0, y_off: s.y.off, tap0 };
    return s.wino ? winoBandParams(s.wino, p, s.kt) : [p];
  },
};

const norm: StepKind<NormStep> = {
  views: (s) => (s.stats ? [s.x] : [s.x, s.y]),
  // rms-norm INPLACE=1 ('chunked'): each pixel is read before it is written
  inPlace: (s) => (s.inplace && !s.stats ? [s.x, s.y] : null),
  weights: (s) => [{ key: s.gkey, elems: s.c, data: (w) => w.get(s.gkey, [s.c]).data }],
  dispatches: (s) => Math.ceil(s.hw / s.chunk),
  ringPush: () => null,
  storeWrite: () => null,
  perChunk: () => false,
  params: (s) =>
    Array.from({ length: Math.ceil(s.hw / s.chunk) }, (_, j) => {
      const p0 = j * s.chunk;
      return { c: s.c, hw: s.hw, x_off: s.x.off, y_off: s.y.off, p0, np: Math.min(s.chunk, s.hw - p0) };
    }),
};

/** Defaults for kinds with no weights, ring, store or in-place pair, one dispatch, fixed bindings. */
const plain = { inPlace: () => null, weights: () => [], dispatches: () => 1, ringPush: () => null, storeWrite: () => null, perChunk: () => false } as const;

// packed / split (attention-form.ts): attention-pack, the attention and attention-combine share the slot; the params
// are attention's + the ranges
const attn: StepKind<AttnStep> = {
  ...plain,
  views: (s) => [s.qkv, ...(s.packed ? [s.packed] : []), ...(s.split ? [s.split.part, s.split.ml] : []), s.o],
  params: (s) => [{ c: s.c, n: s.n, scale: 1 / Math.sqrt(s.c), ...(s.split ? { split: s.split.ranges } : {}) }],
};

const dupadd: StepKind<DupAddStep> = {
  ...plain,
  views: (s) => [s.x, s.y],
  params: (s) => [{ cout: s.d.cout, h: s.h, w: s.w, cin: s.d.cin, ft: s.d.ft, fs: s.d.fs, r: s.d.r, a: s.a, x_off: s.x.off, y_off: s.y.off }],
};

const store: StepKind<StoreStep> = {
  ...plain,
  views: (s) => [s.x],
  dispatches: () => 0,
  storeWrite: (s) => ({ which: s.which, x: s.x, elems: s.elems }),
  params: () => [],
};

const crop: StepKind<CropStep> = {
  ...plain,
  views: (s) => ('store' in s.x ? [s.y] : [s.x, s.y]),
  perChunk: (s) => 'store' in s.x,
  params: (s) => [{ c: s.c, src_h: s.srcH, src_w: s.srcW, y0: s.y0, x0: s.x0, h: s.h, w: s.w, x_off: 'store' in s.x ? 0 : s.x.off, y_off: s.y.off }],
};

const output: StepKind<OutputStep> = {
  ...plain,
  views: (s) => [s.x],
  params: (s) => {
    const r = s.region;
    return [{ h: s.h, w: s.w, x_off: s.x.off, cy: r.cy, cx: r.cx, oh: r.oh, ow: r.ow, rgb_off: s.rgbOff, rgba_off: s.rgbaOff }];
  },
};

const TABLE: { [K in Step['kind']]: StepKind<Extract<Step, { kind: K }>> } = { conv, norm, attn, dupadd, store, crop, output };

/** The record of a step's kind. */
export function kindOf<S extends Step>(s: S): StepKind<S> {
  return TABLE[s.kind] as unknown as StepKind<S>;
}

/**
 * Every weight buffer the steps of the programs use, once each (first use): conv weights packed by
 * packConvWeight (cout padded to a multiple of 4), biases, norm gammas. The arena uploads exactly these.
 */
export function weightBuffers(steps: Iterable<Step>): WeightUse[] {
  const seen = new Map<string, WeightUse>();
  for (const s of steps) for (const w of kindOf(s).weights(s)) if (!seen.has(w.key)) seen.set(w.key, w);
  return [...seen.values()];
}

/** Elements of the largest tensor-core operand copy of any conv among `steps` (0: none runs on tensor cores; a conv with a packed ring copies frame t alone). */
export function mmaScratchOf(steps: Iterable<Step>): number {
  let elems = 0;
  for (const s of steps) if (s.kind === 'conv' && onTensorCores(s)) elems = Math.max(elems, packedRing(s) ? mmaFrameElems(s, s.ks) : mmaScratchElems(convFrame(s), s.kt, s.ks));
  return elems;
}

/** Elements of the largest conv weight among `steps` in conv3d-mma's blocked layout: the f16 scratch of int8 weights on tensor cores (dequant-int8). */
export function wqScratchOf(steps: Iterable<Step>): number {
  let elems = 0;
  for (const s of steps) if (s.kind === 'conv' && onTensorCores(s)) elems = Math.max(elems, blockedConvWeightLength(s.cout, s.cin, s.kt, s.ks));
  return elems;
}

/** Bytes of the largest Winograd scratch (V + M of one band, in each conv's scratch type: f32, or the storage type of `elemBytes`) of any conv among `steps` (0: none runs Winograd). */
export function winoScratchOf(steps: Iterable<Step>, elemBytes: number): number {
  let elems = 0;
  for (const s of steps) if (s.kind === 'conv' && s.wino) elems = Math.max(elems, winoScratchElems(s.wino.r, s.wino.band, s.cin, s.cout, s.kt) * winoScratchBytes(s.wino.scratch, elemBytes));
  return elems;
}

/**
 * Bytes of the step-local scratch of step `s`, a buffer live during that step only that the planner places in an
 * activation slot by liveness (planner.ts assignSlots; ProgramPlan.scratchSlotOf): the U of a Winograd conv with U
 * made per call (conv-form.ts WinoPlan.u; winograd-u writes it, winograd-gemm reads it). 0: none.
 */
export function stepScratchBytes(s: Step, elemBytes: number): number {
  return s.kind === 'conv' && s.wino?.u === 'call' ? winoUBytes(s.wino, s, elemBytes) : 0;
}
