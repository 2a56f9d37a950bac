// Shapes of a benchmark report (JSON written by run.mjs / node-entry.ts) and of the scenario data in
// bench/scenarios.ts. Pure types: shared by the worker, Node and the host-side report code.
import type { OnnxLayout } from '../onnx/build-decoder';

export type Elem = 'f32' | 'f16';
export type Group = 'conv3d' | 'rms-norm' | 'attention' | 'decode' | 'matrix' | 'tradeoffs' | 'cold' | 'ort';

/** Generated weights with the official architecture (src/model/synthetic.ts). */
export interface ModelSpec {
  version: '2.1' | '2.2';
  dim: number;
  zDim: number;
  seed: number;
  /** the trained default model (models/, Wan2.1 dim 32) with this sample's latents instead of generated ones */
  sample?: string;
}

/** Decode options as data: every switch of WanVaeDecoder.decode (new switches: new keys). */
export type Switches = Record<string, string | number | boolean | undefined>;

interface Base {
  /** unique, `<group>/<label>`; `--only` matches the group or a name prefix */
  name: string;
  group: Group;
  note?: string;
}

export interface KernelScenario extends Base {
  group: 'conv3d' | 'rms-norm' | 'attention';
  kernel: 'conv3d' | 'conv3dMma' | 'conv3dCandidates' | 'rmsNorm' | 'attention';
  /** kernel params (offsets are filled in by the runner) */
  shape: Record<string, number>;
  overrides?: Record<string, number>;
  elems: Elem[];
  runs: number;
  warmup: number;
}

export interface DecodeScenario extends Base {
  group: 'decode' | 'cold';
  model: ModelSpec;
  /** latent [T, h, w] */
  latent: [number, number, number];
  options: Switches;
  /** warm decodes after the cold one */
  repeats: number;
  /** also decode with the CPU reference and report max |err| (small sizes only) */
  checkCpu?: boolean;
  /** also time one decode under PassProbe: GPU busy time (default true; needs timestamp-query) */
  probe?: boolean;
}

export interface MatrixScenario extends Base {
  group: 'matrix' | 'tradeoffs';
  model: ModelSpec;
  latent: [number, number, number];
  /** every combination of these values is run; the first value of each is the exact reference */
  switches: Record<string, (string | number | boolean | undefined)[]>;
  /** 'all' (default): every combination; 'one': the reference, then each other value of one switch at a time (the trade-off table) */
  vary?: 'all' | 'one';
  repeats: number;
  probe?: boolean;
}

export interface OrtScenario extends Base {
  group: 'ort';
  model: ModelSpec;
  latent: [number, number, number];
  layouts: OnnxLayout[];
  /** onnxruntime decodes per layout (the first includes session creation and shader compiles) */
  repeats: number;
  probe?: boolean;
}

export type Scenario = KernelScenario | DecodeScenario | MatrixScenario | OrtScenario;

/** Median and spread of repeated measurements, in milliseconds. */
export interface Spread {
  n: number;
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
}

export type TimingSource = 'timestamp-query' | 'wall-onSubmittedWorkDone' | 'wall-decode' | 'wall';

export interface Quality {
  /** what the output was compared with */
  against: string;
  maxAbs: number;
  psnr: number;
  /** SSIM against the same reference (luma, src/model/quality.ts); trained-model rows */
  ssim?: number;
  /** trained model: PSNR / SSIM against the sample's source clip (the original video) */
  psnrVsSource?: number;
  ssimVsSource?: number;
}

export interface Result {
  name: string;
  group: Group;
  status: 'ok' | 'failed' | 'skipped';
  /** failure or skip text (onnxruntime's or ours, verbatim) */
  error?: string;
  /** what was run: shape, model, options */
  params: Record<string, unknown>;
  timing?: TimingSource;
  ms?: Spread;
  /** further named timings (ms), each labelled by its own source in `timings` */
  extra?: Record<string, number | Spread | string | undefined>;
  gflops?: number;
  gbps?: number;
  peakGpuBytes?: number;
  plannedPeakGpuBytes?: number;
  /** bytes counted by wrapping createBuffer/destroy (same method as for onnxruntime) */
  countedPeakGpuBytes?: number;
  quality?: Quality;
  /** key of the baseline comparison: same name and same params */
  key: string;
}

export interface BenchEnv {
  runtime: 'chromium' | 'node';
  /** Chromium version or `webgpu@x (Dawn)` in Node */
  engine: string;
  userAgent: string;
  adapter: { vendor: string; architecture: string; device: string; description: string; isFallbackAdapter: boolean; subgroupMinSize?: number; subgroupMaxSize?: number };
  adapterFeatures: string[];
  /** features enabled on the device the benchmark used */
  deviceFeatures: string[];
  limits: Record<string, number>;
  timestampQuery: boolean;
  /** Chromium quantizes timestamps to 100 µs unless WebGPU developer features are on */
  timestampNote: string;
  flags: string[];
  commit: string;
  machine: string;
  /** 1-minute load average of the host at start and end (a loaded CPU machine slows CPU adapters) */
  hostLoad?: number[];
}

export interface Report {
  schema: 1;
  suite: 'wan-vae-webgpu';
  quick: boolean;
  /** part of the file name: the --only selection (or --tag), so split runs do not overwrite each other */
  tag?: string;
  args: string[];
  startedAt: string;
  seconds: number;
  env: BenchEnv;
  results: Result[];
}

/** What the host passes to the suite (worker or Node). */
export interface SuiteConfig {
  quick: boolean;
  only: string[];
  tag?: string;
  /** override of kernel runs / decode repeats */
  runs?: number;
  repeats?: number;
  /** latent frames T for GPU decode / matrix scenarios (e.g. 21 = 81 video frames) */
  frames?: number;
  commit: string;
  machine?: string;
  flags: string[];
  args: string[];
  /** Node: folder with ort.webgpu.min.mjs and its wasm */
  ortDist?: string;
  /** override of the onnxruntime graph layouts of the ort scenarios */
  ortLayouts?: string[];
  engine?: string;
}
