// dequant-int8 (shaders/dequant-int8.wgsl): int8 conv weights with per-output-channel scales expanded to
// conv3d-mma's f16 blocked weights, one conv at a time, into a scratch the tensor-core GEMM then reads as
// f16 weights. So int8 weights (--weights-precision int8, f16 storage) run on the same straight-line
// GEMM as f16 weights (conv3d-mma-flat.ts mmaGemm), holding 1 byte per weight plus one f16 copy of the
// largest conv's weights (Wan2.1: 384 x 384 x 27 = 8.0 MB; Wan2.2: 1024 x 1024 x 27 = 56.6 MB). Before
// 2026-12-01 (until 156ef60) a looped GEMM unpacked the int8 tiles in workgroup memory (conv3d-mma-wq): 11.5 TFLOP/s
// on the H200, slower than the portable int8 conv. Pure description: no GPU objects.
import src from '../../shaders/dequant-int8.wgsl?raw';
import toHalf from '../../shaders/to-half.wgsl?raw';
import { linearGrid, wgslConst, type KernelDef } from '../gpu/kernel';
import { CONV3D_CALL_PARAMS, type Conv3dParams } from './conv3d';
import { blockedConvWeightLength } from './conv3d-mma';

const WG = wgslConst(src, 'WG');

/** Input words (4 int8 weights each) of one conv's int8 blocked buffer, before its scales. */
function words(p: Conv3dParams, ov: Record<string, number>): number {
  return blockedConvWeightLength(p.cout, p.cin, ov.KT ?? 3, ov.KS ?? 3) / 4;
}

/** One conv's int8 blocked weights + scales (binding 0) -> its f16 blocked weights (binding 1); conv3d's params, the conv's KT / KS. */
export const dequantInt8: KernelDef<Conv3dParams> = {
  id: 'dequant-int8',
  // + the f32 -> f16 rounding of the weight-preparation kernels (round to nearest even on the bits, as toHalf)
  wgsl: `${src}\n${toHalf}`,
  bindings: [
    { name: 'wq', access: 'read' },
    { name: 'wt', access: 'read_write' },
  ],
  params: CONV3D_CALL_PARAMS,
  overrides: { KT: 3, KS: 3 },
  dispatch: (p, ov) => linearGrid(Math.ceil(words(p, ov) / WG)),
  // reads 1 byte per weight (+ the scales), writes 2
  cost: (p, ov) => ({ flops: 0, bytes: words(p, ov) * 12 + Math.ceil(p.cout / 16) * 64 }),
};
