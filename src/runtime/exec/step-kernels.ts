// The executor's half of the step-kind table (plan/step-kinds.ts holds the planner's): for each step
// kind, the kernels dispatched in order for each dispatch of a step, with their overrides and storage
// bindings. A conv's kernels follow the form the planner recorded on it (plan/conv-form.ts); the portable
// conv's variant by the adapter's tuning is conv-form.ts portableVariant. Pure: kernel descriptions and
// buffer handles given by the executor (encode.ts); no GPU object is created here.
import type { AnyKernelDef, Elem } from '../../gpu/kernel';
import { conv3dTuningForCout } from '../../kernels/conv3d';
import { dequantInt8 } from '../../kernels/dequant-int8';
import { mmaGemm } from '../../kernels/conv3d-mma-flat';
import { conv3dTiled } from '../../kernels/conv3d-tiled';
import { conv3dHead } from '../../kernels/conv3d-head';
import { conv3dMmaPack, conv3dMmaPackNorm } from '../../kernels/conv3d-mma';
import { kernels } from '../../kernels/index';
import { winogradGemm, winogradIn, winogradOut, winoGemmShape, winoOverrides } from '../../kernels/winograd';
import { winogradWeightsCall } from '../../kernels/winograd-weights';
import { WINO_MMA_TILES, winogradMmaGemm, winogradMmaIn, winoMmaOverrides } from '../../kernels/winograd-mma';
import { DecoderError } from '../../gpu/errors';
import { invMaxFor } from '../../kernels/rms-norm';
import { attentionOverrides } from '../../kernels/attention';
import { attentionMma, attentionMmaShapeFor } from '../../kernels/attention-mma';
import { convWeightFormat, wqOverride, type WeightsPrecision } from '../../model/quantize';
import type { DecoderConfig } from '../../model/config';
import { convFrame, convWeightKey, deviceConvForm, packedRing, portableVariant, upPhases } from '../../plan/conv-form';
import type { AttnStep, ConvStep, CropStep, DupAddStep, NormStep, OutputStep, Step, StoreStep, View } from '../../plan/graph';

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
  /** a Winograd conv with U made per call: its U, the step-local scratch the planner placed in a slot (ProgramPlan.scratchOf) */
  winoU?: (s: Step) => GPUBufferBinding;
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

type Kernels<S extends Step> = (s: S, c: BindCtx) => StepKernel[];

const conv: Kernels<ConvStep> = (s, c): StepKernel[] => {
  const res = s.res ? (c.inPlace(s.res, s.y) ? 2 : 1) : 0;
  const resBuf = s.res && res === 1 ? c.view(s.res) : c.dummy;
  const gamma = s.norm ? c.weight(s.norm.gkey) : c.dummy;
  const ring = s.ring ? c.ring(s.ring) : c.dummy;
  // an upsample Conv2d as its four output phases (conv-form.ts upPhases): its 16-tap weight, the pack copies the
  // low-resolution input (no UP), the GEMM writes the 2x frame
  const phases = upPhases(s);
  const w = c.weight(convWeightKey(s)),
    b = c.weight(`${s.wkey}.bias`);
  const load = { KT: s.kt, KS: s.ks, UP: phases ? 0 : s.up, NORM: s.norm ? 1 : 0, SILU: s.norm?.silu ? 1 : 0 };
  // the form recorded by the planner (conv-form.ts), on this device
  const form = deviceConvForm(s, !!c.mma, convWeightFormat(c.elem, c.weightsPrecision));
  if (phases && !(form === 'mma' && c.mma)) throw new DecoderError('unsupported', `conv ${s.wkey}: planned as four phases on tensor cores, but this device has no subgroup matrices`);
  // Winograd (portable f32 plans, --conv): input transform, batched GEMM against U, output transform
  if (form === 'winograd' && s.wino) {
    const ov = winoOverrides({ KT: s.kt, UP: s.up, HAS_RES: res, NORM: load.NORM, SILU: load.SILU });
    const shape = winoGemmShape(s.cout, c.maxInvocations)!;
    const sc = s.wino.scratch ?? 'elem';
    // U made per call (conv-form.ts WinoPlan.u): winograd-u writes it from the f32 rows into the step's scratch (a slot range) in the first band
    const perCall = s.wino.u === 'call';
    const u = perCall ? c.winoU!(s) : c.weight(`${s.wkey}.weight.wino${s.wino.r}`);
    return [
      ...(perCall ? [{ def: winogradWeightsCall(s.wino.r, sc), overrides: { KT: s.kt }, bindings: [c.weight(`${s.wkey}.weight.rows`), u] }] : []),
      { def: winogradIn(s.wino.r, sc), overrides: ov.in, bindings: [c.view(s.x), ring, gamma, c.winoScratch!] },
      { def: winogradGemm(s.wino.r, shape, sc), overrides: ov.gemm, bindings: [c.winoScratch!, u] },
      { def: winogradOut(s.wino.r, sc), overrides: ov.out, bindings: [c.winoScratch!, b, resBuf, c.view(s.y)] },
    ];
  }
  // Winograd on tensor cores (f16 plans, --conv): V in the GEMM's operand layout, the batched subgroup-matrix GEMM, winograd-out
  if (form === 'wino-mma' && s.wino) {
    if (!c.mma) throw new DecoderError('unsupported', `conv ${s.wkey}: planned as Winograd on tensor cores, but this device has no subgroup matrices`);
    const ov = winoMmaOverrides({ KT: s.kt, UP: s.up, HAS_RES: res, NORM: load.NORM, SILU: load.SILU, SG: c.mma.subgroupSize });
    return [
      { def: winogradMmaIn(s.wino.r), overrides: ov.in, bindings: [c.view(s.x), ring, gamma, c.winoScratch!] },
      { def: winogradMmaGemm(s.wino.r, WINO_MMA_TILES, !!c.mma.emulate), overrides: ov.gemm, bindings: [c.winoScratch!, c.weight(`${s.wkey}.weight.wino${s.wino.r}m`)] },
      { def: winogradOut(s.wino.r, 'elem'), overrides: ov.out, bindings: [c.winoScratch!, b, resBuf, c.view(s.y)] },
    ];
  }
  // packed weights (int8, or f16 beside f32 activations): conv3d-wq dequantises them in its operand load
  const wq = wqOverride(convWeightFormat(c.elem, c.weightsPrecision));
  // tensor cores: the pack writes the operand copy (a conv with a packed ring: frame t alone, t-2 and t-1
  // are read from the ring, where the executor copies t after the GEMM: step-kinds.ts ringPush)
  const ringed = packedRing(s);
  if (ringed && !((form === 'mma' || form === 'mma-int8') && c.mma))
    throw new DecoderError('unsupported', `conv ${s.wkey}: its cache ring is planned in the tensor-core layout, but this device has no subgroup matrices`);
  // --norm fused with the statistics in the pack (conv-form.ts assignStatsInPack): conv3d-mma-pack-norm
  const packOv = s.norm?.inPack ? { KT: s.kt, KS: s.ks, UP: load.UP, SILU: load.SILU, RING: ringed ? 1 : 0 } : { ...load, RING: ringed ? 1 : 0 };
  const pack = { def: s.norm?.inPack ? conv3dMmaPackNorm : conv3dMmaPack, overrides: packOv, bindings: [c.view(s.x), ringed ? c.dummy : ring, gamma, c.mmaScratch!] };
  if (s.norm?.inPack && !(form === 'mma' || form === 'mma-int8'))
    throw new DecoderError('unsupported', `conv ${s.wkey}: its norm statistics are planned in the tensor-core pack, but it runs as '${form}'`);
  const gemmOv = { KT: s.kt, KS: s.ks, HAS_RES: res, SG: c.mma?.subgroupSize ?? 32, RING: ringed ? 1 : 0 };
  // (unused without a packed ring, but bound to a buffer of at least one 16x16 tile: the GEMM's matrix loads from it set a 512-byte minimum binding size)
  const gemmRing = ringed ? ring : c.mmaScratch!;
  // int8 on tensor cores: dequant-int8 expands this conv's int8 weights (+ scales) into the f16 blocked
  // scratch, then the pack and the same GEMM as f16 weights (mmaGemm) read it
  if (form === 'mma-int8' && c.mma)
    return [
      { def: dequantInt8, overrides: { KT: s.kt, KS: s.ks }, bindings: [w, c.wqScratch!] },
      pack,
      { def: mmaGemm(s, s.ks, !!c.mma.emulate), overrides: gemmOv, bindings: [c.mmaScratch!, c.wqScratch!, b, resBuf, c.view(s.y), gemmRing] },
    ];
  if (form === 'wq')
    return [
      {
        def: kernels.conv3dWq,
        overrides: { ...load, HAS_RES: res, WQ: wq, ...conv3dTuningForCout(c.tuning, s.cout, c.maxInvocations) },
        bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma, w],
      },
    ];
  if (form === 'mma' && c.mma)
    return [
      // the operand copy: conv3d-mma-pack reads what conv3d would (x, the ring, gamma) into the scratch
      pack,
      {
        def: mmaGemm(convFrame(s), s.ks, !!c.mma.emulate, phases),
        overrides: gemmOv,
        bindings: [c.mmaScratch!, w, b, resBuf, c.view(s.y), gemmRing],
      },
    ];
  // the portable direct conv by the adapter (conv-form.ts portableVariant): GPUs run the head's few output
  // channels (3, 12) on conv3d-head and the generated straight-line conv where its blocks fit cout; else conv3d
  const v = portableVariant(s, c.tuning, c.maxInvocations);
  if (v.kind === 'head') return [{ def: conv3dHead, overrides: { ...load, HAS_RES: res, ...v.head }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma] }];
  if (v.kind === 'tiled') return [{ def: conv3dTiled(v.shape), overrides: { ...load, HAS_RES: res }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma] }];
  return [{ def: kernels.conv3d, overrides: { ...load, HAS_RES: res, ...conv3dTuningForCout(c.tuning, s.cout, c.maxInvocations) }, bindings: [c.view(s.x), ring, w, b, resBuf, c.view(s.y), gamma] }];
};

const norm: Kernels<NormStep> = (s, c) => {
  const inPlace = !s.stats && c.inPlace(s.x, s.y);
  // stats and in-place norms read their input through the y binding
  return [
    {
      def: kernels.rmsNorm,
      overrides: { SILU: s.silu ? 1 : 0, STATS: s.stats ? 1 : 0, INPLACE: inPlace ? 1 : 0, INV_MAX: invMaxFor(c.elem) },
      bindings: [s.stats || inPlace ? c.dummy : c.view(s.x), c.weight(s.gkey), c.view(s.y)],
    },
  ];
};

// tensor cores (f16): attention-mma where a shape was measured for this head dim (attentionMmaShapeFor), split over
// keys and / or on the packed copy of qkv where the plan made their tensors (plan/attention-form.ts: then
// attention-combine after it, attention-pack before it), else the portable kernel
const attn: Kernels<AttnStep> = (s, c): StepKernel[] => {
  const shape = c.mma && c.elem === 'f16' ? attentionMmaShapeFor(s) : null;
  if (!shape || !c.mma) return [{ def: kernels.attention, overrides: attentionOverrides(s.c), bindings: [c.view(s.qkv), c.view(s.o)] }];
  const emulate = !!c.mma.emulate;
  const overrides = { SG: c.mma.subgroupSize, ...(shape.nConst ? { NS: s.n } : {}) };
  const def = attentionMma({ ...shape, split: s.split?.ranges ?? 1, packed: !!s.packed }, { emulate });
  const qkv = c.view(s.packed ?? s.qkv);
  const pack: StepKernel[] = s.packed ? [{ def: kernels.attentionPack, overrides: {}, bindings: [c.view(s.qkv), qkv] }] : [];
  if (!s.split) return [...pack, { def, overrides, bindings: [qkv, c.view(s.o)] }];
  const [part, ml] = [c.view(s.split.part), c.view(s.split.ml)];
  return [...pack, { def, overrides, bindings: [qkv, part, ml] }, { def: kernels.attentionCombine, overrides: {}, bindings: [part, ml, c.view(s.o)] }];
};
const dupadd: Kernels<DupAddStep> = (s, c) => [{ def: kernels.dupUpAdd, overrides: {}, bindings: [c.view(s.x), c.view(s.y)] }];
const store: Kernels<StoreStep> = () => []; // a buffer copy
const crop: Kernels<CropStep> = (s, c) => [{ def: kernels.crop, overrides: {}, bindings: ['store' in s.x ? c.storeEntry(s.x.store) : c.view(s.x), c.view(s.y)] }];
const output: Kernels<OutputStep> = (s, c) => [{ def: kernels.output, overrides: { PATCH: c.cfg.patch }, bindings: [c.view(s.x), c.out, c.rgba] }];

const TABLE: { [K in Step['kind']]: Kernels<Extract<Step, { kind: K }>> } = { conv, norm, attn, dupadd, store, crop, output };

/** The kernels dispatched in order for each dispatch of step `s` (none: a copy only). */
export function stepKernels<S extends Step>(s: S, c: BindCtx): StepKernel[] {
  return (TABLE[s.kind] as unknown as Kernels<S>)(s, c);
}
