// dupUpAdd kernel (shaders/dup-up-add.wgsl): Wan2.2 DupUp3D shortcut added to one output frame.
import src from '../../shaders/dup-up-add.wgsl?raw';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';

export interface DupUpAddParams extends Record<string, number> {
  cout: number;
  /** output frame size */
  h: number;
  w: number;
  cin: number;
  ft: number;
  fs: number;
  r: number;
  /** sub-frame index 0..ft-1 */
  a: number;
  x_off: number;
  y_off: number;
}

const overrides = { WG: 64 };

export const dupUpAdd: KernelDef<DupUpAddParams> = {
  id: 'dup-up-add',
  wgsl: src,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'y', access: 'read_write' },
  ],
  params: ['cout', 'h', 'w', 'cin', 'ft', 'fs', 'r', 'a', 'x_off', 'y_off'].map((name) => ({ name, type: 'u32' as const })),
  overrides,
  dispatch(p, ov) {
    return [Math.ceil((p.h * p.w) / ({ ...overrides, ...ov }.WG ?? 64)), p.cout, 1];
  },
  cost(p, _ov, elem: Elem = 'f32') {
    return { flops: p.cout * p.h * p.w, bytes: 3 * p.cout * p.h * p.w * elemBytes(elem) };
  },
};
