// The decode options, once: per option its name, allowed values, default, CLI flag, one-line help and
// demo label. Everything else is derived from these records: the option types of DecodeOptions /
// WorkerDecodeOptions / DemoOptions, validation with its one-line errors (check.ts: the API, the worker,
// the demo recipe parser), the CLI's flag parsing and --help (src/node/cli-options.ts), and the demo's
// choices, defaults and explanations (src/demo/options.ts). Pure TS, no GPU, importable in the page.
//
// HOW TO ADD AN OPTION (one record; test/options/schema.node.test.ts then checks it on every surface):
//  1. Add a record to OPTIONS below. `key` is the field name of DecodeOptions, the worker protocol and
//     demo recipes; `flag` the CLI flag (null: no flag); `commands` the CLI commands taking it ('plan'
//     = dry run too); `demo` whether the page's options form has it (then give it a row in
//     src/demo/options-form.ts, which generates the form's controls from these records; the page and the
//     schema test fail naming an option with a demo label and no row). Kinds: 'choice' (values; `auto`
//     = CLI/demo also accept 'auto', resolved by fitPlan), 'bool' (CLI on|off), 'int' / 'number' (min,
//     unit), 'custom' (its own check in check.ts `problem`; `syntax` for --help, `examples` it takes).
//  2. Add the field to DecodeOptions (src/options/decode-options.ts) typed `OptionValue<'key'>`, and pass
//     it on where it acts (planner options, GpuDecoder). WorkerDecodeOptions picks it from DecodeOptions.
//  3. The CLI reads it with `cliValue(args, 'key')` (src/node/cli-options.ts) where it builds the decode.

/** --norm-chunk default: 64 Ki pixels (a 480x832 frame in 7 dispatches); plan/graph.ts re-exports it */
export const DEFAULT_NORM_CHUNK = 65536;

interface Base {
  /** CLI flag without the dashes; null: not a CLI option */
  flag: string | null;
  /** CLI commands that take the flag */
  commands: readonly ('decode' | 'plan')[];
  /** one line: what it does and what each value means (CLI --help, the demo's explanation) */
  help: string;
  /** the demo form's label; null: not in the demo form */
  demo: string | null;
  /**
   * true: a field of DecodeOptions (the API, the worker); 'tile.x': field x of DecodeOptions.tile; false:
   * CLI/demo only (the budget goes to fitPlan)
   */
  api: boolean | `tile.${string}`;
}

export interface ChoiceSpec extends Base {
  kind: 'choice';
  /** the values the API takes, in order of preference: 'auto' tries them in this order (auto.ts) */
  values: readonly string[];
  /** CLI and demo also take 'auto' (fitPlan searches the values); the text says in which order */
  auto?: true;
  /** API default (null: depends on another option, `defaultText` says which) */
  default: string | null;
  defaultText?: string;
  /** the CLI's default where it differs from the API's ('auto' where auto is allowed) */
  cliDefault?: string;
  /** the demo's default where it differs from the API's */
  demoDefault?: string;
  /** the demo's values where they differ (e.g. tile grids) */
  demoValues?: readonly string[];
}

export interface BoolSpec extends Base {
  kind: 'bool';
  default: boolean;
}

export interface NumberSpec extends Base {
  kind: 'int' | 'number';
  /** smallest allowed value ('number': exclusive lower bound 0 when min is 0) */
  min: number;
  unit: string;
  default: number | null;
}

export interface CustomSpec extends Base {
  kind: 'custom';
  /** the CLI's value syntax, e.g. 'none|auto|HxW' */
  syntax: string;
  /** values it takes, as the CLI's text (test/options/schema.node.test.ts tries each on every surface) */
  examples: readonly string[];
  default: string | null;
  cliDefault?: string;
  demoDefault?: string;
  demoValues?: readonly string[];
}

export type OptionSpec = ChoiceSpec | BoolSpec | NumberSpec | CustomSpec;

const DECODE = ['decode'] as const;
const BOTH = ['decode', 'plan'] as const;

/** Every decode option, in the order of the CLI synopsis and the demo form. */
export const OPTIONS = {
  backend: {
    kind: 'choice',
    flag: 'backend',
    commands: DECODE,
    api: true,
    demo: 'Backend',
    values: ['webgpu', 'cpu'],
    default: 'webgpu',
    help: 'webgpu: the GPU runtime; cpu: the f32 reference decoder (slow, for checking).',
  },
  cache: {
    kind: 'choice',
    flag: 'cache',
    commands: BOTH,
    api: true,
    demo: 'Cache',
    values: ['on', 'off'],
    default: 'on',
    help: 'on: the exact causal feature cache (1+4(T−1) frames); off: the official per-frame loop without cache (T frames, Wan2.1 only).',
  },
  precision: {
    kind: 'choice',
    flag: 'precision',
    commands: BOTH,
    api: true,
    demo: 'Precision',
    values: ['f32', 'f16'],
    auto: true,
    default: 'f32',
    help: 'Storage of weights, activations and cache on the GPU; f16 halves memory, accumulation stays f32. auto: f32, f16 only when nothing in f32 fits.',
  },
  weightsPrecision: {
    kind: 'choice',
    flag: 'weights-precision',
    commands: BOTH,
    api: true,
    demo: 'Weights',
    values: ['f32', 'f16', 'int8'],
    auto: true,
    default: null,
    defaultText: 'as precision',
    demoDefault: 'auto',
    help: 'Storage of the conv weights: f32, f16 or int8 (per-output-channel scales, dequantised in the conv operand load, on tensor cores too; not exact). auto: f16 then int8 weights only when nothing else fits the budget.',
  },
  latentStats: {
    kind: 'custom',
    flag: 'latent-stats',
    commands: DECODE,
    api: true,
    demo: 'Latent stats',
    syntax: 'official|none|file|FILE.safetensors',
    examples: ['official', 'none', 'file', 'stats.safetensors'],
    default: 'official',
    demoValues: ['official', 'none', 'file'],
    help: "official: latents are normalised (as the diffusion model outputs them) and get ·std+mean (Wan2.1 z=16, Wan2.2 z=48); none: already de-normalised; file: the '@mean'/'@std' stored with the latents (the default when the file has them).",
  },
  rgba: { kind: 'bool', flag: null, commands: [], api: true, demo: null, default: false, help: 'Also produce RGBA8 frames (for display).' },
  tile: {
    kind: 'custom',
    flag: 'tile',
    commands: BOTH,
    api: true,
    demo: 'Tiles',
    syntax: 'none|auto|HxW',
    examples: ['none', 'auto', '3x5'],
    default: 'none',
    cliDefault: 'auto',
    demoValues: ['none', '2x2', '3x3', '4x4', 'auto'],
    help: 'Spatial tiles from up block 0 on (attention stays global; HxW: the tile core in latent pixels; the demo: a grid): less GPU memory, more compute. auto: whole frames when they fit, else the fewest tiles that do.',
  },
  tileMode: {
    kind: 'choice',
    flag: 'tile-mode',
    commands: BOTH,
    api: 'tile.mode',
    demo: 'Tile mode',
    values: ['exact', 'blend'],
    default: 'exact',
    help: 'exact: a 7-latent-pixel halo, output identical to whole frames; blend: a 2-pixel halo with linear blending, faster, not exact.',
  },
  tileOrder: {
    kind: 'choice',
    flag: 'tile-order',
    commands: BOTH,
    api: 'tile.order',
    demo: 'Tile order',
    values: ['tile-major', 'frame-major'],
    auto: true,
    default: 'tile-major',
    cliDefault: 'auto',
    demoValues: ['tile-major', 'frame-major'],
    help: "tile-major: one tile's cache on the GPU at a time, frames appear at the end (CPU memory holds every frame until then); frame-major: every tile's cache stays, frames stream (constant CPU memory). auto: tile-major, else frame-major at the same tiles (e.g. when tile-major's CPU memory exceeds --cpu-budget).",
  },
  tileStore: {
    kind: 'choice',
    flag: 'tile-store',
    commands: BOTH,
    api: 'tile.store',
    demo: 'Tile store',
    values: ['gpu', 'cpu'],
    auto: true,
    default: 'gpu',
    cliDefault: 'auto',
    demoDefault: 'auto',
    help: 'Tile-major only: where the latent-rate output of every frame waits for the tiles. gpu: one GPU buffer; cpu: CPU memory, one chunk uploaded before each tile (fewer GPU bytes, PCIe traffic); auto: gpu, else cpu.',
  },
  cacheOffload: {
    kind: 'choice',
    flag: 'cache-offload',
    commands: BOTH,
    api: true,
    demo: 'Cache offload',
    values: ['off', 'on'],
    auto: true,
    default: 'off',
    cliDefault: 'auto',
    demoDefault: 'auto',
    help: "Frame-major tiles only: on parks the cache rings of the tiles not being decoded in CPU memory (the GPU holds one tile's; twice their bytes cross the bus per chunk), exact; auto: on only when nothing fits without it.",
  },
  norm: {
    kind: 'choice',
    flag: 'norm',
    commands: BOTH,
    api: true,
    demo: 'Norm',
    values: ['full', 'chunked', 'fused'],
    auto: true,
    default: 'full',
    cliDefault: 'auto',
    help: 'Where RMS_norm results live, all exact. full: a separate tensor (as PyTorch); chunked: in place, norm-chunk px per dispatch; fused: the next conv normalises while loading (least memory for whole frames at real sizes, not small tiles); auto: the first that fits (fused first for f16 plans on tensor cores, where it is also the fastest).',
  },
  weightsStream: {
    kind: 'choice',
    flag: 'weights-stream',
    commands: BOTH,
    api: true,
    demo: 'Weight streaming',
    values: ['off', 'on'],
    auto: true,
    default: 'off',
    cliDefault: 'auto',
    demoDefault: 'auto',
    help: 'on: the conv weights stay in CPU memory and stream through a small ring of GPU buffers, a few layers at a time, before the steps that read them (exact; costs bus traffic per chunk). auto: on only when nothing fits the budget without it.',
  },
  weightsStreamSlots: {
    kind: 'int',
    flag: 'weights-stream-slots',
    commands: BOTH,
    api: true,
    demo: null,
    min: 2,
    unit: 'slots',
    default: null,
    help: 'Ring slots of the weight stream (each holds a group of layers): more slots, fewer uploads; default the fewest with which no group is uploaded twice in a chunk (under --budget: the most that fit).',
  },
  normChunk: {
    kind: 'int',
    flag: 'norm-chunk',
    commands: BOTH,
    api: true,
    demo: 'Norm chunk',
    min: 1,
    unit: 'pixels',
    default: DEFAULT_NORM_CHUNK,
    help: 'Pixels per norm dispatch with norm chunked.',
  },
  cpuBudget: {
    kind: 'custom',
    flag: 'cpu-budget',
    commands: BOTH,
    api: false,
    demo: null,
    syntax: 'MiB|auto|none',
    examples: ['512', '0.5', 'auto', 'none'],
    default: null,
    cliDefault: 'auto',
    help: "CPU memory the decoder may keep besides the written video (tile-major's store and its frames waiting for the last tile grow with the video length; parked caches): plans above it are not chosen. auto: half this machine's memory; none: no limit.",
  },
  budget: {
    kind: 'number',
    flag: 'budget',
    commands: BOTH,
    api: false,
    demo: 'Budget',
    min: 0,
    unit: 'MiB',
    default: null,
    help: "GPU memory budget: the planner fits the decode to it and the adapter's limits, choosing the levers on auto (it checks the others as set).",
  },
  tensorCores: {
    kind: 'bool',
    flag: 'tensor-cores',
    commands: BOTH,
    api: true,
    demo: null,
    default: true,
    help: 'Convs on tensor cores (conv3d-mma) where the adapter offers subgroup matrices, with f16 storage and f16 or int8 weights (int8: expanded to f16 per conv before the GEMM; the planner keeps the portable conv where its expected time is less); on by default: Wan2.1 480x832x81 on an H200 decodes in 3.2 s warm against 10.5 s. off: always the portable conv. plan: as the adapter it plans for has them (--adapter).',
  },
  conv: {
    kind: 'choice',
    flag: 'conv',
    commands: BOTH,
    api: true,
    demo: null,
    values: ['auto', 'direct', 'winograd', 'winograd4'],
    default: 'auto',
    help: 'Portable f32 plans: the 3x3 convs as the direct conv or the exact non-fused Winograd F(2x2,3x3) (winograd) / F(4x4,3x3) (winograd4; 2.25x / 4x fewer multiplies, U weights 16/9x / 4x, a banded scratch of <= 128 MiB; every 3x3 conv with >= 16 channels); auto: on frames of >= 60x104 px, F(4x4) for widths that are multiples of 96 (Wan2.1) and the 256/512 channels of Wan2.2, F(2x2) at >= 1024 (2.0-3.4x faster per layer on an H200), where it needs no other memory lever; direct elsewhere. Tensor-core plans: winograd runs F(2x2) on subgroup matrices (3x3 convs with cin and cout multiples of 16; measured slower than the direct tensor-core GEMM on Wan2.1 480p and level on Wan2.2, so auto keeps the direct one); int8 plans stay direct.',
  },
  collect: { kind: 'bool', flag: null, commands: [], api: true, demo: null, default: true, help: 'Keep the whole video in the result; false: frames only through onFrame (constant CPU memory).' },
  framesInFlight: {
    kind: 'int',
    flag: null,
    commands: [],
    api: true,
    demo: null,
    min: 1,
    unit: 'frames',
    default: 4,
    help: 'Backpressure: at most this many frames handed to onFrame and not yet settled (onFrame may return a Promise); the decode waits for the consumer beyond it. Default 4: one chunk of Wan frames.',
  },
  injectOom: {
    kind: 'custom',
    flag: null,
    commands: [],
    api: true,
    demo: null,
    syntax: 'N|N+',
    examples: ['0', '3', '2+'],
    default: null,
    help: 'Fault injection: the N-th GPU buffer allocation of the decode fails as out-of-memory (N+: that and every later one); default WAN_VAE_INJECT_OOM (Node); 0 = none.',
  },
  injectOomAfterFrame: {
    kind: 'int',
    flag: null,
    commands: [],
    api: true,
    demo: null,
    min: 0,
    unit: 'frames',
    default: null,
    help: 'Fault injection: an out-of-memory error surfaces after frame N has been delivered.',
  },
} as const satisfies Record<string, OptionSpec>;

export type OptionKey = keyof typeof OPTIONS;
type Spec<K extends OptionKey> = (typeof OPTIONS)[K];

/** The value a choice option takes in the API (DecodeOptions), e.g. OptionValue<'cache'> = 'on' | 'off'. */
export type OptionValue<K extends OptionKey> = Spec<K> extends { values: readonly (infer V)[] } ? V : never;
/** The same with 'auto' where the CLI and the demo take it (resolved by fitPlan). */
export type OptionOrAuto<K extends OptionKey> = OptionValue<K> | (Spec<K> extends { auto: true } ? 'auto' : never);
/** The demo form's values of an option with demo-only values (tile grids, latent stats 'file'). */
export type DemoValue<K extends OptionKey> = Spec<K> extends { demoValues: readonly (infer V)[] } ? V : OptionOrAuto<K>;

export function spec(key: OptionKey): OptionSpec {
  return OPTIONS[key];
}

export const OPTION_KEYS = Object.keys(OPTIONS) as OptionKey[];

/** The Wan2.2 cache-off refusal, one text for the planner, the decoder and the CPU reference. */
export const WAN22_CACHE_OFF = 'cache off is not possible for Wan2.2: with feat_cache=None its DupUp3D shortcut doubles time while the main path does not, and the official code raises a shape error';
