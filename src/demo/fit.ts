// Which plan a decode runs: the options as set, or, when a budget is set or a lever (tiles, precision,
// norm, the tile-major store) is on 'auto', the plan fitPlan (src/plan/auto.ts, run in the worker)
// picks to fit the budget and the adapter's limits. The request mirrors the CLI's fitOptions: a lever
// set to a value is taken as given (fitPlan only checks it), 'auto' is searched (tiles: whole frames,
// then the fewest tiles; precision: f32, then f16 where the adapter has shader-f16; norm: full,
// chunked, fused; store: gpu, then cpu).
import type { FitRequest } from '../plan/auto';
import { tried } from '../options/auto';
import type { DecoderClient } from '../worker/client';
import type { PlanInfo, WorkerDecodeOptions } from '../worker/protocol';
import type { GpuProbe } from './gpu-probe';
import { hasOffload, hasStore, optionProblem, storeChoices, tileCore, toWorkerOptions, type DemoOptions } from './options';

export interface Resolved {
  /** what the worker decodes with */
  worker: WorkerDecodeOptions;
  plan: PlanInfo;
  /** fitPlan's one-line reason, null when the options were taken as set */
  reason: string | null;
}

export function usesFit(o: DemoOptions): boolean {
  return (
    o.backend === 'webgpu' &&
    (o.budget !== null || o.tile === 'auto' || o.precision === 'auto' || o.norm === 'auto' || (hasStore(o) && o.tileStore === 'auto') || (hasOffload(o) && o.cacheOffload === 'auto'))
  );
}

/** The FitRequest for the options (valid ones: see optionProblem) on a latent [z, T, h, w]. */
export function fitRequest(o: DemoOptions, shape: readonly number[], gpu: GpuProbe): FitRequest {
  const grid = tileCore(o, shape);
  return {
    budget: o.budget === null ? undefined : o.budget * 2 ** 20,
    limits: gpu.limits,
    // 'auto': the schema's values in their order, as the CLI's (src/options/auto.ts); f16 only with shader-f16
    precisions: tried('precision', o.precision).filter((p) => p === 'f32' || gpu.f16 || o.precision !== 'auto'),
    tile: grid ? { th: grid.th, tw: grid.tw } : o.tile === 'auto' ? 'auto' : 'none',
    tileMode: o.tileMode,
    tileOrder: o.tileOrder,
    stores: storeChoices(o),
    // frame-major tiles may park the idle tiles' caches in CPU memory (exact) when nothing else fits
    cacheOffloads: hasOffload(o) ? tried('cacheOffload', o.cacheOffload) : undefined,
    // half the memory the browser reports (navigator.deviceMemory, GiB, capped at 8 by Chrome; absent elsewhere: no limit)
    cpuBudget: typeof navigator !== 'undefined' && 'deviceMemory' in navigator ? ((navigator as { deviceMemory: number }).deviceMemory * 2 ** 30) / 2 : undefined,
    // weights: 'auto' lets the budget choose f16 then int8 weights (after every plan at full weights), as the CLI's
    // --weights-precision auto; a set value goes as the base option. Streaming: auto = resident first at each tiling
    weightsPrecisions: o.weightsPrecision === 'auto' ? tried('weightsPrecision', 'auto') : undefined,
    weightsStreams: tried('weightsStream', o.weightsStream),
    norms: tried('norm', o.norm),
    normChunk: o.norm === 'chunked' ? o.normChunk : undefined,
  };
}

/**
 * Plan the options: through fitPlan when they ask for it (usesFit), else as set. Throws the option
 * problem, the planner's refusal, or fitPlan's DecoderError('limits') saying what the smallest plan needs.
 */
export async function resolvePlan(client: DecoderClient, shape: [number, number, number, number], o: DemoOptions, gpu: GpuProbe): Promise<Resolved> {
  const problem = optionProblem(o);
  if (problem) throw new Error(problem);
  const base = toWorkerOptions(o, shape);
  if (!usesFit(o)) return { worker: base, plan: await client.plan(shape, base), reason: null };
  const f = await client.fit(shape, base, fitRequest(o, shape, gpu));
  const worker: WorkerDecodeOptions = {
    ...base,
    precision: f.options.precision,
    weightsPrecision: f.options.weightsPrecision,
    tile: f.options.tile,
    cacheOffload: f.options.cacheOffload,
    weightsStream: f.options.weightsStream,
    weightsStreamSlots: f.options.weightsStreamSlots,
    norm: f.options.norm,
    normChunk: f.options.normChunk,
    // the conv form the fit planned with (--conv auto: Winograd only where it needed no other lever)
    conv: f.options.conv,
  };
  return { worker, plan: f.plan, reason: f.reason };
}
