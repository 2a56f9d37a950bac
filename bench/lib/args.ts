// Command line of the benchmark, shared by bench/run.mjs (host), bench/node-entry.ts and the page:
//   --quick                 CPU-sized scenarios, fewer runs (< 2 minutes on a CPU adapter)
//   --only a,b              groups (cold, conv3d, rms-norm, attention, kernels, decode, matrix, ort) or name prefixes
//   --runs N / --repeats N  kernel runs / warm decodes per scenario (override the scenario data)
//   --frames T              latent frames of the full-size decode / matrix scenarios (21 = 81 video frames)
//   --tag NAME              file name part (default: the --only selection)
//   --machine NAME          label of the machine (results file name and baseline; default from the adapter)
//   --out DIR               where results go (default bench/results)
//   --baseline FILE | --no-baseline | --update-baseline
//   --dawn-flags a,b        Node: Dawn toggles, e.g. enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
//   --ort-dist DIR          Node: folder with onnxruntime-web's ort.webgpu.min.mjs + ort-wasm-simd-threaded.asyncify.{mjs,wasm}
//   --ort-layouts a,b       onnxruntime graph layouts (conv3d = as torch.onnx.export gives, frames = Conv2d per frame)
//   --report A.json[,B.json] run.mjs only: no run; rewrite the .md/.svg of a report (e.g. from the GPU machine),
//                           several (split --only runs) merged into one, and compare with the baseline
//   --serve                 run.mjs only: just serve bench/index.html on 127.0.0.1 (open it in a browser with a GPU)
//   --commit SHA            when git is not available where the benchmark runs
//   --wasm-liftoff | --no-wasm-liftoff   Node: V8 --liftoff-only (default with --quick): V8's optimizing
//                           compile of onnxruntime's 26 MB wasm otherwise costs ~80 s of CPU on a 2-core machine
export interface BenchArgs {
  quick: boolean;
  only: string[];
  runs?: number;
  repeats?: number;
  frames?: number;
  machine?: string;
  tag?: string;
  out?: string;
  baseline?: string;
  noBaseline: boolean;
  updateBaseline: boolean;
  dawnFlags: string[];
  ortDist?: string;
  ortLayouts?: string[];
  commit?: string;
  /** Node: V8 --liftoff-only before onnxruntime loads (undefined: on with --quick) */
  wasmLiftoff?: boolean;
  /** host only (run.mjs) */
  node: boolean;
  serve: boolean;
  bundle?: string;
  report?: string;
  raw: string[];
}

const FLAGS = new Set(['serve', 'quick', 'no-baseline', 'update-baseline', 'node', 'wasm-liftoff', 'no-wasm-liftoff']);
const VALUES = new Set(['tag', 'report', 'ort-layouts', 'only', 'runs', 'repeats', 'frames', 'machine', 'out', 'baseline', 'dawn-flags', 'ort-dist', 'commit', 'bundle']);

function positive(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} wants a positive integer, got '${v}'`);
  return n;
}

/** Dawn toggles: `a=x,y,b=z` is two flags (a piece without '=' continues the previous flag's list). */
export function dawnFlags(v: string): string[] {
  const out: string[] = [];
  for (const piece of v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (!piece.includes('=') && out.length) out[out.length - 1] += `,${piece}`;
    else out.push(piece);
  }
  return out;
}

export function parseArgs(argv: string[]): BenchArgs {
  const a: BenchArgs = { quick: false, only: [], noBaseline: false, updateBaseline: false, dawnFlags: [], node: false, serve: false, raw: [...argv] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [k, inline] = arg.startsWith('--') ? (arg.slice(2).split(/=(.*)/s) as [string, string | undefined]) : ['', undefined];
    if (FLAGS.has(k)) {
      if (k === 'quick') a.quick = true;
      else if (k === 'no-baseline') a.noBaseline = true;
      else if (k === 'update-baseline') a.updateBaseline = true;
      else if (k === 'wasm-liftoff' || k === 'no-wasm-liftoff') a.wasmLiftoff = k === 'wasm-liftoff';
      else if (k === 'serve') a.serve = true;
      else a.node = true;
      continue;
    }
    if (!VALUES.has(k)) throw new Error(`unknown argument '${arg}' (see the header of bench/lib/args.ts)`);
    const v = inline ?? argv[++i];
    if (v === undefined) throw new Error(`--${k} needs a value`);
    const list = v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    if (k === 'only') a.only.push(...list);
    else if (k === 'runs' || k === 'repeats' || k === 'frames') a[k] = positive(k, v);
    else if (k === 'dawn-flags') a.dawnFlags.push(...dawnFlags(v));
    else if (k === 'ort-dist') a.ortDist = v;
    else if (k === 'ort-layouts') a.ortLayouts = list;
    else if (k === 'machine' || k === 'out' || k === 'baseline' || k === 'commit' || k === 'bundle' || k === 'report' || k === 'tag') a[k] = v;
  }
  a.tag ??= a.only.length ? a.only.join('+').replace(/[^A-Za-z0-9.+-]+/g, '-') : undefined;
  return a;
}
