// Probe (issue 11): where the cold start of a decode goes, on any adapter. For one plan (the CLI's
// Wan2.1 480x832x81 f32 portable plan by default) with the kernel choices of a GPU adapter (tuning
// 'gpu', maxInvocations as the H200's 1024; --tuning cpu for this adapter's own), it times the
// device-independent CPU parts and counts what the decoder builds:
//   planMs          plan() of the options (the decoder plans again inside its timed decode)
//   steps/pipelines every step's kernels, the distinct pipelines (PipelineCache keys) and shader modules
//   wgslKiB         the WGSL text of the distinct modules (conv3d-tiled generates one per tile shape)
//   packMs          packWeight of every weight buffer (JS: conv3d's cout-padded layout + storage bytes)
//   compileMs       createShaderModule + createComputePipelineAsync of every distinct pipeline on THIS
//                   adapter, all requested at once (as StepEncoder.build does), and each one alone
//                   (Dawn reuses what it compiled already: ~0 ms), and behind 1 s of busy JS (overlap or not)
// Run (RAW-LOADER: an ESM loader hook serving '*.wgsl?raw' as a string module, as vite does):
//   node --import tsx --experimental-loader RAW-LOADER bench/probes/startup-time.ts [2.1|2.2] [TxHxW] [f32|f16] [--tc] [--tuning cpu] [--conv auto|direct|...]
import { PipelineCache, pipelineKey, shaderSource, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { requestDecoderDevice } from '../../src/gpu/device';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { plan } from '../../src/plan/planner';
import { weightBuffers } from '../../src/plan/step-kinds';
import { stepKernels, type BindCtx } from '../../src/runtime/exec/step-kernels';
import { packWeight } from '../../src/runtime/exec/weights';
import { installNodeWebGPU } from '../../src/node/install-webgpu';

const args = process.argv.slice(2);
const pos = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--tuning' && args[i - 1] !== '--conv');
const v = (pos[0] ?? '2.1') as '2.1' | '2.2';
const [T, h, w] = (pos[1] ?? '21x60x104').split('x').map(Number) as [number, number, number];
const elem = (pos[2] ?? 'f32') as Elem;
const tc = args.includes('--tc');
const tuningName = (args[args.indexOf('--tuning') + 1] ?? 'gpu') as keyof typeof conv3dTuning;
const tuning = args.includes('--tuning') ? { ...conv3dTuning[tuningName] } : { ...conv3dTuning.gpu };

await installNodeWebGPU([]);
const { device, info } = await requestDecoderDevice({ wantF16: elem === 'f16' });
const weights = syntheticWeights({ ...OFFICIAL[v], seed: 1 });
const cfg = inferConfig(weights);
const tp = performance.now();
// --conv as the CLI's (default auto: the Winograd forms of the default plan)
const conv = (args.includes('--conv') ? args[args.indexOf('--conv') + 1] : 'auto') as 'auto' | 'direct' | 'winograd' | 'winograd4';
const p = plan(cfg, { frames: T, h, w, cache: 'on', precision: elem, tensorCores: tc, conv });
const planMs = performance.now() - tp;
const steps = Object.values(p.programs)
  .flat()
  .flatMap((pp) => pp.prog.steps);
// a binding context whose buffers are placeholders: only the kernel choices are asked for
const fake = {} as GPUBuffer;
const ctx: BindCtx = {
  elem,
  weightsPrecision: p.opts.weightsPrecision,
  cfg,
  tuning,
  maxInvocations: args.includes('--tuning') ? device.limits.maxComputeInvocationsPerWorkgroup : 1024,
  mma: tc ? { subgroupSize: 32, emulate: true } : null,
  view: () => fake,
  weight: () => fake,
  ring: () => fake,
  dummy: fake,
  out: fake,
  rgba: fake,
  mmaScratch: fake,
  winoScratch: fake,
  winoU: () => ({ buffer: fake }),
  wqScratch: fake,
  storeEntry: () => ({ buffer: fake }),
  inPlace: () => false,
};
const pipes = new Map<string, { def: AnyKernelDef; overrides: Record<string, number>; uses: number; label: string }>();
let kernelsUsed = 0;
for (const s of steps)
  for (const k of stepKernels(s, ctx)) {
    kernelsUsed++;
    const key = pipelineKey(k.def, k.overrides, elem);
    const e = pipes.get(key);
    if (e) e.uses++;
    else pipes.set(key, { def: k.def, overrides: k.overrides, uses: 1, label: s.label });
  }
const modules = new Map<string, number>();
const tg = performance.now();
for (const { def } of pipes.values()) modules.set(`${def.id}|${elem}`, shaderSource(def, elem).length);
const wgslMs = performance.now() - tg;
const tpk = performance.now();
let packedBytes = 0;
for (const wu of weightBuffers(steps)) packedBytes += packWeight(wu, weights, elem, tc, p.opts.weightsPrecision).byteLength;
const packMs = performance.now() - tpk;

// compile on this adapter: all at once (as the decoder), then each alone on a fresh cache
const all = new PipelineCache(device);
const tc0 = performance.now();
await Promise.all([...pipes.values()].map((x) => all.get(x.def, x.overrides, elem)));
const compileMs = performance.now() - tc0;
const each: { key: string; ms: number; uses: number; label: string; wgslKiB: number }[] = [];
for (const [key, x] of pipes) {
  const one = new PipelineCache(device);
  const t0 = performance.now();
  await one.get(x.def, x.overrides, elem);
  each.push({ key, ms: Math.round(performance.now() - t0), uses: x.uses, label: x.label, wgslKiB: Math.round(shaderSource(x.def, elem).length / 102.4) / 10 });
}
each.sort((a, b) => b.ms - a.ms);
// do the compiles overlap JS work? every pipeline requested on a fresh cache, then 1 s of busy JS, then awaited:
// total ~ 1 s + compileMs when Dawn compiles them on this thread, ~ max(1 s, compileMs) when on its workers.
// lavapipe, 2026-12-01: 1471 ms = 1000 + 471, with PipelineCache awaiting each module's compilation info
// before asking for its pipeline (the busy JS held every request back); since PipelineCache asks at once
// (2026-12-02, this 2-core machine under load): compileMs 4349, behind 1 s of JS 3636 ms: Dawn's workers.
// (on a second device: Dawn reuses the pipelines the first one compiled)
const other = (await requestDecoderDevice({ wantF16: elem === 'f16' })).device;
const busyCache = new PipelineCache(other);
const tb = performance.now();
const pending = [...pipes.values()].map((x) => busyCache.get(x.def, x.overrides, elem));
for (let t = performance.now(); performance.now() - t < 1000;);
await Promise.all(pending);
const busyTotalMs = Math.round(performance.now() - tb);
console.log(
  JSON.stringify({
    model: v,
    latent: [T, h, w],
    elem,
    tensorCores: tc,
    tuning: args.includes('--tuning') ? tuningName : 'gpu (H200 choices)',
    conv,
    plan: `${p.memory.total} B`,
    planMs: Math.round(planMs),
    steps: steps.length,
    kernelsUsed,
    pipelines: pipes.size,
    modules: modules.size,
    wgslKiB: Math.round([...modules.values()].reduce((a, b) => a + b, 0) / 1024),
    wgslMs: Math.round(wgslMs),
    weightBuffers: weightBuffers(steps).length,
    packedMiB: Math.round(packedBytes / 2 ** 20),
    packMs: Math.round(packMs),
    compileMs: Math.round(compileMs),
    compileSerialMs: each.reduce((a, b) => a + b.ms, 0),
    compileBehind1sOfJsMs: busyTotalMs,
    adapter: info.description ?? info.vendor,
  }),
);
for (const e of each) console.log(JSON.stringify(e));
device.destroy();
other.destroy();
