// attention-pack kernel (shaders/attention-pack.wgsl): qkv in 16x16 tile order for the tensor-core attention's
// packed form (attention-mma.ts, shape `packed`); C and N multiples of 16.
import src from '../../shaders/attention-pack.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, linearGrid, type Elem, type KernelDef } from '../gpu/kernel';

export interface AttentionPackParams extends Record<string, number> {
  /** head dim = channels (qkv has 3C rows) */
  c: number;
  /** tokens */
  n: number;
}

export const attentionPack: KernelDef<AttentionPackParams> = {
  id: 'attention-pack',
  wgsl: src,
  bindings: [
    { name: 'qkv', access: 'read' },
    { name: 'packed', access: 'read_write' },
  ],
  params: [
    { name: 'c', type: 'u32' },
    { name: 'n', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatch(p, ov) {
    if (p.c % 16 || p.n % 16) throw new DecoderError('unsupported', `attention-pack: C ${p.c} and N ${p.n} must be multiples of 16`);
    return linearGrid(Math.ceil((3 * p.c * p.n) / (ov.WG ?? 256)));
  },
  cost(p, _ov, elem: Elem = 'f16') {
    return { flops: 0, bytes: 2 * 3 * p.c * p.n * elemBytes(elem) };
  },
};
