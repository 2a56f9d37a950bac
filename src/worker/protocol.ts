// What crosses the worker boundary: results are wrapped so a DecoderError keeps its code (comlink's
// default throw handler keeps only name, message and stack).
import type { DecoderErrorCode } from '../gpu/errors';
import type { DecodeOptions, Replan } from '../options/decode-options';
import type { HostLine } from '../plan/host-text';
import type { BusTraffic, MemoryBreakdown } from '../plan/planner';

/**
 * What the worker loads weights from: a checkpoint's bytes, a Blob / File (read by slices), a URL (read
 * there by Range requests, a streamed body where the server ignores Range), or null for the embedded default.
 */
export type WeightsInput = Uint8Array | Blob | { url: string } | null;

/** A weight load's progress as the worker posts it: a tensor read for the first time, bytes of the file's decoder tensors done / in all. */
export interface WeightsRead {
  tensor: string;
  bytesDone: number;
  bytesTotal: number;
}

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
  /** CPU memory the decoder keeps, by owner with its growth per latent frame (src/plan/host-text.ts), and its total */
  host: { total: number; lines: HostLine[] };
  /** bytes over the bus in the decode (levers: store, parked caches, streamed weights) */
  bus: BusTraffic;
}

/**
 * The decode options that cross to the worker: DecodeOptions (their types and checks from the schema,
 * src/options/) less what cannot be posted (the AbortSignal: cancel() instead; onFrame: decode's third
 * argument). The worker checks them as the API does (checkDecodeOptions): a bad value is a 'bad-input'
 * error naming the option.
 */
export type WorkerDecodeOptions = Omit<DecodeOptions, 'signal' | 'onFrame'>;

/** fitPlan's choice (src/plan/auto.ts): the options it picked, why, and the plan they give. */
export interface FitInfo {
  reason: string;
  options: Required<Pick<WorkerDecodeOptions, 'precision' | 'norm'>> &
    Pick<WorkerDecodeOptions, 'tile' | 'normChunk' | 'weightsPrecision' | 'cacheOffload' | 'weightsStream' | 'weightsStreamSlots' | 'conv'>;
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
