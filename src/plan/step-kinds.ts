// The step-kind table: one record per step kind of graph.ts, the only place that switches on kinds.
// Each record says, for one step, what the planner needs (the tensors it touches, the in-place pair it
// allows, its weight buffers, its dispatch count, the ring it pushes, the store entry it writes) and
// what the GPU executor needs (its kernels with overrides and storage bindings, and its params per
// dispatch). Adding or re-laying-out an op is an edit of its record (as ONNX Runtime's op table).
// Pure: kernel descriptions and buffer handles given by the executor; no GPU object is created here.
import type { AnyKernelDef, Elem } from '../gpu/kernel';
import { conv3dTuningForCout, packConvWeight, packedConvWeightLength } from '../kernels/conv3d';
import { dequantInt8 } from '../kernels/dequant-int8';
import { mmaGemm } from '../kernels/conv3d-mma-flat';
import { conv3dTiled, conv3dTiledFor } from '../kernels/conv3d-tiled';
import { conv3dHead, conv3dHeadFor } from '../kernels/conv3d-head';
import { blockedConvWeightLength, conv3dMmaPack, mmaScratchElems, packConvWeightBlocked } from '../kernels/conv3d-mma';
import { kernels } from '../kernels/index';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoOverrides } from '../kernels/winograd';
import { winoBandCount, winoBandParams, winoScratchElems } from '../kernels/winograd-plan';
import { packWinogradWeight, winoWeightLength } from '../kernels/winograd-transforms';
import { invMaxFor } from '../kernels/rms-norm';
import { convWeightFormat, int8BlockedBytes, packedWeightBytes, wqOverride, type WeightsPrecision } from '../model/quantize';
import type { DecoderConfig } from '../model/config';
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
   * f16 weights hold that instead: convWeightBytes)
   */
  conv?: { cout: number; rows: number; blocked: number; cin: number };
  /** a Winograd conv's U (f32): made on the GPU from the model's weight `src` where the executor can (exec/wino-weights.ts) */
  wino?: { r: 2 | 4; src: string; cout: number; cin: number; kt: number };
}

/** What the executor resolves for a step of one program (slots are per program). */
export interface BindCtx {
  elem: Elem;
  /** storage of conv weights (default: = elem); packed formats run conv3d-wq, int8 with `mma` dequant-int8 + the f16 GEMM */
  weightsPrecision?: WeightsPrecision;
  cfg: DecoderConfig;
  /** conv3d tiling for this adapter and its invocation limit */
  tuning: Record<string, number>;
  maxInvocations: number;
  /** tensor cores: convs with >= 16 output channels run pack + blocked GEMM */
  mma: { subgroupSize: number; emulate?: boolean } | null;
  view(v: View): GPUBuffer;
  /** a weight buffer, or its range of a ring slot when streamed (plan/weight-stream.ts) */
  weight(key: string): GPUBuffer | GPUBufferBinding;
  ring(key: string): GPUBuffer;
  /** a 4-byte buffer for bindings a kernel variant ignores */
  dummy: GPUBuffer;
  out: GPUBuffer;
  rgba: GPUBuffer;
  mmaScratch: GPUBuffer | null;
  /** portable plans with Winograd convs: V + M of one band (winoScratchOf) */
  winoScratch?: GPUBuffer | null;
  /** tensor cores with int8 weights: the f16 blocked weights of one conv (dequant-int8 writes, the GEMM reads; wqScratchOf) */
  wqScratch?: GPUBuffer | null;
  /** store entry `which` of the chunk being encoded (a bound range: the store is bound one entry at a time) */
  storeEntry(which: number): GPUBufferBinding;
  /** true when the planner gave output `y` the slot of input `v` (an in-place update) */
  inPlace(v: View | undefined, y: View): boolean;
}

/** One kernel of a step: its dispatches share the step's params (one uniform slot per dispatch). */
export interface StepKernel {
  def: AnyKernelDef;
  overrides: Record<string, number>;
  bindings: (GPUBuffer | GPUBufferBinding)[];
}

export interface StepKind<S extends Step> {
  /** every tensor view the step reads or writes (liveness) */
  views(s: S): View[];
  /** [input, output]: the planner may give the output the input's slot when the input dies here */
  inPlace(s: S): [View, View] | null;
  weights(s: S): WeightUse[];
  /** uniform slots: one per dispatch */
  dispatches(s: S): number;
  /** the ring this step pushes its input into after its dispatches: key, source, elements of one frame */
  ringPush(s: S): { key: string; x: View; frameElems: number } | null;
  /** the store entry this step copies its input into (tile-major) */
  storeWrite(s: S): { which: number; x: View; elems: number } | null;
  /** true when the bindings depend on the chunk (a crop from the store): bind groups are made per chunk */
  perChunk(s: S): boolean;
  /** the kernels dispatched in order for each dispatch of the step (none: a copy only) */
  kernels(s: S, c: BindCtx): StepKernel[];
  /** params of each dispatch; `ringCount(key)`: frames pushed into a ring so far in this decode */
  params(s: S, ringCount: (key: string) => number): Record<string, number>[];
}

/**
 * Tensor cores run every conv, the 3-channel head too (its output block is 16 channels wide, 13 of them
 * computed and dropped: 312 ms of the 4.96 s Wan2.1 480x832x81 decode on the portable conv at 1.6 TFLOP/s,
 * H200 profile 2026-12-01, e96e7c0).
 */
export const onTensorCores = (_s: ConvStep): boolean => true;

/** GPU bytes of conv weight `w`: conv3d-mma's blocked layout in a tensor-core plan with f16 weights, else packedWeightBytes. */
export function convWeightBytes(w: NonNullable<WeightUse['conv']>, format: Parameters<typeof packedWeightBytes>[0], elemBytes: number, tensorCores: boolean): number {
  if (tensorCores && format === 'int8') return int8BlockedBytes(w.blocked, w.cout); // dequant-int8's input: int8 in the blocked order + scales
  return tensorCores && format === 'elem' ? Math.ceil((w.blocked * elemBytes) / 4) * 4 : packedWeightBytes(format, w.cout, w.rows, elemBytes);
}

/** A Winograd conv's weight: U = G g G^T in float64 ([E][kt*cin][cout4*4], f32; its own key, (r+2)^2/9 of the 3x3 weights). */
function winoWeight(s: ConvStep, r: 2 | 4): WeightUse {
  return {
    key: `${s.wkey}.weight.wino${r}`,
    elems: winoWeightLength(r, s.cout, s.cin, s.kt),
    wino: { r, src: `${s.wkey}.weight`, cout: s.cout, cin: s.cin, kt: s.kt },
    data(w) {
      const want = s.up ? [s.cout, s.cin, 3, 3] : [s.cout, s.cin, s.kt, 3, 3];
      return packWinogradWeight(w.get(`${s.wkey}.weight`, want).data, r, s.cout, s.cin, s.kt);
    },
  };
}

const conv: StepKind<ConvStep> = {
  views: (s) => (s.res ? [s.x, s.y, s.res] : [s.x, s.y]),
  // conv3d HAS_RES=2: the conv reads its residual at the output pixel only, so y may take its slot
  inPlace: (s) => (s.res && s.res.t !== s.x.t ? [s.res, s.y] : null),
  weights: (s) => [
    s.wino ? winoWeight(s, s.wino.r) : {
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
  ],
  // Winograd: the three kernels once per band of tiles
  dispatches: (s) => (s.wino ? winoBandCount(s.wino, s.h, s.w) : 1),
  // the cache stores the conv input: copied over frame t-2 once the conv has read it
  ringPush: (s) => (s.ring ? { key: s.ring, x: s.x, frameElems: s.ringFrame } : null),
  storeWrite: () => null,
  perChunk: () => false,
  kernels(s, c): StepKernel[] {
    const res = s.res ? (c.inPlace(s.res, s.y) ? 2 : 1) : 0;
    const resBuf = s.res && res === 1 ? c.view(s.res) : c.dummy;
    const gamma = s.norm ? c.weight(s.norm.gkey) : c.dummy;
    const ring = s.ring ? c.ring(s.ring) : c.dummy;
    const w = c.weight(`${s.wkey}.weight`), b = c.weight(`${s.wkey}.bias`);
    const load = { KT: s.kt, KS: s.ks, UP: s.up, NORM: s.norm ? 1 : 0, SILU: s.norm?.silu ? 1 : 0 };
    // Winograd (portable f32 plans, --conv): input transform, batched GEMM against U, output transform
    if (s.wino) {
      const ov = winoOverrides({ KT: s.kt, UP: s.up, HAS_RES: res, NORM: load.NORM, SILU: load.SILU });
      const shape = winoGemmShape(s.cout, c.maxInvocations)!;
      return [
        { def: winogradIn(s.wino.r), overrides: ov.in, bindings: [c.view(s.x), ring, gamma, c.winoScratch!] },
        { def: winogradGemm(s.wino.r, shape), overrides: ov.gemm, bindings: [c.winoScratch!, c.weight(`${s.wkey}.weight.wino${s.wino.r}`)] },
        { def: winogradOut(s.wino.r), overrides: ov.out, bindings: [c.winoScratch!, b, resBuf, c.view(s.y)] },
      ];
    }
    // packed weights (int8, or f16 beside f32 activations): conv3d-wq dequantises them in its operand load
    const wq = wqOverride(convWeightFormat(c.elem, c.weightsPrecision));
    // int8 on tensor cores: dequant-int8 expands this conv's int8 weights (+ scales) into the f16 blocked
    // scratch, then the pack and the same GEMM as f16 weights (mmaGemm) read it
    if (wq === 1 && c.mma && onTensorCores(s))
      return [
        { def: dequantInt8, overrides: { KT: s.kt, KS: s.ks }, bindings: [w, c.wqScratch!] },
        { def: conv3dMmaPack, overrides: load, bindings: [c.view(s.x), ring, gamma, c.mmaScratch!] },
        { def: mmaGemm(s, s.ks, !!c.mma.emulate), overrides: { KT: s.kt, KS: s.ks, HAS_RES: res, SG: c.mma.subgroupSize }, bindings: [c.mmaScratch!, c.wqScratch!, b, resBuf, c.view(s.y)] },
      ];
    if (wq) return [{ def: kernels.conv3dWq, overrides: { ...load, HAS_RES: res, WQ: wq, ...conv3dTuningForCout(c.tuning, s.cout, c.maxInvocations) }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma, w] }];
    if (c.mma && onTensorCores(s))
      return [
        // the operand copy: conv3d-mma-pack reads what conv3d would (x, the ring, gamma) into the scratch
        { def: conv3dMmaPack, overrides: load, bindings: [c.view(s.x), ring, gamma, c.mmaScratch!] },
        { def: mmaGemm(s, s.ks, !!c.mma.emulate), overrides: { KT: s.kt, KS: s.ks, HAS_RES: res, SG: c.mma.subgroupSize }, bindings: [c.mmaScratch!, w, b, resBuf, c.view(s.y)] },
      ];
    // GPUs: the head's few output channels (3, 12) on conv3d-head (staged 8 x 64 pixel tiles, every channel per invocation)
    const head = c.tuning.MODE === 1 ? conv3dHeadFor(s.cout, s.ks, s.up) : null;
    if (head) return [{ def: conv3dHead, overrides: { ...load, HAS_RES: res, ...head }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma] }];
    // GPUs: the generated straight-line conv where its blocks fit cout (conv3d-tiled), else conv3d
    const tiled = conv3dTiledFor(c.tuning, s.cout, s.h * s.w, c.maxInvocations);
    if (tiled) return [{ def: conv3dTiled(tiled), overrides: { ...load, HAS_RES: res }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma] }];
    return [{ def: kernels.conv3d, overrides: { ...load, HAS_RES: res, ...conv3dTuningForCout(c.tuning, s.cout, c.maxInvocations) }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma] }];
  },
  params(s, ringCount) {
    let prev2 = 0, prev1 = 0, tap0 = s.kt === 3 ? 2 : 0;
    if (s.ring) {
      const k = ringCount(s.ring);
      prev2 = (k & 1) * s.ringFrame;
      prev1 = ((k + 1) & 1) * s.ringFrame;
      tap0 = Math.max(0, 2 - k);
    }
    const p = { cin: s.cin, cout: s.cout, h: s.h, w: s.w, x_off: s.x.off, prev2_off: prev2, prev1_off: prev1, res_off: s.res?.off ?? 0, y_off: s.y.off, tap0 };
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
  kernels(s, c) {
    const inPlace = !s.stats && c.inPlace(s.x, s.y);
    // stats and in-place norms read their input through the y binding
    return [{ def: kernels.rmsNorm, overrides: { SILU: s.silu ? 1 : 0, STATS: s.stats ? 1 : 0, INPLACE: inPlace ? 1 : 0, INV_MAX: invMaxFor(c.elem) }, bindings: [s.stats || inPlace ? c.dummy : c.view(s.x), c.weight(s.gkey), c.view(s.y)] }];
  },
  params: (s) =>
    Array.from({ length: Math.ceil(s.hw / s.chunk) }, (_, j) => {
      const p0 = j * s.chunk;
      return { c: s.c, hw: s.hw, x_off: s.x.off, y_off: s.y.off, p0, np: Math.min(s.chunk, s.hw - p0) };
    }),
};

/** Defaults for kinds with no weights, ring, store or in-place pair, one dispatch, fixed bindings. */
const plain = { inPlace: () => null, weights: () => [], dispatches: () => 1, ringPush: () => null, storeWrite: () => null, perChunk: () => false } as const;

const attn: StepKind<AttnStep> = {
  ...plain,
  views: (s) => [s.qkv, s.o],
  kernels: (s, c) => [{ def: kernels.attention, overrides: {}, bindings: [c.view(s.qkv), c.view(s.o)] }],
  params: (s) => [{ c: s.c, n: s.n, scale: 1 / Math.sqrt(s.c) }],
};

const dupadd: StepKind<DupAddStep> = {
  ...plain,
  views: (s) => [s.x, s.y],
  kernels: (s, c) => [{ def: kernels.dupUpAdd, overrides: {}, bindings: [c.view(s.x), c.view(s.y)] }],
  params: (s) => [{ cout: s.d.cout, h: s.h, w: s.w, cin: s.d.cin, ft: s.d.ft, fs: s.d.fs, r: s.d.r, a: s.a, x_off: s.x.off, y_off: s.y.off }],
};

const store: StepKind<StoreStep> = {
  ...plain,
  views: (s) => [s.x],
  dispatches: () => 0,
  storeWrite: (s) => ({ which: s.which, x: s.x, elems: s.elems }),
  kernels: () => [], // a buffer copy
  params: () => [],
};

const crop: StepKind<CropStep> = {
  ...plain,
  views: (s) => ('store' in s.x ? [s.y] : [s.x, s.y]),
  perChunk: (s) => 'store' in s.x,
  kernels: (s, c) => [{ def: kernels.crop, overrides: {}, bindings: ['store' in s.x ? c.storeEntry(s.x.store) : c.view(s.x), c.view(s.y)] }],
  params: (s) => [{ c: s.c, src_h: s.srcH, src_w: s.srcW, y0: s.y0, x0: s.x0, h: s.h, w: s.w, x_off: 'store' in s.x ? 0 : s.x.off, y_off: s.y.off }],
};

const output: StepKind<OutputStep> = {
  ...plain,
  views: (s) => [s.x],
  kernels: (s, c) => [{ def: kernels.output, overrides: { PATCH: c.cfg.patch }, bindings: [c.view(s.x), c.out, c.rgba] }],
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

/** Elements of the largest tensor-core operand copy of any conv among `steps` (0: none runs on tensor cores). */
export function mmaScratchOf(steps: Iterable<Step>): number {
  let elems = 0;
  for (const s of steps) if (s.kind === 'conv' && onTensorCores(s)) elems = Math.max(elems, mmaScratchElems(s, s.kt, s.ks));
  return elems;
}

/** Elements of the largest conv weight among `steps` in conv3d-mma's blocked layout: the f16 scratch of int8 weights on tensor cores (dequant-int8). */
export function wqScratchOf(steps: Iterable<Step>): number {
  let elems = 0;
  for (const s of steps) if (s.kind === 'conv' && onTensorCores(s)) elems = Math.max(elems, blockedConvWeightLength(s.cout, s.cin, s.kt, s.ks));
  return elems;
}

/** Elements of the largest Winograd scratch (V + M of one band) of any conv among `steps` (0: none runs Winograd). */
export function winoScratchOf(steps: Iterable<Step>): number {
  let elems = 0;
  for (const s of steps) if (s.kind === 'conv' && s.wino) elems = Math.max(elems, winoScratchElems(s.wino.r, s.wino.band, s.cin, s.cout, s.kt));
  return elems;
}
