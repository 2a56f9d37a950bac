// crop kernel (shaders/crop.wgsl): a spatial window of every channel of a frame, for spatial tiles.
import src from '../../shaders/crop.wgsl?raw';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';

export interface CropParams extends Record<string, number> {
  c: number;
  /** source frame size */
  src_h: number;
  src_w: number;
  /** window origin and size */
  y0: number;
  x0: number;
  h: number;
  w: number;
  x_off: number;
  y_off: number;
}

const overrides: Record<string, number> = { WG: 64 };

export const crop: KernelDef<CropParams> = {
  id: 'crop',
  wgsl: src,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'y', access: 'read_write' },
  ],
  params: (['c', 'src_h', 'src_w', 'y0', 'x0', 'h', 'w', 'x_off', 'y_off'] as const).map((name) => ({ name, type: 'u32' as const })),
  overrides,
  dispatch(p, ov) {
    return [Math.ceil((p.h * p.w) / ({ ...overrides, ...ov }.WG ?? 64)), p.c, 1];
  },
  cost(p, _ov, elem: Elem = 'f32') {
    return { flops: 0, bytes: 2 * p.c * p.h * p.w * elemBytes(elem) };
  },
};
