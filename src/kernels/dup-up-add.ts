// dupUpAdd kernel: the Wan2.2 DupUp3D shortcut of one output sub-frame, added in place (shaders/dup-up-add.wgsl).
import src from '../../shaders/dup-up-add.wgsl?raw';
import { elemBytes, linearGrid, type Elem, type KernelDef } from '../gpu/kernel';

export interface DupUpAddParams extends Record<string, number> {
  /** output frame size: channels and spatial (the input is h/fs x w/fs) */
  cout: number;
  h: number;
  w: number;
  cin: number;
  /** temporal and spatial factors; r = cout·ft·fs² / cin; a = sub-frame index 0..ft-1 */
  ft: number;
  fs: number;
  r: number;
  a: number;
  x_off: number;
  y_off: number;
}

const overrides: Record<string, number> = { WG: 256 };

export const dupUpAdd: KernelDef<DupUpAddParams> = {
  id: 'dup-up-add',
  wgsl: src,
  bindings: [
    { name: 'x', access: 'read' },
    { name: 'y', access: 'read_write' },
  ],
  params: [
    { name: 'cout', type: 'u32' },
    { name: 'h', type: 'u32' },
    { name: 'w', type: 'u32' },
    { name: 'cin', type: 'u32' },
    { name: 'ft', type: 'u32' },
    { name: 'fs', type: 'u32' },
    { name: 'r', type: 'u32' },
    { name: 'a', type: 'u32' },
    { name: 'x_off', type: 'u32' },
    { name: 'y_off', type: 'u32' },
  ],
  overrides,
  dispatch(p, ov) {
    const o = { ...overrides, ...ov };
    return linearGrid(Math.ceil((p.cout * p.h * p.w) / o.WG!));
  },
  cost(p, _ov, elem: Elem = 'f32') {
    const n = p.cout * p.h * p.w;
    return { flops: n, bytes: 3 * n * elemBytes(elem) };
  },
};
