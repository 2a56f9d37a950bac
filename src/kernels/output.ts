// output kernel: clamp, Wan2.2 unpatchify and RGBA8 packing of the decoded frame (shaders/output.wgsl).
import src from '../../shaders/output.wgsl?raw';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';

export interface OutputParams extends Record<string, number> {
  /** INPUT spatial size; the output is PATCH·h x PATCH·w */
  h: number;
  w: number;
  x_off: number;
  /** frame slot in the rgb / rgba buffers (the frames of one chunk) */
  frame: number;
}

const overrides: Record<string, number> = { PATCH: 1 };

export const output: KernelDef<OutputParams> = {
  id: 'output',
  wgsl: src,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'rgb', access: 'read_write' },
    { name: 'rgba', access: 'read_write' },
  ],
  params: [
    { name: 'h', type: 'u32' },
    { name: 'w', type: 'u32' },
    { name: 'x_off', type: 'u32' },
    { name: 'frame', type: 'u32' },
  ],
  overrides,
  dispatch(p, ov) {
    const P = { ...overrides, ...ov }.PATCH!;
    return [Math.ceil((p.w * P) / 16), Math.ceil((p.h * P) / 16), 1];
  },
  cost(p, ov, elem: Elem = 'f32') {
    const P = { ...overrides, ...ov }.PATCH!;
    const px = p.h * p.w * P * P;
    return { flops: 12 * px, bytes: px * (3 * elemBytes(elem) + 3 * 4 + 4) };
  },
};
