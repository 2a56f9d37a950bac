// Node entry of the benchmark (WebGPU through Dawn, npm `webgpu`): the same scenarios as the page, same
// arguments (bench/lib/args.ts). `npm run build:cli` bundles it to dist/bench-node.js, which imports only
// `webgpu` and node builtins (onnxruntime-web is loaded at run time from --ort-dist or node_modules):
//   node dist/bench-node.js --quick
//   node dist/bench-node.js --dawn-flags enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia --out "$OUT"
// For a bare GPU machine, bench/vite.node.config.ts makes ONE file, out/bench/bench-node.mjs, with
// onnxruntime-web's runtime in out/bench/ort/ (found there by default).
// Writes <out>/<machine>-<date>[-quick].{json,md,svg} and compares with bench/baselines/<machine>.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installNodeWebGPU } from '../src/node/install-webgpu';
import { parseArgs } from './lib/args';
import { runSuite } from './lib/suite';
import { setModelReader } from './lib/models';
import type { Report } from './lib/types';
import { json, reportStem, writeReport } from './report/write';

const startedMs = performance.now();

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function commit(): string {
  const head = git(['rev-parse', '--short=12', 'HEAD']);
  if (!head) return process.env.BENCH_COMMIT ?? 'unknown (no git)';
  return git(['status', '--porcelain', '--untracked-files=no'])?.length ? `${head}-dirty` : head;
}

function dawnVersion(): string {
  try {
    const main = createRequire(import.meta.url).resolve('webgpu');
    for (let d = dirname(main); d !== dirname(d); d = dirname(d)) {
      const p = join(d, 'package.json');
      if (existsSync(p)) {
        const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'webgpu') return `npm webgpu@${pkg.version} (Dawn), node ${process.version}`;
      }
    }
  } catch {
    // fall through
  }
  return `npm webgpu (Dawn, version unknown), node ${process.version}`;
}

/** --ort-dist, else ort/ beside this file (out/bench/ort from bench/vite.node.config.ts), else node_modules. */
function ortDist(arg: string | undefined): string | undefined {
  if (arg) return resolve(arg);
  const beside = join(dirname(fileURLToPath(import.meta.url)), 'ort');
  return existsSync(join(beside, 'ort.webgpu.min.mjs')) ? beside : undefined;
}

async function main(argv: string[]): Promise<number> {
  const a = parseArgs(argv);
  const load0 = loadavg()[0]!;
  const flags = [...a.dawnFlags];
  // before onnxruntime's wasm is compiled (it loads lazily in the ort scenarios)
  if (a.wasmLiftoff ?? a.quick) {
    setFlagsFromString('--liftoff-only');
    flags.push('v8:--liftoff-only (onnxruntime wasm unoptimized)');
  }
  await installNodeWebGPU(a.dawnFlags);
  // the trained model's tradeoffs rows read models/ (weights, sample latents, source clip) from the working directory
  setModelReader(async (rel) => new Uint8Array(readFileSync(resolve('models', rel))));
  const log = (line: string) => console.log(`[bench] ${line}`);
  const outDir = resolve(a.out ?? join('bench', 'results'));
  let partial: string | null = null;
  // the report so far after each scenario: a run killed by a time limit still leaves its rows
  const progress = (r: Report) => {
    mkdirSync(outDir, { recursive: true });
    partial = join(outDir, `${reportStem(r)}.partial.json`);
    writeFileSync(partial, json(r));
  };
  const rep = await runSuite(
    {
      quick: a.quick,
      only: a.only,
      tag: a.tag,
      runs: a.runs,
      repeats: a.repeats,
      frames: a.frames,
      commit: a.commit ?? commit(),
      machine: a.machine,
      flags,
      args: a.raw,
      ortDist: ortDist(a.ortDist),
      ortLayouts: a.ortLayouts,
      engine: dawnVersion(),
    },
    'node',
    log,
    startedMs,
    progress,
  );
  rep.env.hostLoad = [load0, loadavg()[0]!];
  const baseline = a.noBaseline ? null : resolve(a.baseline ?? join('bench', 'baselines', `${rep.env.machine}.json`));
  const w = writeReport(rep, { outDir, baseline, updateBaseline: a.updateBaseline });
  if (partial) rmSync(partial, { force: true });
  log(`wrote ${w.json}, ${w.md}${w.svg ? `, ${w.svg}` : ''}${w.baselineWritten ? `; baseline ${w.baselineWritten}` : ''}`);
  if (w.comparison) {
    log(`baseline ${w.comparison.baseline}: ${w.comparison.compared} rows compared, ${w.comparison.regressions.length} regressions > 10%`);
    for (const d of w.comparison.regressions) log(`REGRESSION ${d.name} ${d.metric}: ${d.base.toFixed(3)} -> ${d.current.toFixed(3)} (+${((d.ratio - 1) * 100).toFixed(1)}%)`);
  }
  const failed = rep.results.filter((r) => r.status === 'failed');
  log(`${rep.results.length} rows, ${failed.length} failed, ${rep.seconds.toFixed(1)} s`);
  return 0;
}

// --profile: the per-layer GPU profile of one decode instead of the suite (bench/profile.ts)
const argv = process.argv.slice(2);
// --timing: cold + warm decodes with the cold one's phase split (bench/decode-timing.ts)
(argv[0] === '--profile' ? import('./profile').then((m) => m.profileMain(argv)) : argv[0] === '--timing' ? import('./decode-timing').then((m) => m.timingMain(argv)) : main(argv)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
