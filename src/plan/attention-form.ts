// The middle block's attention at plan time: on tensor cores (f16 plans with tensor cores on) the shape is the
// measured one for its head dim (kernels/attention-mma-measured.ts attentionMmaShapeFor, the single decision);
// a shape that splits the keys, or reads qkv in tile order, needs more tensors, made here so that the slots hold
// them by liveness like any other: the split's partial outputs [ranges][C][N] (storage type) and their softmax
// max and sum [ranges][2][N] (f32, counted in storage elements); the packed copy of qkv [3C][N].
// runtime/exec/step-kernels.ts runs those forms where the step has their tensors, the plain form of the same
// shape elsewhere. Pure planning: no WGSL.
import { attentionMmaShapeFor } from '../kernels/attention-mma-measured';
import { planOnTensorCores } from './conv-form';
import type { AttnStep, Program } from './graph';

/** Records the split and the packed copy (and their tensors) on every attention step of `prog` whose measured shape has them. */
export function assignAttentionTensors(prog: Program, opts: { tensorCores?: boolean; precision: 'f32' | 'f16' }, elemBytes: number): void {
  if (!planOnTensorCores(opts)) return;
  for (const s of prog.steps) {
    if (s.kind !== 'attn') continue;
    const shape = attentionMmaShapeFor(s);
    if (!shape) continue;
    const a = s as AttnStep;
    const tensor = (name: string, elems: number) => {
      const t = { id: prog.tensors.length, name: `${a.label}:${name}`, elems };
      prog.tensors.push(t);
      return { t, off: 0 };
    };
    const ranges = shape.split ?? 1;
    if (ranges > 1) a.split = { ranges, part: tensor('part', ranges * a.c * a.n), ml: tensor('ml', Math.ceil((2 * ranges * a.n * 4) / elemBytes)) };
    if (shape.packed) a.packed = tensor('packed', 3 * a.c * a.n);
  }
}
