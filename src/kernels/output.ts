// output kernel: clamp, Wan2.2 unpatchify and RGBA8 packing of the decoded frame (shaders/output.wgsl).
import src from '../../shaders/output.wgsl?raw';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';

export interface OutputParams extends Record<string, number> {
  /** INPUT spatial size; the full output is PATCH·h x PATCH·w */
  h: number;
  w: number;
  x_off: number;
  /** region of the output written: origin (cy, cx) and size oh x ow, in output pixels */
  cy: number;
  cx: number;
  oh: number;
  ow: number;
  /** element offsets of the region in the rgb (f32 planes [3, oh, ow]) and rgba (u32 [oh·ow]) buffers */
  rgb_off: number;
  rgba_off: number;
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
  params: [{ name: 'h', type: 'u32' }, { name: 'w', type: 'u32' }, ...(['x_off', 'cy', 'cx', 'oh', 'ow', 'rgb_off', 'rgba_off'] as const).map((name) => ({ name, type: 'u32' as const }))],
  overrides,
  dispatch(p) {
    return [Math.ceil(p.ow / 16), Math.ceil(p.oh / 16), 1];
  },
  cost(p, _ov, elem: Elem = 'f32') {
    const px = p.oh * p.ow;
    return { flops: 12 * px, bytes: px * (3 * elemBytes(elem) + 3 * 4 + 4) };
  },
};
