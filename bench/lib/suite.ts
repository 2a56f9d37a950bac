// Runs the selected scenarios on one device and returns the report (the same code in the page's
// worker and in Node). The device is requested here (shader-f16 and timestamp-query when present) and
// destroyed at the end; the cold-start scenario makes its own fresh device first.
import { requestDecoderDevice } from '../../src/gpu/device';
import { PipelineCache } from '../../src/gpu/kernel';
import { scenarios, select } from '../scenarios';
import { runColdScenario } from './cold';
import { forgetMeasurements, runDecodeScenario, runMatrixScenario } from './decode';
import { describeEnv } from './env';
import { runKernelScenario, type KernelContext } from './kernels';
import { releaseModels } from './models';
import { runOrtScenario } from './ort';
import { describeError, now } from './stats';
import type { Report, Result, Scenario, SuiteConfig } from './types';

export type Log = (line: string) => void;

function summary(r: Result): string {
  if (r.status !== 'ok') return `${r.status.toUpperCase()}: ${r.error ?? ''}`.slice(0, 400);
  const parts: string[] = [];
  if (r.ms) parts.push(`${r.ms.median.toFixed(r.ms.median < 10 ? 3 : 1)} ms (p10 ${r.ms.p10.toFixed(2)}, p90 ${r.ms.p90.toFixed(2)}, n ${r.ms.n}, ${r.timing})`);
  if (r.gflops !== undefined) parts.push(`${r.gflops.toFixed(2)} GFLOP/s`);
  if (r.gbps !== undefined) parts.push(`${r.gbps.toFixed(2)} GB/s`);
  if (r.countedPeakGpuBytes) parts.push(`peak ${(r.countedPeakGpuBytes / 2 ** 20).toFixed(2)} MiB`);
  if (r.quality) parts.push(`max|err| ${r.quality.maxAbs.toExponential(2)} PSNR ${r.quality.psnr.toFixed(1)} dB`);
  return parts.join(', ');
}

async function runOne(s: Scenario, ctx: KernelContext & { gpu: Awaited<ReturnType<typeof requestDecoderDevice>> }, cfg: SuiteConfig, importMs: number): Promise<Result[]> {
  switch (s.group) {
    case 'conv3d':
    case 'rms-norm':
    case 'attention':
      return runKernelScenario(ctx, s as Extract<Scenario, { kernel: string }>);
    case 'decode':
      return runDecodeScenario(ctx.gpu, s as Extract<Scenario, { group: 'decode' }>, cfg.repeats);
    case 'cold':
      return runColdScenario(s as Extract<Scenario, { group: 'cold' }>, importMs);
    case 'matrix':
    case 'tradeoffs':
      return runMatrixScenario(ctx.gpu, s as Extract<Scenario, { group: 'matrix' | 'tradeoffs' }>, cfg.repeats);
    case 'ort':
      return runOrtScenario(ctx.gpu, s as Extract<Scenario, { group: 'ort' }>, cfg.ortDist);
  }
}

/** `importMs`: entry start (worker / process) to this call; `progress` gets the report so far after each scenario. */
export async function runSuite(cfg: SuiteConfig, runtime: 'chromium' | 'node', log: Log, importMs: number, progress?: (r: Report) => void): Promise<Report> {
  const started = new Date();
  const t0 = now();
  const list = select(scenarios(cfg, runtime), cfg.only);
  log(`${list.length} scenarios: ${list.map((s) => s.name).join(', ')}`);
  const results: Result[] = [];
  // cold start first, before this suite's device compiles anything
  for (const s of list.filter((x) => x.group === 'cold')) {
    results.push(...(await runColdScenario(s as Extract<Scenario, { group: 'cold' }>, importMs)));
    log(`${s.name}: ${summary(results[results.length - 1]!)}`);
  }
  const gpu = await requestDecoderDevice({ wantF16: true });
  const env = describeEnv(gpu, cfg, runtime);
  log(`adapter ${env.machine}: ${JSON.stringify(env.adapter)}; device features ${env.deviceFeatures.join(' ')}; timing ${env.timestampNote}`);
  const cpuAdapter = env.adapter.isFallbackAdapter || /llvmpipe|lavapipe|swiftshader/i.test(`${env.adapter.description} ${env.adapter.device} ${env.adapter.architecture}`);
  const ctx = { gpu, device: gpu.device, cache: new PipelineCache(gpu.device), f16: gpu.f16, cpuAdapter, runs: cfg.runs, mma: gpu.mma ?? null };
  for (const s of list.filter((x) => x.group !== 'cold')) {
    const ts = now();
    let rows: Result[];
    try {
      rows = await runOne(s, ctx, cfg, importMs);
    } catch (e) {
      rows = [{ name: s.name, group: s.group, status: 'failed', error: describeError(e), params: {}, key: s.name }];
    }
    for (const r of rows) {
      r.extra = { ...r.extra, runtime, machine: env.machine };
      results.push(r);
      log(`${r.name}: ${summary(r)}`);
    }
    log(`  (${s.name}: ${((now() - ts) / 1000).toFixed(1)} s)`);
    progress?.(report(cfg, env, started, t0, results));
  }
  releaseModels();
  forgetMeasurements();
  gpu.device.destroy();
  for (const r of results) r.extra = { ...r.extra, runtime, machine: env.machine, commit: cfg.commit, adapter: env.adapter.description || env.adapter.device };
  return report(cfg, env, started, t0, results);
}

function report(cfg: SuiteConfig, env: Report['env'], started: Date, t0: number, results: Result[]): Report {
  return { schema: 1, suite: 'wan-vae-webgpu', quick: cfg.quick, tag: cfg.tag, args: cfg.args, startedAt: started.toISOString(), seconds: (now() - t0) / 1000, env, results: [...results] };
}
