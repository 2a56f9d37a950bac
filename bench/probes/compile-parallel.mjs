// Probe (issue 24, start-up): do Dawn's asynchronous pipeline compiles run side by side on this machine?
// The decoder asks for every pipeline at once (src/gpu/kernel.ts PipelineCache); with an empty driver
// shader cache the tensor-core decode's pipelines resolved one after another, ~60-170 ms apart, over
// ~0.85 s on the H200 (bench/results/h200/release-2026-12-03-6e9a2d5, cli.jsonl startup events). This
// compiles a plan's own texts (`wan-vae shaders --dump DIR --adapter h200 ...`: constants written in, as the
// decoder compiles them; keys that share a text once; layout 'auto') in one of three ways, one JSON line:
//   all        every createComputePipelineAsync at once, then await them all (what the decoder does)
//   serial     one at a time, each awaited before the next is asked for
//   workers N  N worker threads, each with its own GPU device, compiling a share (largest text first,
//              round-robin) all at once: whether separate devices compile in parallel where one does not
// Run each way in a new process with an empty driver cache (NVIDIA: __GL_SHADER_DISK_CACHE_PATH=$(mktemp -d)),
// after `source .gpu-bundle/boot.sh` on the GPU machine:
//   node bench/probes/compile-parallel.mjs DIR all|serial|workers [N] [--flags DAWN_FLAG]...
// `all` ~ max of the compiles -> Dawn compiles in parallel; `all` ~ `serial` -> one at a time.
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { create, globals } from 'webgpu';

const FEATURES = ['shader-f16', 'subgroups', 'chromium-experimental-subgroup-matrix'];

const keep = [];
async function openDevice(flags) {
  Object.assign(globalThis, globals);
  const gpu = create(flags);
  keep.push(gpu); // dawn.node: a GPU instance collected while its devices live takes the process down
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('no WebGPU adapter');
  const requiredFeatures = FEATURES.filter((f) => adapter.features.has(f));
  // the decoder's limits (src/gpu/device.ts asks for the adapter's): its workgroups are up to 1024 invocations
  const L = ['maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupStorageSize', 'maxStorageBuffersPerShaderStage'];
  const requiredLimits = Object.fromEntries(L.map((k) => [k, adapter.limits[k]]));
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
  return { device, adapter: adapter.info?.description || adapter.info?.vendor || '?' };
}

/** Compiles `texts` on `device` all at once (or one at a time); the ms each resolved at, from the start. */
async function compile(device, texts, serial) {
  const t0 = performance.now();
  const done = [];
  const one = async (code, i) => {
    const module = device.createShaderModule({ code, label: `p${i}` });
    await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    done[i] = Math.round(performance.now() - t0);
    if (process.env.PROBE_DEBUG) console.error(`compiled ${i} at ${done[i]} ms`);
  };
  if (serial) for (let i = 0; i < texts.length; i++) await one(texts[i], i);
  else await Promise.all(texts.map(one));
  return { totalMs: Math.round(performance.now() - t0), doneMs: done };
}

if (!isMainThread) {
  const { flags, texts } = workerData;
  const t0 = performance.now();
  const { device } = await openDevice(flags);
  const deviceMs = Math.round(performance.now() - t0);
  const r = await compile(device, texts, false);
  parentPort.postMessage({ deviceMs, ...r });
  device.destroy();
} else {
  const args = process.argv.slice(2);
  const flags = args.flatMap((a, i) => (args[i - 1] === '--flags' ? [a] : []));
  const pos = args.filter((a, i) => a !== '--flags' && args[i - 1] !== '--flags');
  const [dir, way = 'all', nArg] = pos;
  if (!dir) throw new Error('usage: compile-parallel.mjs DIR all|serial|workers [N] [--flags F]');
  // wan-vae shaders' index.json: [{file, key, compiledAs?}]; a key with compiledAs shares another key's compile
  const index = JSON.parse(readFileSync(`${dir}/index.json`, 'utf8')).filter((p) => !p.compiledAs);
  const texts = index.map((p) => readFileSync(`${dir}/${p.file}`, 'utf8'));
  const row = { dir, way, pipelines: texts.length, wgslKiB: Math.round(texts.reduce((a, t) => a + t.length, 0) / 1024), cache: process.env.__GL_SHADER_DISK_CACHE_PATH ?? null };
  const t0 = performance.now();
  if (way === 'workers') {
    const n = Number(nArg ?? 4);
    const order = texts.map((t, i) => i).sort((a, b) => texts[b].length - texts[a].length);
    const shares = Array.from({ length: n }, () => []);
    order.forEach((i, k) => shares[k % n].push(i));
    const results = await Promise.all(
      shares.map(
        (share) =>
          new Promise((res, rej) => {
            const w = new Worker(new URL(import.meta.url), { workerData: { flags, texts: share.map((i) => texts[i]) } });
            w.once('message', res);
            w.once('error', rej);
          }),
      ),
    );
    Object.assign(row, { workers: n, totalMs: Math.round(performance.now() - t0), perWorker: results.map((r, k) => ({ pipelines: shares[k], deviceMs: r.deviceMs, compileMs: r.totalMs })) });
  } else {
    const { device, adapter } = await openDevice(flags);
    const deviceMs = Math.round(performance.now() - t0);
    const r = await compile(device, texts, way === 'serial');
    Object.assign(row, { adapter, deviceMs, ...r, labels: index.map((p) => p.key) });
    device.destroy();
  }
  console.log(JSON.stringify(row));
}
