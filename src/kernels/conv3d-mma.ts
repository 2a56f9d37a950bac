// conv3d on tensor cores (WGSL subgroup matrices), as two dispatches per conv call:
//   conv3dMmaPack  the conv's operand frames -> one channels-innermost copy per frame `s` (shaders/conv3d-mma-pack.wgsl);
//                  a cached conv whose ring holds packed frames (RING=1) packs frame t alone;
//                  conv3dMmaPackNorm computes the RMS statistics itself (shaders/conv3d-mma-pack-norm.wgsl)
//   conv3dMma      the blocked GEMM + bias / residual epilogue (shaders/conv3d-mma.wgsl), weights
//                  re-blocked once at upload (packConvWeightBlocked)
// conv3dMmaEmu is conv3dMma with scalar products (any adapter): the CPU-reference test of the layouts.
// All take conv3d's Params; results equal conv3d's up to f16 operand rounding (f32 accumulation).
// f16 storage only, on adapters whose `chromium-experimental-subgroup-matrix` offers 16x16x16 f16 -> f32
// (subgroupMatrixSupport). Pure descriptions: no GPU objects.
import src from '../../shaders/conv3d-mma.wgsl?raw';
import emu from '../../shaders/conv3d-mma-emu.wgsl?raw';
import emuF16 from '../../shaders/conv3d-mma-emu-f16.wgsl?raw';
import common from '../../shaders/conv3d-mma-common.wgsl?raw';
import pack from '../../shaders/conv3d-mma-pack.wgsl?raw';
import packNorm from '../../shaders/conv3d-mma-pack-norm.wgsl?raw';
import packCommon from '../../shaders/conv3d-mma-pack-common.wgsl?raw';
import paramsWgsl from '../../shaders/conv3d-mma-params.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { wgslConst, type Elem, type KernelDef, type ParamDef } from '../gpu/kernel';
import { conv3d, CONV3D_CALL_PARAMS, type Conv3dParams } from './conv3d';
import { mmaGeometry, mmaPaddedWidth } from './conv-layout';

export { blockedConvWeightLength, mmaGeometry, mmaPaddedWidth, mmaScratchElems, packConvWeightBlocked } from './conv-layout';

/**
 * The conv call's form, shared by its pack and GEMM (one uniform slot per dispatch of a step), with the
 * defaults: carried in Params (shaders/conv3d-mma-params.wgsl) instead of being pipeline constants where
 * none is a loop bound the compiler can use (the residual is an epilogue branch; up, norm and SiLU are
 * branches of the memory-bound pack): one pack and one pack-norm serve every conv of a decode. The GEMM
 * bakes KS (its 3 x 3 spatial taps are unrolled straight-line code), KT and RING (its temporal loops,
 * shaders/conv3d-mma-common.wgsl): Wan2.1 480x832 on tensor cores 16 pipelines -> 10 (8 with KT and RING
 * as uniforms too; docs/performance.md "Pipeline variants and the empty-cache start-up").
 */
export const MMA_FORM: Readonly<Record<string, number>> = { KT: 3, KS: 3, UP: 0, NORM: 0, SILU: 0, RING: 0, HAS_RES: 0 };

/** a conv call's ten params, then the fields that carry MMA_FORM (struct Params of shaders/conv3d-mma-params.wgsl, in order). */
export const MMA_PARAMS: readonly ParamDef<Conv3dParams>[] = [
  ...CONV3D_CALL_PARAMS,
  ...(['KT', 'KS', 'UP', 'NORM', 'SILU', 'RING', 'HAS_RES'] as const).map((o) => ({ name: o.toLowerCase(), type: 'u32' as const, override: o })),
];

/** MMA_FORM without `baked` (what a kernel writes into its text instead). */
function formUniforms(...baked: string[]): Record<string, number> {
  return Object.fromEntries(Object.entries(MMA_FORM).filter(([k]) => !baked.includes(k)));
}

/** result tiles per subgroup along cout and along pixels (constants of the shader) */
export const MMA_TM = wgslConst(common, 'TM');
export const MMA_TN = wgslConst(common, 'TN');
const PACK_WG = wgslConst(pack, 'WG');

function mmaDispatch(tm: number, tn: number) {
  return (p: Conv3dParams, ov: Record<string, number>): [number, number, number] => {
    // the packed ring (RING=1) is read by the straight-line GEMM only (conv3d-mma-flat.ts)
    if (ov.RING) throw new DecoderError('bad-input', 'conv3d-mma: the looped GEMM reads no packed ring (RING=1): use conv3d-mma-flat');
    conv3d.dispatch(p, { KT: ov.KT ?? 3, KS: ov.KS ?? 3, UP: ov.UP ?? 0 }); // the same plan-time checks
    const g = mmaGeometry(p, ov.KS ?? 3);
    return [Math.ceil(g.tiles / tn), Math.ceil(g.ob / tm), 1];
  };
}

const gemmBindings = [
  { name: 's', access: 'read' },
  { name: 'wt', access: 'read' },
  { name: 'b', access: 'read' },
  { name: 'res', access: 'read' },
  { name: 'y', access: 'read_write' },
  { name: 'ring', access: 'read' },
] as const;

/**
 * the GEMM's constants (KS: the unrolled spatial taps; KT, RING: its temporal loops, see
 * shaders/conv3d-mma-common.wgsl; SG: the workgroup size); the rest of MMA_FORM are uniforms
 */
const gemmOverrides: Record<string, number> = { KS: 3, KT: 3, RING: 0, SG: 32, ROWS_OUTER: 0 };
const gemmUniforms = formUniforms('KS', 'KT', 'RING');

/** The useful work (not the padded blocks) and the bytes of the blocked operands read once. */
function gemmCost(p: Conv3dParams, ov: Record<string, number>, elem: Elem = 'f16') {
  const kt = ov.KT ?? 3,
    ks = ov.KS ?? 3;
  const frames = kt - p.tap0;
  const hw = p.h * p.w;
  const g = mmaGeometry(p, ks);
  const flops = 2 * p.cout * hw * p.cin * frames * ks * ks;
  const sElems = frames * g.cb * g.rows * mmaPaddedWidth(p.w, ks) * 16;
  const bpe = elem === 'f16' ? 2 : 4;
  return { flops, bytes: (sElems + kt * ks * ks * g.ob * g.cb * 256 + p.cout * hw * (1 + (ov.HAS_RES ? 1 : 0))) * bpe };
}

/** Tensor-core conv: blocked operands in, conv3d's output frame out (bias, residual HAS_RES 0/1/2). */
export const conv3dMma: KernelDef<Conv3dParams> = {
  id: 'conv3d-mma',
  wgsl: `${src}\n${common}\n${paramsWgsl}`,
  bindings: gemmBindings,
  params: MMA_PARAMS,
  overrides: gemmOverrides,
  uniforms: gemmUniforms,
  dispatch: mmaDispatch(MMA_TM, MMA_TN),
  cost: gemmCost,
};

/** conv3dMma with scalar products: runs anywhere (slow); the CPU-reference test of the blocked layouts. */
export const conv3dMmaEmu: KernelDef<Conv3dParams> = {
  id: 'conv3d-mma-emu',
  wgsl: `${emu}\n${emuF16}\n${common}\n${paramsWgsl}`,
  bindings: gemmBindings,
  params: MMA_PARAMS,
  overrides: gemmOverrides,
  uniforms: gemmUniforms,
  dispatch: mmaDispatch(MMA_TM, MMA_TN),
  cost: gemmCost,
};

/**
 * A GEMM def (conv3dMma or conv3dMmaEmu) with TM x TN result tiles per subgroup instead of the shipped
 * MMA_TM x MMA_TN: the same source with its two constant lines replaced, under its own id (the pipeline
 * cache keys shader modules by id). Same bindings, params, weights and operand layouts.
 */
export function conv3dMmaTiles(base: KernelDef<Conv3dParams>, tm: number, tn: number): KernelDef<Conv3dParams> {
  if (tm === MMA_TM && tn === MMA_TN) return base;
  if (!(tm >= 1 && tn >= 1 && tm * tn <= 8)) throw new DecoderError('bad-input', `conv3d-mma: ${tm} x ${tn} result tiles (at most 8)`);
  const wgsl = base.wgsl.replace(/^const TM: u32 = \d+;/m, `const TM: u32 = ${tm};`).replace(/^const TN: u32 = \d+;/m, `const TN: u32 = ${tn};`);
  return { ...base, id: `${base.id}-${tm}x${tn}`, wgsl, dispatch: mmaDispatch(tm, tn) };
}

/** Below this many subgroups (workgroups) a conv call uses 1 x 1 result tiles (tiny frames; not measured: they cost little either way). */
export const MMA_MIN_GROUPS = 1024;

/**
 * Result tiles per subgroup for one conv call: the shipped MMA_TM x MMA_TN (3 x 2 since the column-major
 * operand, see conv3d-mma-common.wgsl) unless that makes fewer than MMA_MIN_GROUPS workgroups, then 1 x 1.
 * Measured on the H200 (2026-12-01) with the earlier row-major operand, GEMM alone, at
 * the four ANCHORS shapes: 2x2 76 / 78 / 84 / 69 TFLOP/s (96ch 480x832, 192ch 240x416, 384ch 120x208,
 * 384ch 60x104), best or tied best everywhere; 2x1 fell to 19-26 TFLOP/s at the three larger shapes.
 */
export function mmaTilesFor(p: { cin: number; cout: number; h: number; w: number }, ks: number, z = 1): [number, number] {
  const g = mmaGeometry(p, ks);
  const [tm0, tn] = MMA_TILES_BY_COUT[p.cout] ?? [MMA_TM, MMA_TN];
  const tm = Math.min(tm0, g.ob); // the 3-channel head: one output block, not three copies of it
  // (z: the dispatch's third dimension, the four output phases of conv3d-mma-flat.ts `phases`)
  return Math.ceil(g.tiles / tn) * Math.ceil(g.ob / tm) * z >= MMA_MIN_GROUPS ? [tm, tn] : [1, 1];
}

/**
 * Output widths whose measured best differs from MMA_TM x MMA_TN. The looped GEMM (2026-12-01, 850128e) ran 192 channels at 4x2
 * (79.8 against 70.5 TFLOP/s for 3x2 with the looped GEMM); since the straight-line cb-tap GEMM
 * (conv3d-mma-flat.ts, 2026-12-01, 3ced731) 3x2 is best there too (126.2 against 115.9 for 4x2): none now.
 */
const MMA_TILES_BY_COUT: Record<number, [number, number]> = {};

/**
 * The operand copy of one conv call (the frames tap0..KT-1 of x and the cache ring, padding, UP, NORM);
 * RING=1: frame t alone (from x), for a GEMM that reads t-2 and t-1 from a packed ring (plan/conv-form.ts packedRing).
 * Its text: the shared part of both copies (shaders/conv3d-mma-pack-common.wgsl), the Params, its main.
 * Every MMA_FORM value is a uniform (HAS_RES is not read: it is the GEMM's, in the same slot).
 */
export const conv3dMmaPack: KernelDef<Conv3dParams> = {
  id: 'conv3d-mma-pack',
  wgsl: `${packCommon}\n${paramsWgsl}\n${pack}`,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'cache', access: 'read' },
    { name: 'gamma', access: 'read' },
    { name: 's', access: 'read_write' },
  ],
  params: MMA_PARAMS,
  overrides: { ROWS_OUTER: 0 },
  uniforms: formUniforms(),
  dispatch(p, ov) {
    const kt = ov.KT ?? 3,
      ks = ov.KS ?? 3;
    if (p.tap0 >= kt) throw new DecoderError('bad-input', `conv3d-mma-pack: tap0 ${p.tap0} must be < KT ${kt}`);
    if (ov.RING && kt !== 3) throw new DecoderError('bad-input', `conv3d-mma-pack: a packed ring needs KT 3, got ${kt}`);
    const g = mmaGeometry(p, ks);
    // (PACK_WG padded columns, operand row, (frame, channel block)) per workgroup; RING=1: frame t only
    return [Math.ceil(mmaPaddedWidth(p.w, ks) / PACK_WG), g.rows, (ov.RING ? 1 : kt - p.tap0) * g.cb];
  },
  cost(p, ov, elem: Elem = 'f16') {
    const kt = ov.KT ?? 3,
      ks = ov.KS ?? 3;
    const frames = ov.RING ? 1 : kt - p.tap0;
    const hwIn = ov.UP ? (p.h * p.w) / 4 : p.h * p.w;
    const g = mmaGeometry(p, ks);
    const bpe = elem === 'f16' ? 2 : 4;
    return { flops: 0, bytes: (frames * (p.cin + (ov.NORM ? 1 : 0)) * hwIn + frames * g.cb * g.rows * mmaPaddedWidth(p.w, ks) * 16) * bpe };
  },
};

const PACK_NORM_COLS = wgslConst(packNorm, 'COLS');

/**
 * conv3dMmaPack with NORM for an input without an inverse-RMS row: the RMS statistics computed from the
 * frame itself (shaders/conv3d-mma-pack-norm.wgsl; plan/conv-form.ts assignStatsInPack). Same bindings and
 * Params; always normalised (NORM is not read), SILU as the norm's.
 */
export const conv3dMmaPackNorm: KernelDef<Conv3dParams> = {
  id: 'conv3d-mma-pack-norm',
  wgsl: `${packCommon}\n${paramsWgsl}\n${packNorm}`,
  bindings: conv3dMmaPack.bindings,
  params: MMA_PARAMS,
  overrides: { ROWS_OUTER: 0 },
  uniforms: formUniforms(),
  dispatch(p, ov) {
    const kt = ov.KT ?? 3,
      ks = ov.KS ?? 3;
    if (p.tap0 >= kt) throw new DecoderError('bad-input', `conv3d-mma-pack-norm: tap0 ${p.tap0} must be < KT ${kt}`);
    if (ov.RING && kt !== 3) throw new DecoderError('bad-input', `conv3d-mma-pack-norm: a packed ring needs KT 3, got ${kt}`);
    // (PACK_NORM_COLS padded columns x 4 channel groups, operand row, frame) per workgroup
    return [Math.ceil(mmaPaddedWidth(p.w, ks) / PACK_NORM_COLS), mmaGeometry(p, ks).rows, ov.RING ? 1 : kt - p.tap0];
  },
  cost(p, ov, elem: Elem = 'f16') {
    // the frame read twice (statistics, then the values: the second mostly from cache), counted once
    return conv3dMmaPack.cost(p, { ...ov, NORM: 0 }, elem);
  },
};

/** Moved to gpu/adapter.ts (adapter probing in one place); re-exported for existing imports. */
export { subgroupMatrixSupport } from '../gpu/adapter';
