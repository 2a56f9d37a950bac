// What crosses the worker boundary: results are wrapped so a DecoderError keeps its code (comlink's
// default throw handler keeps only name, message and stack).
import type { DecoderErrorCode } from '../gpu/errors';
import type { Replan } from '../decoder';
import type { MemoryBreakdown, PlanOptions, TileOption } from '../plan/planner';

export type Wrapped<T> = { ok: true; value: T } | { ok: false; code: DecoderErrorCode; message: string };

export interface ModelInfo {
  version: '2.1' | '2.2';
  dim: number;
  zDim: number;
  scale: number;
  params: number;
  source: string;
}

export interface PlanInfo {
  plannedPeakGpuBytes: number;
  memory: MemoryBreakdown;
  frames: number;
  height: number;
  width: number;
  largestBufferBytes: number;
  /** tile-major tiling: where the latent-rate store lives (null: no store) */
  storeWhere: 'gpu' | 'cpu' | null;
  /** bytes of host (CPU) memory the store takes ('cpu' store; 0 otherwise): not in the GPU figures */
  hostStoreBytes: number;
}

export interface WorkerDecodeOptions {
  cache?: 'on' | 'off';
  precision?: 'f32' | 'f16';
  /** storage of the conv weights (default: = precision); 'int8': per-output-channel scales, dequantised in the portable conv */
  weightsPrecision?: 'f32' | 'f16' | 'int8';
  latentStats?: 'official' | 'none' | { mean: Float32Array; std: Float32Array };
  rgba?: boolean;
  /** spatial tiling (tile core in latent pixels) */
  tile?: TileOption;
  /** where RMS_norm results live: 'full' (default), 'chunked' (in place, normChunk px per dispatch), 'fused' (into the next conv) */
  norm?: PlanOptions['norm'];
  normChunk?: number;
  /** return the whole video [3, F, H, W] at the end (default true) */
  collect?: boolean;
  backend?: 'webgpu' | 'cpu';
  /** fault injection (tests, the demo): the N-th GPU buffer allocation of this decode fails as out-of-memory */
  injectOom?: number | `${number}+`;
}

/** fitPlan's choice (src/plan/auto.ts): the options it picked, why, and the plan they give. */
export interface FitInfo {
  reason: string;
  options: Required<Pick<WorkerDecodeOptions, 'precision' | 'norm'>> & Pick<WorkerDecodeOptions, 'tile' | 'normChunk' | 'weightsPrecision'>;
  plan: PlanInfo;
}

export interface WorkerDecodeResult {
  video: Float32Array | null;
  frames: number;
  height: number;
  width: number;
  seconds: number;
  adapter: string;
  peakGpuBytes?: number;
  plannedPeakGpuBytes?: number;
  memory?: MemoryBreakdown;
  /** every plan used after a GPU fault (out of memory), with its reason; empty when the first plan ran through */
  replans: Replan[];
}

/** Memory held in the worker (decoder.worker.ts stats()). */
export interface WorkerStats {
  gpuBytes: number;
  gpuBuffers: number;
  /** Chromium's performance.memory.usedJSHeapSize (coarse without --enable-precise-memory-info), null elsewhere */
  jsHeapBytes: number | null;
}
