// rmsNorm kernel (shaders/rms-norm.wgsl): RMS_norm over channels, optional SiLU. Pure description.
import src from '../../shaders/rms-norm.wgsl?raw';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';

export interface RmsNormParams extends Record<string, number> {
  c: number;
  hw: number;
  x_off: number;
  y_off: number;
}

const overrides = { SILU: 1, WG: 64 };

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
    return [Math.ceil(p.hw / ({ ...overrides, ...ov }.WG ?? 64)), 1, 1];
  },
  cost(p, _ov, elem: Elem = 'f32') {
    return { flops: 6 * p.c * p.hw, bytes: (3 * p.c * p.hw + p.c) * elemBytes(elem) };
  },
};
