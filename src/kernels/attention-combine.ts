// attention-combine kernel (shaders/attention-combine.wgsl): the second pass of the tensor-core attention split
// over keys (attention-mma.ts, shape `split`): the per-range partial outputs weighted by their softmax sums.
import src from '../../shaders/attention-combine.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, linearGrid, type Elem, type KernelDef } from '../gpu/kernel';

export interface AttentionCombineParams extends Record<string, number> {
  /** head dim = channels */
  c: number;
  /** tokens */
  n: number;
  /** softmax scale (unread: the params struct the first pass shares, kernels/attention.ts AttentionParams) */
  scale: number;
  /** key ranges (the first pass's dispatch z) */
  split: number;
}

/** Elements of the first pass's buffers for `split` ranges: part [split][C][N] (storage type), ml [split][2][N] f32. */
export function attentionSplitElems(p: { c: number; n: number }, split: number): { part: number; ml: number } {
  return { part: split * p.c * p.n, ml: 2 * split * p.n };
}

export const attentionCombine: KernelDef<AttentionCombineParams> = {
  id: 'attention-combine',
  wgsl: src,
  bindings: [
    { name: 'part', access: 'read' },
    { name: 'ml', access: 'read' },
    { name: 'o', access: 'read_write' },
  ],
  params: [
    { name: 'c', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'scale', type: 'f32' },
    { name: 'split', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatch(p, ov) {
    if (!(Number.isInteger(p.split) && p.split >= 1)) throw new DecoderError('bad-input', `attention-combine: ${p.split} key ranges`);
    return linearGrid(Math.ceil((p.c * p.n) / (ov.WG ?? 256)));
  },
  cost(p, _ov, elem: Elem = 'f16') {
    return { flops: 0, bytes: (p.split + 1) * p.c * p.n * elemBytes(elem) + 2 * p.split * p.n * 4 };
  },
};
