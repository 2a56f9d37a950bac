// A real out-of-memory on a GPU (issue 13), not an injected one: fill the GPU with 1 GiB ballast
// buffers until an allocation fails (error scope 'out-of-memory'), free `FREE_GIB` of them, then decode
// with a whole-frame plan that needs more than is left. The decoder must catch the OOM through its error
// scopes, re-plan with the planner's next smaller plans and give the same frames as the whole-frame
// decode made before the ballast (max |err| 0). Prints one JSON line.
// Build (ignored output): npx vite build --config test/reliability/h200/vite.config.ts
// Run on the GPU machine: source .gpu-bundle/boot.sh && node out/reliability/real-oom.mjs
import { installNodeWebGPU } from '../../../src/node/install-webgpu';
import { WanVaeDecoder } from '../../../src/decoder';
import { requestDecoderDevice } from '../../../src/gpu/device';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../../src/model/synthetic';

const T = Number(process.env.T ?? 2),
  H = Number(process.env.LH ?? 60),
  W = Number(process.env.LW ?? 104);
const FREE_GIB = Number(process.env.FREE_GIB ?? 2);
await installNodeWebGPU(process.env.DAWN_FLAGS ? [process.env.DAWN_FLAGS] : []);
const dev = await requestDecoderDevice();
const weights = syntheticWeights({ ...OFFICIAL['2.1'], seed: 1 });
const lat = { data: syntheticLatents(16, T, H, W), shape: [16, T, H, W] as [number, number, number, number] };
const out: Record<string, unknown> = { adapter: dev.info, latent: lat.shape, maxBufferSize: dev.device.limits.maxBufferSize };

const refDec = new WanVaeDecoder(weights, dev);
const ref = await refDec.decode(lat);
refDec.dispose();
out.reference = { plan: ref.options, peakGpuBytes: ref.peakGpuBytes, seconds: ref.seconds };

// the ballast lives on a second device: it stays when the decoder's device is lost
const other = (await requestDecoderDevice()).device;
const ballast: GPUBuffer[] = [];
let failure = '';
for (let i = 0; i < 1024 && !failure; i++) {
  other.pushErrorScope('out-of-memory');
  const b = other.createBuffer({ size: 2 ** 30, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  // touch it: a driver may commit memory lazily
  other.queue.writeBuffer(b, 2 ** 30 - 4, new Uint32Array([1]));
  const e = await other.popErrorScope();
  if (e) {
    failure = e.message;
    b.destroy();
  } else ballast.push(b);
}
// then 64 MiB pieces: fill what the 1 GiB buffers left
const small: GPUBuffer[] = [];
for (let i = 0; i < 1024; i++) {
  other.pushErrorScope('out-of-memory');
  const b = other.createBuffer({ size: 2 ** 26, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  other.queue.writeBuffer(b, 2 ** 26 - 4, new Uint32Array([1]));
  if (await other.popErrorScope()) {
    b.destroy();
    break;
  }
  small.push(b);
}
await other.queue.onSubmittedWorkDone();
for (const b of ballast.splice(0, FREE_GIB)) b.destroy();
out.ballast = { gib: ballast.length, pieces64MiB: small.length, freedGib: FREE_GIB, firstFailure: failure.slice(0, 200) };

const dec = new WanVaeDecoder(weights, dev);
const t0 = performance.now();
try {
  const r = await dec.decode(lat);
  let maxAbs = 0;
  for (let i = 0; i < r.video.length; i++) maxAbs = Math.max(maxAbs, Math.abs(r.video[i]! - ref.video[i]!));
  out.underPressure = { replans: r.replans, plan: r.options, peakGpuBytes: r.peakGpuBytes, seconds: (performance.now() - t0) / 1000, maxAbsVsWholeFrame: maxAbs, frames: r.frames };
} catch (e) {
  out.underPressure = { error: String(e), seconds: (performance.now() - t0) / 1000 };
}
dec.dispose();
for (const b of [...ballast, ...small]) b.destroy();
console.log(JSON.stringify(out));
process.exit(0);
