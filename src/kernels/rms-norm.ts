// rmsNorm kernel: RMS_norm over channels with optional fused SiLU (shaders/rms-norm.wgsl).
import src from '../../shaders/rms-norm.wgsl?raw';
import { elemBytes, linearGrid, type Elem, type KernelDef } from '../gpu/kernel';

export interface RmsNormParams extends Record<string, number> {
  c: number;
  /** pixels per channel plane (h·w) */
  hw: number;
  x_off: number;
  y_off: number;
}

const overrides: Record<string, number> = { WG: 64, SILU: 0 };

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
  ],
  overrides,
  dispatch(p, ov) {
    const o = { ...overrides, ...ov };
    return linearGrid(Math.ceil(p.hw / o.WG!));
  },
  cost(p, ov, elem: Elem = 'f32') {
    const o = { ...overrides, ...ov };
    return { flops: p.c * p.hw * (o.SILU ? 8 : 4), bytes: (3 * p.c * p.hw + p.c) * elemBytes(elem) };
  },
};
