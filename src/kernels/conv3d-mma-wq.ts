// conv3d on tensor cores with int8 weights (--weights-precision int8 with f16 storage): conv3d-mma's
// blocked GEMM whose weight tiles are dequantised in the operand load (shaders/conv3d-mma-wq.wgsl:
// int8 tiles unpacked to f16 integers in workgroup memory, results times the per-output-channel scales
// before the bias). The operand copy is conv3d-mma-pack's, unchanged. conv3dMmaWqEmu is its scalar twin
// (any adapter): the CPU-reference test of the int8 blocked layout. Both take conv3d's Params and
// conv3d-mma's bindings plus `wq` (binding 5: bind the int8 buffer there and at `wt`, which they ignore).
// Result tiles per subgroup: conv3dMmaTiles / mmaTilesFor as conv3d-mma. Pure descriptions: no GPU objects.
import src from '../../shaders/conv3d-mma-wq.wgsl?raw';
import emuMain from '../../shaders/conv3d-mma-emu.wgsl?raw';
import emu from '../../shaders/conv3d-mma-wq-emu.wgsl?raw';
import wqCommon from '../../shaders/conv3d-mma-wq-common.wgsl?raw';
import common from '../../shaders/conv3d-mma-common.wgsl?raw';
import { type KernelDef } from '../gpu/kernel';
import type { Conv3dParams } from './conv3d';
import { conv3dMma, conv3dMmaEmu, mmaGeometry } from './conv3d-mma';

function withWq(base: KernelDef<Conv3dParams>, id: string, main: string): KernelDef<Conv3dParams> {
  return {
    ...base,
    id,
    wgsl: `${main}\n${common}\n${wqCommon}`,
    bindings: [...base.bindings, { name: 'wq', access: 'read' }],
    cost(p, ov, elem) {
      // conv3d-mma's, with 1 byte per weight instead of 2 (the weights are read once per call in both)
      const c = base.cost(p, ov, elem);
      const g = mmaGeometry(p, ov.KS ?? 3);
      const kt = ov.KT ?? 3, ks = ov.KS ?? 3;
      return { flops: c.flops, bytes: c.bytes - kt * ks * ks * g.ob * g.cb * 256 };
    },
  };
}

/** Tensor-core conv with int8 blocked weights (tile rows from workgroup memory). */
export const conv3dMmaWq = withWq(conv3dMma, 'conv3d-mma-wq', src);

/** conv3dMmaWq with scalar products: runs anywhere (slow); the CPU-reference test of the int8 blocked layout. */
export const conv3dMmaWqEmu = withWq(conv3dMmaEmu, 'conv3d-mma-wq-emu', `${emuMain}\n${emu}`);
