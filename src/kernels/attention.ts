// attention kernel: single-head attention of one frame with an online softmax (shaders/attention.wgsl).
import src from '../../shaders/attention.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, wgslConst, type Elem, type KernelDef } from '../gpu/kernel';

export interface AttentionParams extends Record<string, number> {
  /** head dim = channels (<= 1024) */
  c: number;
  /** tokens = h·w */
  n: number;
  /** softmax scale, 1/sqrt(c) */
  scale: number;
}

const BQ = wgslConst(src, 'BQ');
/** NJ's largest value (the shader's default): 4 channel slots of 256 invocations */
const NJ_MAX = 4;
const MAX_C = 256 * NJ_MAX;

/** The overrides for head dim `c`: NJ = ceil(c / 256) channel slots per invocation (the shader's unrolled P·V loop). */
export function attentionOverrides(c: number): Record<string, number> {
  return { NJ: Math.max(1, Math.ceil(c / 256)) };
}

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
  overrides: { NJ: NJ_MAX },
  dispatch(p, ov) {
    if (p.c > MAX_C) throw new DecoderError('unsupported', `attention: head dim ${p.c} > ${MAX_C}`);
    const nj = ov.NJ ?? NJ_MAX;
    if (p.c > 256 * nj) throw new DecoderError('unsupported', `attention: head dim ${p.c} needs NJ >= ${Math.ceil(p.c / 256)}, the pipeline has NJ ${nj}`);
    return [Math.ceil(p.n / BQ), 1, 1];
  },
  cost(p, _ov, elem: Elem = 'f32') {
    // q·k and p·v: 2 multiply-adds per (query, key, channel); K and V read once per query block
    const flops = 4 * p.n * p.n * p.c;
    const bytes = (p.c * p.n * (2 + 2 * Math.ceil(p.n / BQ)) + p.c * p.n) * elemBytes(elem);
    return { flops, bytes };
  },
};
