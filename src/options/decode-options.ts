// The options and the result of WanVaeDecoder.decode (the public API; re-exported by src/decoder.ts and
// src/index.ts). The option types come from the schema (schema.ts: values, defaults, one-line help);
// what each does is the schema record's `help`. Runtime-only fields (signal, onFrame) live here alone.
import type { LatentStats } from '../model/stats';
import type { WeightsPrecision } from '../model/quantize';
import type { NormMode } from '../plan/graph';
import type { MemoryBreakdown, Precision, TileOption } from '../plan/planner';
import type { Frame } from '../runtime/assembler';
import type { OptionValue } from './schema';

export interface DecodeOptions {
  backend?: OptionValue<'backend'>;
  /** 'on': exact causal cache; 'off': the official feat_cache=None per-frame loop (Wan2.1 only, T frames) */
  cache?: OptionValue<'cache'>;
  /** storage precision on the GPU (accumulation is always f32) */
  precision?: OptionValue<'precision'>;
  /** storage of the conv weights (default: = precision); int8 is dequantised in the conv's operand load (portable conv3d-wq; on tensor cores dequant-int8 expands each conv's weights to f16 before the GEMM) */
  weightsPrecision?: OptionValue<'weightsPrecision'>;
  /** 'official' (by z: Wan2.1 16 / Wan2.2 48 channels), 'none' (already de-normalised) or explicit statistics */
  latentStats?: 'official' | 'none' | LatentStats;
  /** also produce RGBA8 frames (for display) */
  rgba?: boolean;
  /** spatial tiling (tile core in latent pixels, exact or blended, tile- or frame-major, store); default none */
  tile?: TileOption;
  /** frame-major tiles: 'on' parks the idle tiles' cache rings in CPU memory (one tile's on the GPU); exact */
  cacheOffload?: OptionValue<'cacheOffload'>;
  /** 'on': the conv weights stay in CPU memory and stream through a ring of GPU buffers (exact); plan/weight-stream.ts */
  weightsStream?: OptionValue<'weightsStream'>;
  /** ring slots of the weight stream (>= 2; default: the fewest with no group uploaded twice in a chunk) */
  weightsStreamSlots?: number;
  /** where RMS_norm results live: 'full' (default), 'chunked' (in place, normChunk px per dispatch), 'fused' */
  norm?: OptionValue<'norm'>;
  normChunk?: number;
  /** tensor cores for the convs (conv3d-mma) where the device offers subgroup matrices and precision is f16 */
  tensorCores?: boolean;
  /** portable f32 plans: the 3x3 convs direct or as the non-fused Winograd conv ('auto': the form measured fastest per layer shape) */
  conv?: OptionValue<'conv'>;
  /** stops the decode between chunks: it rejects with DecoderError('cancelled'), the decoder stays usable */
  signal?: AbortSignal;
  /**
   * Called with every frame, in order. May return a Promise (backpressure): at most `framesInFlight`
   * frames are handed out and not yet settled; the decode waits for the consumer beyond that, a
   * rejection ends the decode with its error, a cancel ends the wait at once.
   */
  onFrame?: (f: Frame) => unknown;
  /** backpressure window of onFrame: frames handed out and not yet settled (>= 1; default 4, one chunk of Wan frames) */
  framesInFlight?: number;
  /** keep the whole video in `result.video` (default true); false: frames only through onFrame, constant CPU memory */
  collect?: boolean;
  /**
   * fault injection: the N-th GPU buffer allocation of this decode (counted over its re-plans) fails as
   * out-of-memory; 'N+': that one and every later one (nothing fits). Default: the environment variable
   * WAN_VAE_INJECT_OOM where there is one (Node); 0 = none. A decode that reuses the previous decode's
   * buffers (same plan) allocates nothing.
   */
  injectOom?: number | `${number}+`;
  /** fault injection: an out-of-memory error surfaces after frame N has been delivered, as a failed submission would */
  injectOomAfterFrame?: number;
}

// the schema's value lists and the planner's types are one set (a value added to one must reach the other)
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameTypes: [
  Same<OptionValue<'precision'>, Precision>,
  Same<OptionValue<'weightsPrecision'>, WeightsPrecision>,
  Same<OptionValue<'norm'>, NormMode['mode']>,
  Same<OptionValue<'tileMode'>, TileOption['mode']>,
  Same<OptionValue<'tileOrder'>, TileOption['order']>,
  Same<OptionValue<'tileStore'>, NonNullable<TileOption['store']>>,
] = [true, true, true, true, true, true];
void sameTypes;

/** A plan used after a GPU fault: why the previous one failed and what replaced it. */
export interface Replan {
  /** the fault, e.g. the out-of-memory error's message */
  reason: string;
  /** the plan that replaced it (fitPlan's one line) */
  plan: string;
  plannedPeakGpuBytes: number;
}

export interface DecodeResult {
  /** [3, frames, height, width], clamped to [-1, 1]; empty with collect: false */
  video: Float32Array;
  frames: number;
  height: number;
  width: number;
  seconds: number;
  backend: OptionValue<'backend'>;
  adapter: string;
  options: {
    cache: OptionValue<'cache'>;
    precision: Precision;
    norm: NormMode['mode'];
    normChunk: number | null;
    latentStats: string;
    tile: TileOption | null;
    cacheOffload: boolean;
    tensorCores: boolean;
    weightsPrecision: WeightsPrecision;
  };
  /** measured by the arena (GPU only) */
  peakGpuBytes?: number;
  plannedPeakGpuBytes?: number;
  memory?: MemoryBreakdown;
  /** every plan used after a GPU fault, in order (empty: the first plan ran through) */
  replans: Replan[];
  /**
   * GPU only, streamed weights (PlanOptions.weightsStream): this decode's uploads into the ring (runtime/exec/weight-stream.ts):
   * writes, bytes, ms the JS side waited for one of the two upload buffers to be mapped again (the GPU still running
   * the work before it) and ms of the rest (copying the rows, submitting the copy)
   */
  weightStream?: StreamUploads;
  /**
   * GPU only: where building the decoder that ran spent its time, ms, and what its weight preparations did
   * (prep: tensor-core blocked weights, pack: portable conv weights, wino: Winograd U; runtime/gpu-decoder.ts
   * BuildReport; a decoder kept from an earlier decode reports its build)
   */
  startup?: {
    resourcesMs: number;
    pipelinesMs: number;
    prepMs: number;
    /** the first chunk may start (weights prepared; pipelines may still compile) */
    readyMs: number;
    totalMs: number;
    /** submissions of the first decode made while pipelines still compiled */
    overlappedSubmits: number;
    /** the build's timeline against the first decode's submissions (ms from the build's start) */
    events: { ms: number; what: string }[];
    prep: PrepReport & { mode: 'gpu' | 'js' };
    pack: PrepReport;
    wino: PrepReport;
  };
}

/** Streamed weights' uploads into the ring: writes, bytes, ms waiting for an upload buffer, ms of the rest (DecodeResult.weightStream). */
export interface StreamUploads {
  uploads: number;
  uploadedBytes: number;
  waitMs: number;
  copyMs: number;
}

/** What one weight preparation of a decoder's build did: weights prepared on the GPU / in JS, submissions, f32 bytes uploaded, ms until submitted (runtime/exec/weights.ts PrepCounts is this). */
export interface PrepReport {
  gpu: number;
  js: number;
  chunks: number;
  uploadedBytes: number;
  ms: number;
}
