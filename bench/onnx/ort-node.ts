// Node CLI of the onnxruntime-web baseline (Dawn through the npm `webgpu` package): generated weights of
// the official architecture at any width, ORT decode with each graph layout, optionally our own WebGPU
// decoder on the same device and latents for max |err| and time. One JSON object per line on stdout.
//
//   npx tsx bench/onnx/ort-node.ts --version 2.1 --dim 96 --z 16 --latent 2,30,52 --layout conv3d,frames --ours
//   options: --external (weights as ONNX external data; default only when they exceed 1.5 GiB), --dist <folder of ort.webgpu.min.mjs + ort-wasm-simd-threaded.asyncify.{mjs,wasm}> (default:
//   node_modules/onnxruntime-web/dist), --dawn-flags <comma list> (e.g. enable-dawn-features=allow_unsafe_apis)
import { WanVaeDecoder } from '../../src/decoder';
import { requestDecoderDevice } from '../../src/gpu/device';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { installNodeWebGPU } from '../../src/node/install-webgpu';
import { buildChunk, type OnnxLayout } from './build-decoder';
import { loadOrtWebGpu } from './load-ort';
import { runOrtDecode } from './run-ort';

function args(): Map<string, string> {
  const m = new Map<string, string>();
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const k = a[i]!;
    if (!k.startsWith('--')) throw new Error(`ort-node: unexpected argument ${k}`);
    const v = a[i + 1] && !a[i + 1]!.startsWith('--') ? a[++i]! : 'true';
    m.set(k.slice(2), v);
  }
  return m;
}

function maxAbs(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= m)) m = d;
  }
  return m;
}

const log = (o: object) => console.log(JSON.stringify(o));

async function main(): Promise<void> {
  const a = args();
  const version = (a.get('version') ?? '2.1') as '2.1' | '2.2';
  const dim = Number(a.get('dim') ?? (version === '2.1' ? 96 : 256));
  const zDim = Number(a.get('z') ?? (version === '2.1' ? 16 : 48));
  const [T, h, w] = (a.get('latent') ?? '2,8,8').split(',').map(Number) as [number, number, number];
  const layouts = (a.get('layout') ?? 'conv3d,frames').split(',') as OnnxLayout[];
  const externalData = a.has('external') ? a.get('external') !== 'false' : 'auto';
  await installNodeWebGPU((a.get('dawn-flags') ?? '').split(',').filter(Boolean));
  const dev = await requestDecoderDevice({ wantF16: false });
  const adapter = [dev.info.vendor, dev.info.architecture, dev.info.description].filter(Boolean).join(' / ');
  const ort = await loadOrtWebGpu({ distDir: a.get('dist') });
  const t0 = performance.now();
  const weights = syntheticWeights({ version, dim, zDim, seed: 1 });
  const cfg = inferConfig(weights);
  const latents = { data: syntheticLatents(zDim, T, h, w), shape: [zDim, T, h, w] as [number, number, number, number] };
  log({ event: 'setup', adapter, version, dim, zDim, latent: [T, h, w], params: weights.paramCount, weightsSeconds: (performance.now() - t0) / 1000 });

  let ours: Float32Array | null = null;
  if (a.has('ours')) {
    const dec = new WanVaeDecoder(weights, dev);
    const lat = { data: latents.data, shape: latents.shape };
    try {
      const cold = await dec.decode(lat, { latentStats: 'none' });
      const warm = await dec.decode(lat, { latentStats: 'none' });
      ours = warm.video;
      log({ event: 'ours', coldSeconds: cold.seconds, seconds: warm.seconds, peakGpuBytes: warm.peakGpuBytes, frames: warm.frames });
    } catch (e) {
      log({ event: 'ours-failed', error: e instanceof Error ? e.message : String(e) });
    } finally {
      dec.dispose();
    }
  }
  let firstVideo: Float32Array | null = null;
  for (const layout of layouts) {
    const tb = performance.now();
    const first = buildChunk(cfg, weights, { h, w, kind: 'first', layout, externalData });
    const steady = buildChunk(cfg, weights, { h, w, kind: 'steady', layout, externalData });
    const buildSeconds = (performance.now() - tb) / 1000;
    try {
      const r = await runOrtDecode(first, steady, latents, cfg, { ort, device: dev.device });
      log({
        event: 'ort',
        layout,
        buildSeconds,
        modelBytes: [first.bytes.byteLength, steady.bytes.byteLength],
        externalBytes: [first, steady].map((m) => m.externalData.reduce((a, f) => a + f.data.byteLength, 0)),
        nodes: [first.stats.nodes, steady.stats.nodes],
        gmac: [first.stats.macs / 1e9, steady.stats.macs / 1e9],
        seconds: r.seconds,
        createSeconds: r.createSeconds,
        chunkSeconds: r.chunkSeconds,
        peakGpuBytes: r.peakGpuBytes,
        liveGpuBytesAtEnd: r.liveGpuBytesAtEnd,
        frames: r.frames,
        maxAbsVsOurs: ours ? maxAbs(r.video, ours) : undefined,
        maxAbsVsFirstLayout: firstVideo ? maxAbs(r.video, firstVideo) : undefined,
      });
      firstVideo ??= r.video;
    } catch (e) {
      log({ event: 'ort-failed', layout, error: e instanceof Error ? e.message : String(e) });
    }
  }
  dev.device.destroy();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
