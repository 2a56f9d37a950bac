// Every step of a plan with the kernels the decoder dispatches for it (step-kernels.ts), without a device:
// the BindCtx's buffers are stand-ins (a binding is counted, never used). What `wan-vae shaders` lists
// (src/node/shaders-cli.ts) and what the step-kind table and kernel compile tests walk
// (test/plan/step-kinds.test.ts, test/kernels/compile.test.ts).
import type { Step } from '../../plan/graph';
import type { Plan, ProgramPlan } from '../../plan/types';
import { stepKernels, type BindCtx, type StepKernel } from './step-kernels';

/** What a step's kernels depend on beyond the plan: the adapter's conv tuning, its invocation limit, tensor cores. */
export type KernelTarget = Pick<BindCtx, 'tuning' | 'maxInvocations' | 'mma'>;

/** One step of a plan's program and the kernels it dispatches, in order. */
export interface PlanStep {
  pp: ProgramPlan;
  step: Step;
  kernels: StepKernel[];
}

/** Every step of `p`'s programs in execution order with its kernels on `target` (storage types and model from the plan). */
export function* planStepKernels(p: Plan, target: KernelTarget): Generator<PlanStep> {
  const buf = {} as GPUBuffer;
  for (const pp of Object.values(p.programs).flat()) {
    const ctx: BindCtx = {
      elem: p.opts.precision,
      weightsPrecision: p.opts.weightsPrecision,
      cfg: p.cfg,
      ...target,
      view: () => buf,
      weight: () => buf,
      ring: () => buf,
      dummy: buf,
      out: buf,
      rgba: buf,
      mmaScratch: buf,
      winoScratch: buf,
      winoU: () => ({ buffer: buf }),
      wqScratch: buf,
      storeEntry: () => ({ buffer: buf }),
      inPlace: (v, y) => !!v && v.t !== y.t && !v.t.io && pp.slotOf[v.t.id] === pp.slotOf[y.t.id],
    };
    for (const step of pp.prog.steps) yield { pp, step, kernels: stepKernels(step, ctx) };
  }
}
