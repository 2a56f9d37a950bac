// Probe (issue 11): the cold-start cost of preparing tensor-core weights, JS vs GPU (GpuDecoder.create's weightPrep), on
// any adapter: GpuDecoder.create with the EMULATED tensor-core GEMM (same blocked weights, same
// preparation; the adapter needs shader-f16, not subgroup matrices), official-shape generated weights,
// a 1x2x2 latent plan (the build is the weights + compiles, not the frame). Prints one JSON line per
// build: GpuDecoder.build (resourcesMs = allocation + JS packing, totalMs = build done, GPU prep submitted) and
// its prep counts; then the GPU queue drained (drainMs: the uploads and the weights-block dispatches).
//   node --import tsx --experimental-loader RAW-LOADER bench/probes/weights-prep-time.ts [2.1|2.2] [js,gpu,...] [HxW latent]
// (RAW-LOADER: an ESM loader hook that serves '*.wgsl?raw' as a string module, as vite does)
import { requestDecoderDevice } from '../../src/gpu/device';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { plan } from '../../src/plan/planner';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { installNodeWebGPU } from '../../src/node/install-webgpu';

const v = (process.argv[2] ?? '2.1') as '2.1' | '2.2';
const modes = (process.argv[3] ?? 'js,gpu,js,gpu').split(',') as ('js' | 'gpu')[];
await installNodeWebGPU([]);
const { device, info } = await requestDecoderDevice({ wantF16: true });
const t0 = performance.now();
const weights = syntheticWeights({ ...OFFICIAL[v], seed: 1 });
const genMs = performance.now() - t0;
const [lh, lw] = (process.argv[4] ?? '2x2').split('x').map(Number) as [number, number];
const p = plan(inferConfig(weights), { frames: 1, h: lh, w: lw, cache: 'on', precision: 'f16', tensorCores: true });
for (const mode of modes) {
  const dec = await GpuDecoder.create(device, p, weights, { tuning: conv3dTuningFor(info), mma: { subgroupSize: 32, emulate: true }, weightPrep: mode });
  const t1 = performance.now();
  await device.queue.onSubmittedWorkDone();
  const drainMs = performance.now() - t1;
  console.log(JSON.stringify({ model: v, mode, params: weights.paramCount, genMs: Math.round(genMs), ...dec.build, drainMs, weightPrep: dec.build.prep, adapter: info.description ?? info.vendor }));
  dec.dispose();
}
device.destroy();
