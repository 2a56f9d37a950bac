// conv3d kernel: one output frame of a causal 3D conv / 1x1 conv / upsample Conv2d (shaders/conv3d.wgsl),
// plus the weight packer. Pure description: no GPU objects.
import src from '../../shaders/conv3d.wgsl?raw';
import common from '../../shaders/conv3d-common.wgsl?raw';
import wElem from '../../shaders/conv3d-w.wgsl?raw';
import wPacked from '../../shaders/conv3d-wq.wgsl?raw';
import { adapterClass, type AdapterFacts } from '../gpu/adapter';
import { DecoderError } from '../gpu/errors';
import { elemBytes, wgslConst, type Elem, type KernelDef, type ParamDef } from '../gpu/kernel';

export interface Conv3dParams extends Record<string, number> {
  cin: number;
  cout: number;
  /** OUTPUT spatial size; the input is h/2 x w/2 when UP=1 */
  h: number;
  w: number;
  /** element offsets of the current frame (x), frames t-2 and t-1 (cache), residual and output */
  x_off: number;
  prev2_off: number;
  prev1_off: number;
  res_off: number;
  y_off: number;
  /** first temporal tap computed (0..KT-1); earlier taps read known-zero frames */
  tap0: number;
}

const MAX_TM4 = wgslConst(src, 'MAX_TM4');
const MAX_TN = wgslConst(src, 'MAX_TN');

/**
 * Overrides per device class (measured, see the shader header). CPU adapters run best with operands
 * loaded straight from storage and a whole workgroup on one channel block: lavapipe (LLVM unrolls the
 * register tile) with 32 channels x 8 pixels per invocation, ~12 GFLOP/s on 2 cores; SwiftShader (no
 * unrolling) with the fixed 8 x 4 named-register tile. GPUs: 128-channel x 64-pixel workgroup tiles in
 * workgroup memory, 16 channels of one tap per step, 8 x 4 per invocation: 20-28 TFLOP/s f32 on an H200.
 */
export const conv3dTuning = {
  cpu: { WG_N: 32, WG_M: 1, TM4: 8, TN: 8, MODE: 0, BK: 1 },
  swiftshader: { WG_N: 32, WG_M: 1, TM4: 2, TN: 4, MODE: 2, BK: 1 },
  gpu: { WG_N: 16, WG_M: 16, TM4: 2, TN: 4, MODE: 1, BK: 16 },
} as const;

/**
 * The GPU tuning (MODE 1) for one conv's output channel count: the 128-channel block wastes a quarter
 * of its work at 96 and 192 channels (Wan2.1's two top levels) and 97% at the head's 3 channels, so
 * those get 96-channel (WG_M 24, TM4 1, TN 8, or 12 x 2 x 4 under 384 invocations per workgroup) blocks,
 * the head's 3 the direct loops on 4 channels, and up to 16 channels 16-channel (WG_M 4, TM4 1) blocks.
 * Other tunings pass unchanged. (The decoder runs src/kernels/conv3d-tiled.ts instead wherever its blocks fit.)
 */
export function conv3dTuningForCout(base: Record<string, number>, cout: number, maxInvocations = 256): Record<string, number> {
  if (base.MODE !== 1) return base;
  const bm = base.WG_M! * base.TM4! * 4;
  if (cout % bm === 0) return base;
  // the head (3 channels): one vec4 of channels in conv3d's direct loops (MODE 0) instead of a 16-channel
  // block: 234 vs 360 ms of the Wan2.1 480x832x81 decode (H200, bench/results/h200/portable-2026-12-01-d6f80d3)
  if (cout <= 4) return { WG_N: 64, WG_M: 1, TM4: 1, TN: 4, MODE: 0, BK: 1 };
  // MODE 1 needs WG_M % TN == 0 (one loader pixel per invocation)
  if (cout <= 16 && 4 % base.TN! === 0) return { ...base, WG_M: 4, TM4: 1 };
  // 96 channels: 24 x 1 vec4 rows x 8 pixels per invocation (the H200 sweep's best: 7.1 ms vs 8.1 for
  // 12 x 2 x 4 and 8.7 for the 128-channel block at 96ch 480x832; bench/results/h200/*-sweep.md), which
  // needs 384 invocations per workgroup; adapters at WebGPU's default 256 (SwiftShader) get 12 x 2 x 4
  if (cout % 96 === 0 && base.WG_N! * 24 <= maxInvocations) return { ...base, WG_M: 24, TM4: 1, TN: 8 };
  if (cout % 96 === 0 && 12 % base.TN! === 0 && base.WG_N! * 12 <= maxInvocations) return { ...base, WG_M: 12, TM4: 2 };
  return base;
}

/** conv3d tiling overrides for an adapter (from `requestDecoderDevice().info`; classified by gpu/adapter.ts). */
export function conv3dTuningFor(info: AdapterFacts): Record<string, number> {
  return { ...conv3dTuning[adapterClass(info)] };
}

const overrides: Record<string, number> = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, ...conv3dTuning.cpu };

/**
 * The ten fields of one conv call (struct Params of shaders/conv3d-common.wgsl, conv3d-mma-params.wgsl and
 * dequant-int8.wgsl begin with them). conv3d's Params add kt and has_res, the temporal taps and the residual
 * form as values: conv3d-tiled reads them (one pipeline serves KT 1 and 3, residual 0, 1 and 2), conv3d and
 * conv3d-head bake KT and HAS_RES and ignore the fields.
 */
export const CONV3D_CALL_PARAMS: readonly ParamDef<Conv3dParams>[] = (['cin', 'cout', 'h', 'w', 'x_off', 'prev2_off', 'prev1_off', 'res_off', 'y_off', 'tap0'] as const).map((name) => ({
  name,
  type: 'u32' as const,
}));

export const conv3d: KernelDef<Conv3dParams> = {
  id: 'conv3d',
  // + the shared declarations and addressing (shaders/conv3d-common.wgsl) + the weight load (conv3d-w.wgsl)
  wgsl: `${src}\n${common}\n${wElem}`,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'cache', access: 'read' },
    { name: 'w', access: 'read' },
    { name: 'b', access: 'read' },
    { name: 'res', access: 'read' },
    { name: 'y', access: 'read_write' },
    { name: 'gamma', access: 'read' },
  ],
  params: [...CONV3D_CALL_PARAMS, { name: 'kt', type: 'u32', override: 'KT' }, { name: 'has_res', type: 'u32', override: 'HAS_RES' }],
  overrides,
  dispatch(p, ov) {
    const o = { ...overrides, ...ov };
    check(p, o);
    const bn = o.WG_N! * o.TN!;
    const bm = o.WG_M! * o.TM4! * 4;
    return [Math.ceil((p.h * p.w) / bn), Math.ceil(p.cout / bm), 1];
  },
  cost(p, ov, elem: Elem = 'f32') {
    const o = { ...overrides, ...ov };
    const kt = o.KT!,
      ks = o.KS!;
    const hw = p.h * p.w;
    const hwIn = o.UP ? hw / 4 : hw;
    const frames = kt - p.tap0;
    const flops = 2 * p.cout * hw * p.cin * frames * ks * ks;
    const elems = (p.cin + (o.NORM ? 1 : 0)) * hwIn * frames + p.cout * p.cin * kt * ks * ks + p.cout * hw * (1 + (o.HAS_RES ? 1 : 0));
    return { flops, bytes: elems * elemBytes(elem) };
  },
};

/**
 * conv3d with packed weights (shaders/conv3d-wq.wgsl): WQ=1 int8 with per-output-channel scales, WQ=2
 * f16 pairs beside f32 activations (src/model/quantize.ts packs them). The same conv, dispatch and
 * params; one more binding, `wq` (binding 7: bind the packed buffer there and at `w`, which it ignores).
 */
export const conv3dWq: KernelDef<Conv3dParams> = {
  ...conv3d,
  id: 'conv3d-wq',
  wgsl: `${src}\n${common}\n${wPacked}`,
  bindings: [...conv3d.bindings, { name: 'wq', access: 'read' }],
  overrides: { ...overrides, WQ: 1 },
  dispatch(p, ov) {
    if (ov.WQ !== undefined && ov.WQ !== 1 && ov.WQ !== 2) throw new DecoderError('bad-input', `conv3d-wq: WQ must be 1 (int8) or 2 (f16), got ${ov.WQ}`);
    return conv3d.dispatch(p, ov);
  },
};

/** Plan-time checks of overrides and params the shader relies on; throws DecoderError('bad-input'). */
function check(p: Conv3dParams, o: Record<string, number>): void {
  const bad = (why: string) => new DecoderError('bad-input', `conv3d ${JSON.stringify({ ...p, ...o })}: ${why}`);
  if (o.TM4! < 1 || o.TM4! > MAX_TM4 || o.TN! < 1 || o.TN! > MAX_TN) throw bad(`TM4 <= ${MAX_TM4}, TN <= ${MAX_TN}`);
  if (![0, 1, 2].includes(o.MODE!)) throw bad('MODE must be 0, 1 or 2');
  if (o.MODE === 1 && o.WG_M! % o.TN! !== 0) throw bad('MODE=1 needs WG_M % TN == 0 (one loader pixel per invocation)');
  if (o.MODE === 2 && (o.TM4 !== 2 || o.TN !== 4)) throw bad('MODE=2 has a fixed tile: TM4 = 2, TN = 4');
  if (o.KT !== 1 && o.KT !== 3) throw bad('KT must be 1 or 3');
  if (![0, 1, 2].includes(o.HAS_RES!)) throw bad('HAS_RES must be 0, 1 (res binding) or 2 (in place, from y)');
  if (o.NORM !== 0 && o.NORM !== 1) throw bad('NORM must be 0 or 1');
  if (o.KS !== 1 && o.KS !== 3) throw bad('KS must be 1 or 3');
  if (p.tap0 >= o.KT!) throw bad('tap0 must be < KT');
  if (o.UP && (p.h % 2 || p.w % 2)) throw bad('UP=1 needs an even output size');
}

export { packConvWeight, packedConvWeightLength } from './conv-layout';
