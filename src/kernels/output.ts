// output kernel (shaders/output.wgsl): unpatchify (Wan2.2), clamp, f32 RGB + RGBA8 of one frame.
import src from '../../shaders/output.wgsl?raw';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';

export interface OutputParams extends Record<string, number> {
  /** input (pre-unpatchify) size */
  h: number;
  w: number;
  x_off: number;
  /** frame slot in the rgb / rgba output buffers */
  frame: number;
}

const overrides = { PATCH: 1, WRITE_RGBA: 0, WG: 64 };

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
    const o = { ...overrides, ...ov };
    return [Math.ceil((p.h * p.w * o.PATCH * o.PATCH) / o.WG), 1, 1];
  },
  cost(p, ov, elem: Elem = 'f32') {
    const P = { ...overrides, ...ov }.PATCH;
    const px = p.h * p.w * P * P;
    return { flops: 3 * px, bytes: 3 * px * elemBytes(elem) + 3 * px * 4 + px * 4 };
  },
};
