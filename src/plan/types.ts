// The plan's types: the options a plan is made from and the Plan the planner (planner.ts) returns, with
// its memory, host and bus accounting. A module of its own so that the planner's helpers (weight-stream.ts,
// expected-time.ts, auto.ts) name them without importing the planner. Pure TS.
import type { DecoderConfig } from '../model/config';
import type { WeightsPrecision } from '../model/quantize';
import type { OptionValue } from '../options/schema';
import type { ConvOption, WinoUOption } from './conv-form';
import type { ChunkKind, NormMode, Program } from './graph';
import type { Tile } from './tiling';

export type Precision = OptionValue<'precision'>;

export interface TileOption {
  /** tile core in latent pixels */
  th: number;
  tw: number;
  mode: OptionValue<'tileMode'>;
  order: OptionValue<'tileOrder'>;
  /** halo in latent pixels (default 7 exact, 2 blend) */
  halo?: number;
  /**
   * tile-major only: where the latent-rate output of every latent frame waits for the tiles. 'gpu'
   * (default): a GPU buffer of all frames; 'cpu': read back per chunk into host memory and uploaded into
   * a one-frame GPU window before each tile's run of that chunk (GPU bytes of one frame, PCIe traffic
   * of one frame per tile and chunk).
   */
  store?: OptionValue<'tileStore'>;
  /**
   * fitPlan's search only (tile-major): plan one tile per distinct shape. Every GPU memory figure and
   * limit equals the full plan's (test/levers/fit-grids.node.test.ts); tiles, bus and host figures do
   * not, and such a plan is never run.
   */
  probe?: boolean;
  /**
   * exact tiles: crop each up block's input to the context that level still needs (tile-windows.ts:
   * the same output, less compute and smaller tile rings). Default true; false = the tile's ext at
   * every level (the plans before 2026-12-01, c4e0032, for comparisons); number[]: the margins per level
   * (tests: a margin one short must change the output)
   */
  shrink?: boolean | number[];
}

export interface PlanOptions {
  /** latent frames T */
  frames: number;
  /** latent size */
  h: number;
  w: number;
  /** causal feature cache: 'on' exact, 'off' = official feat_cache=None loop (Wan2.1 only) */
  cache: 'on' | 'off';
  /** storage precision of weights, activations and cache (accumulation is f32) */
  precision: Precision;
  /**
   * storage of the conv weights (default: = precision): 'int8' (per-output-channel scales) or 'f16' beside
   * f32 storage are packed and dequantised in the portable conv's operand load (conv3d-wq; biases and
   * gammas stay in `precision`); 'f32' needs f32 storage
   */
  weightsPrecision?: WeightsPrecision;
  /** read back RGBA8 frames too (for display) */
  rgba?: boolean;
  /** spatial tiling; undefined = whole frames */
  tile?: TileOption;
  /** where RMS_norm results live (graph.ts NormMode); default 'full' */
  norm?: NormMode['mode'];
  /** pixels per norm dispatch with norm 'chunked' (default DEFAULT_NORM_CHUNK) */
  normChunk?: number;
  /** f16 only: the convs run on tensor cores (conv3d-mma), whose operand copy the plan counts (activations) */
  tensorCores?: boolean;
  /** f32 portable plans: the 3x3 convs' form (conv-form.ts convFormFor; default 'direct': the API and CLI pass the option's default, 'auto'); others stay direct */
  conv?: ConvOption;
  /**
   * tensor-core plans with f16 weights: the upsample Conv2ds as four output phases (conv-form.ts upPhases). Default true
   * (H100, 2026-12-07: these convs 222 -> 134 ms of GPU time in a Wan2.1 480x832x81 decode, 65.74 dB against the official
   * fp32 decode as before; docs/performance.md "The upsample Conv2d as four output phases"); false runs the upsampled
   * 3x3 GEMM, as int8 weights always do
   */
  upPhases?: boolean;
  /** where the Winograd convs' U lives (conv-form.ts assignWinoU): 'auto' (default), 'held' (made at upload) or 'call' (made per conv call) */
  winoU?: WinoUOption;
  /** conv weights stay in CPU memory and stream through a ring of GPU buffers (weight-stream.ts); exact */
  weightsStream?: boolean;
  /** ring slots of the weight stream (>= 2); default: the fewest with which no program run uploads a group twice */
  weightsStreamSlots?: number;
  /**
   * frame-major tiling only: the causal cache rings of the tiles not being decoded are parked in CPU
   * memory (read back after each tile's run of a chunk, uploaded before its next run), so the GPU holds
   * the rings of one tile (plus a readback buffer of them) instead of every tile's (cache-park.ts)
   */
  cacheOffload?: boolean;
}

export interface Slot {
  index: number;
  bytes: number;
}

/** Where a step's step-local scratch lives: a range of an activation slot from byte `offset` (a multiple of 256). */
export interface ScratchPlace {
  slot: number;
  offset: number;
}

export interface ProgramPlan {
  prog: Program;
  /** slot index of each tensor id (-1 for io tensors) */
  slotOf: Int32Array;
  /** the step-local scratch of each step (step-kinds.ts stepScratchBytes: a per-call Winograd U) by step index: its slot and byte offset there; absent: none */
  scratchOf?: (ScratchPlace | undefined)[];
}

export type MemoryBreakdown = {
  weights: number;
  cache: number;
  activations: number;
  /** tile-major tiling: the latent-rate output of every latent frame */
  store: number;
  io: number;
  staging: number;
  uniforms: number;
  total: number;
};

/**
 * CPU (host) memory the decoder itself keeps during a decode, by owner, bytes (the caller's copy of the
 * video, DecodeOptions.collect, is not counted). Tile-major's grows with the video length.
 */
export type HostBreakdown = {
  /** tile-major 'cpu' store: every latent frame's store entries (grows with the number of latent frames) */
  store: number;
  /** cache offload: every tile's parked cache rings (constant in the video length) */
  cache: number;
  /** weight streaming: the packed conv weights (plan/weight-stream.ts) */
  weights: number;
  /**
   * frames being assembled (rgb f32, + rgba, + blend weights): tile-major order completes every frame
   * with its last tile, so it holds ALL frames (grows with the video length); other orders one chunk's
   */
  frames: number;
  total: number;
};

/** Bytes a decode moves between CPU and GPU memory, by cause, over the whole decode. */
export type BusTraffic = {
  /** tile-major 'cpu' store: each chunk's entries read back once and uploaded before every tile's run */
  store: number;
  /** cache offload: each tile's rings read back after its run of a chunk and uploaded before the next */
  cache: number;
  /** weight streaming: the conv weight groups written into the ring (plan/weight-stream.ts replay) */
  weights: number;
  /** the decoded frames (rgb f32, + rgba) read back */
  frames: number;
  total: number;
  /** total / output frames */
  perFrame: number;
};

/**
 * A tile's parked rings (cache offload): where each ring's bytes sit in host memory (`offset`) and, in
 * readback batch `batch`, in the readback buffer (`stagingOffset`). The readback buffer holds the largest
 * ring; consecutive rings share a batch while they fit (one map per batch).
 */
export interface ParkedTile {
  tile: number;
  rings: { key: string; buffer: string; bytes: number; offset: number; batch: number; stagingOffset: number }[];
  bytes: number;
  batches: number;
}

export interface RingPlan {
  key: string;
  label: string;
  /** elements of one frame (largest tile) */
  frameElems: number;
  bytes: number;
  /** the GPU buffer holding it: = key, or (cache offload) one buffer shared by the same ring of every tile */
  buffer: string;
  /** frame-major tile rings: the tile index (null: the latent-rate part, or untiled / tile-major) */
  tile: number | null;
}

export interface Plan {
  cfg: DecoderConfig;
  opts: PlanOptions & { rgba: boolean; norm: NormMode['mode']; normChunk: number };
  elemBytes: number;
  /** programs by chunk kind, in execution order within a chunk (latent, then tiles) */
  programs: Partial<Record<ChunkKind, ProgramPlan[]>>;
  tiles: Tile[] | null;
  slots: Slot[];
  rings: RingPlan[];
  /** ring keys of the tile programs (zeroed at every tile start in tile-major order) */
  tileRingKeys: string[];
  /** store entry size in elements and entries per chunk (tile-major) */
  storeFrameElems: number;
  storePerChunk: number;
  /** 'cpu': the store lives in host memory (hostStoreBytes) and the GPU holds one chunk's entries */
  storeWhere: 'gpu' | 'cpu' | null;
  hostStoreBytes: number;
  /** CPU memory the plan keeps (the tile store, parked caches), by owner */
  host: HostBreakdown;
  /** bytes moved between CPU and GPU over the decode */
  bus: BusTraffic;
  /** cache offload: each tile's parked rings (null without it) */
  park: ParkedTile[] | null;
  /** cache offload: bytes of the rings' readback buffer (the largest tile's rings) */
  parkStagingBytes: number;
  outFrameElems: number;
  framesOut: number;
  height: number;
  width: number;
  /** largest rgb / rgba element counts any program writes */
  outElems: number;
  outRgbaElems: number;
  uniformStride: number;
  /** uniform slots of the longest program: one per step, one per chunk of a chunked norm */
  maxDispatches: number;
  memory: MemoryBreakdown;
  /** largest single buffer (maxBufferSize) */
  largestBuffer: number;
  /** largest range bound to a shader (maxStorageBufferBindingSize): the store is bound one entry at a time */
  largestBinding: number;
  /** bytes of one store entry, padded to the 256-byte storage offset alignment */
  storeEntryBytes: number;
  /** conv work of the tiled part over the untiled frame's (1 untiled; tile-windows.ts tiledOverhead) */
  tileOverhead: number;
  /** weightsStream: the ring, its groups and the bus bytes of a decode (memory.weights counts the ring) */
  weightStream: WeightStreamPlan | null;
}

export interface StreamEntry {
  key: string;
  group: number;
  /** byte offset inside the group (= inside its ring slot) */
  offset: number;
  bytes: number;
}

export interface WeightStreamPlan {
  /** GPU ring slots; group g lives in slot g mod slots, each slot as large as its largest group */
  slots: number;
  slotBytes: number[];
  /** bytes of each group (its entries, aligned) */
  groups: number[];
  /** every streamed conv weight, by key */
  entries: Map<string, StreamEntry>;
  /** host (CPU) bytes of the streamed weights: all of them, packed as the GPU reads them */
  hostBytes: number;
  /** GPU bytes the streamed weights would take resident (one buffer each) */
  residentBytes: number;
  /** bytes uploaded during one decode (the replay below) and per latent chunk (that / T) */
  busBytes: number;
  busBytesPerChunk: number;
  /** uploads during one decode (one writeBuffer of a group each) */
  uploads: number;
  /** the fewest slots with which no program run uploads a group twice (the default) */
  slotsNoRepeat: number;
}
