// attention kernel (shaders/attention.wgsl): single-head online-softmax attention over one frame.
import src from '../../shaders/attention.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, wgslConst, type Elem, type KernelDef } from '../gpu/kernel';

export interface AttentionParams extends Record<string, number> {
  c: number;
  n: number;
  scale: number;
}

const WG = wgslConst(src, 'WG');
const MAX_CPT = wgslConst(src, 'MAX_CPT');
const MAX_GROUPS_X = 65535;

export const attention: KernelDef<AttentionParams> = {
  id: 'attention',
  wgsl: src,
  bindings: [
    { name: 'qkv', access: 'read' },
    { name: 'o', access: 'read_write' },
  ],
  params: [
    { name: 'c', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'scale', type: 'f32' },
  ],
  overrides: {},
  dispatch(p) {
    if (p.c > WG * MAX_CPT) throw new DecoderError('unsupported', `attention: head dim ${p.c} above ${WG * MAX_CPT}`);
    return p.n <= MAX_GROUPS_X ? [p.n, 1, 1] : [MAX_GROUPS_X, Math.ceil(p.n / MAX_GROUPS_X), 1];
  },
  cost(p, _ov, elem: Elem = 'f32') {
    // scores (N² C) and A·V (N² C), each a multiply-add; K and V read once per query
    return { flops: 4 * p.n * p.n * p.c, bytes: (2 * p.n * p.n * p.c + 2 * p.c * p.n) * elemBytes(elem) };
  },
};
