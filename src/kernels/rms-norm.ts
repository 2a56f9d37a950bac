// rmsNorm kernel: RMS_norm over channels with optional fused SiLU, out of place (--norm full), in place
// (--norm chunked) or writing only the per-pixel inverse RMS for conv3d's NORM=1 prologue (--norm fused).
// shaders/rms-norm.wgsl.
import src from '../../shaders/rms-norm.wgsl?raw';
import { elemBytes, linearGrid, type Elem, type KernelDef } from '../gpu/kernel';

export interface RmsNormParams extends Record<string, number> {
  c: number;
  /** pixels per channel plane (h·w) */
  hw: number;
  x_off: number;
  y_off: number;
  /** the pixels this dispatch normalises: p0 .. p0+np-1 (np = hw for a whole frame) */
  p0: number;
  np: number;
}

const overrides: Record<string, number> = { WG: 64, SILU: 0, INPLACE: 0, STATS: 0, INV_MAX: 3.0e38 };

/** INV_MAX override for a storage type: the largest finite value (f16: 65504), see the shader. */
export function invMaxFor(elem: Elem): number {
  return elem === 'f16' ? 65504 : 3.0e38;
}

export const rmsNorm: KernelDef<RmsNormParams> = {
  id: 'rms-norm',
  wgsl: src,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'gamma', access: 'read' },
    { name: 'y', access: 'read_write' },
  ],
  params: [
    { name: 'c', type: 'u32' },
    { name: 'hw', type: 'u32' },
    { name: 'x_off', type: 'u32' },
    { name: 'y_off', type: 'u32' },
    { name: 'p0', type: 'u32' },
    { name: 'np', type: 'u32' },
  ],
  overrides,
  dispatch(p, ov) {
    const o = { ...overrides, ...ov };
    return linearGrid(Math.ceil(p.np / o.WG!));
  },
  cost(p, ov, elem: Elem = 'f32') {
    const o = { ...overrides, ...ov };
    const reads = o.STATS ? 1 : 2; // two passes over the input unless only the stats are written
    const writes = o.STATS ? 1 / p.c : 1;
    return { flops: p.c * p.np * (o.STATS ? 2 : o.SILU ? 8 : 4), bytes: ((reads + writes) * p.c * p.np + p.c) * elemBytes(elem) };
  },
};
