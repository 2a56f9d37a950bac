// The onnxruntime-web baseline (bench/onnx): the decoder built as ONNX chunk graphs by our own code, run
// with onnxruntime-web's WebGPU EP, must equal the CPU reference decoder (src/cpu/decoder.ts) within
// 1e-3 max |err| on small generated weights, in both graph layouts, and the official golden decode of
// ../shared/golden/wan21-tiny.safetensors.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildChunk, type OnnxLayout } from '../../bench/onnx/build-decoder';
import { loadOrtWebGpu } from '../../bench/onnx/load-ort';
import { runOrtDecode, type Ort } from '../../bench/onnx/run-ort';
import { CpuDecoder } from '../../src/cpu/decoder';
import type { Tensor } from '../../src/cpu/ops';
import { inferConfig } from '../../src/model/config';
import { toFloat32 } from '../../src/model/safetensors';
import { denormalize } from '../../src/model/stats';
import { syntheticLatents, syntheticWeights, type SyntheticSpec } from '../../src/model/synthetic';
import { weightsFromSafetensors, type Weights } from '../../src/model/weights';
import { compare } from '../helpers/compare';
import { isBrowser } from '../helpers/env';
import { sharedAvailable } from '../helpers/files';
import { getTestDevice, type TestGpu } from '../helpers/gpu';
import { cannotRun, needDevice, needGolden, type SkipCtx } from '../helpers/need';

const where = isBrowser ? 'browser' : 'node';

let gpu: TestGpu | null = null;
let ort: Ort | null = null;

beforeAll(async () => {
  gpu = await getTestDevice();
  if (gpu) ort = await loadOrtWebGpu();
});

const refs = new Map<string, Tensor>();

/** The CPU reference decode, once per (weights, latents). */
async function reference(weights: Weights, latents: { data: Float32Array; shape: [number, number, number, number] }): Promise<Tensor> {
  const key = `${weights.source}|${latents.shape}`;
  let r = refs.get(key);
  if (!r) refs.set(key, (r = await new CpuDecoder(inferConfig(weights), weights).decode(latents)));
  return r;
}

/** ORT decode vs the CPU reference. */
async function check(weights: Weights, latents: { data: Float32Array; shape: [number, number, number, number] }, layout: OnnxLayout, label: string, externalData: boolean) {
  const cfg = inferConfig(weights);
  const [, , h, w] = latents.shape;
  const first = buildChunk(cfg, weights, { h, w, kind: 'first', layout, externalData });
  const steady = buildChunk(cfg, weights, { h, w, kind: 'steady', layout, externalData });
  expect(steady.externalData.length > 0).toBe(externalData);
  const r = await runOrtDecode(first, steady, latents, cfg, { ort: ort!, device: gpu!.device });
  const want = await reference(weights, latents);
  expect([3, r.frames, r.height, r.width]).toEqual(want.shape);
  const c = compare(r.video, want.data);
  console.log(
    `[${where}] ORT ${label} ${layout}: max|err| ${c.maxAbs.toExponential(2)}, ${r.seconds.toFixed(2)} s ` +
      `(create first ${r.createSeconds.first.toFixed(2)} s, steady ${r.createSeconds.steady.toFixed(2)} s; chunks ${r.chunkSeconds.map((s) => s.toFixed(2)).join(' / ')} s), ` +
      `peak ${(r.peakGpuBytes / 2 ** 20).toFixed(2)} MiB, models ${(first.bytes.byteLength / 1024).toFixed(0)} + ${(steady.bytes.byteLength / 1024).toFixed(0)} KiB, ` +
      `steady ${steady.stats.nodes} nodes ${(steady.stats.macs / 1e6).toFixed(1)} MMAC`,
  );
  expect(c.maxAbs).toBeLessThanOrEqual(1e-3);
  expect(r.peakGpuBytes).toBeGreaterThan(0);
}

// Latent T = 3: chunk 2 reads caches written by the steady graph itself. SwiftShader runs onnxruntime's
// ~350-600 small dispatches per chunk at ~10-25 ms each, so the browser project runs the brief's 'conv3d'
// graph for both versions and the 'frames' graph for Wan2.2 only (it covers DupUp3D and unpatchify
// too); the node project (Dawn + lavapipe, ~3x faster here) runs all four.
// The Wan2.2 'frames' case also loads its weights as ONNX external data (as Wan2.2 at full width must).
// CI time: each case runs in one project only (the golden case below runs the 'conv3d' graph in both).
const CASES: { spec: SyntheticSpec; latent: [number, number, number, number]; layout: OnnxLayout; browser: boolean; node: boolean; external?: boolean }[] = [
  { spec: { version: '2.1', dim: 8, zDim: 4, seed: 3 }, latent: [4, 3, 4, 6], layout: 'conv3d', browser: true, node: false },
  { spec: { version: '2.1', dim: 8, zDim: 4, seed: 3 }, latent: [4, 3, 4, 6], layout: 'frames', browser: false, node: true },
  { spec: { version: '2.2', dim: 8, zDim: 8, seed: 5 }, latent: [8, 3, 4, 6], layout: 'conv3d', browser: false, node: true },
  { spec: { version: '2.2', dim: 8, zDim: 8, seed: 5 }, latent: [8, 3, 4, 6], layout: 'frames', browser: true, node: false, external: true },
];

function needOrt(ctx: SkipCtx): void {
  needDevice(ctx, gpu);
  if (!ort) cannotRun(ctx, 'onnxruntime-web did not load');
}

describe('onnxruntime-web baseline', () => {
  it('builds the chunk graphs with the cache slots of the config', () => {
    const weights = syntheticWeights({ version: '2.2', dim: 8, zDim: 8 });
    const cfg = inferConfig(weights);
    const first = buildChunk(cfg, null, { h: 4, w: 6, kind: 'first' });
    const steady = buildChunk(cfg, null, { h: 4, w: 6, kind: 'steady' });
    expect(steady.io.cacheIn.map((s) => s.slot)).toEqual(Array.from({ length: cfg.numSlots }, (_, i) => i));
    expect(steady.io.cacheOut.map((s) => s.slot)).toEqual(steady.io.cacheIn.map((s) => s.slot));
    expect(first.io.cacheIn).toEqual([]);
    // chunk 0 skips time_conv ('Rep'): its slots are fed zeros by the runner
    expect(first.io.cacheOut.length).toBe(cfg.numSlots - 2);
    expect(steady.io.video).toEqual([1, 3, 4, 64, 96]);
    expect(first.io.video).toEqual([1, 3, 1, 64, 96]);
    expect(steady.io.cacheIn.find((s) => s.kind === 'time')!.shape).toEqual([1, 32, 2, 4, 6]);
  });

  for (const { spec, latent, layout, browser, node, external } of CASES) {
    it.skipIf(isBrowser ? !browser : !node)(
      `Wan${spec.version} dim ${spec.dim} z ${spec.zDim}, latent [${latent}], ${layout} graph${external ? ', external data' : ''}: equals the CPU reference within 1e-3`,
      async (ctx) => {
        needOrt(ctx);
        if (isBrowser && spec.version === '2.1' && layout === 'conv3d' && (await sharedAvailable()))
          return ctx.skip('same config, latent and graph as the golden wan21-tiny case below (SwiftShader time)');
        const weights = syntheticWeights(spec);
        // the browser's 'frames' run stops after the first steady chunk (SwiftShader time; node checks 2 steady chunks)
        const [z, T0, h, w] = latent;
        const T = isBrowser && layout === 'frames' ? 2 : T0;
        await check(weights, { data: syntheticLatents(z, T, h, w), shape: [z, T, h, w] }, layout, `Wan${spec.version} dim ${spec.dim}`, external ?? false);
      },
    );
  }

  it('golden wan21-tiny: equals the official @video (clamped) within 1e-3', async (ctx) => {
    needOrt(ctx);
    const f = await needGolden(ctx, 'wan21-tiny');
    const weights = weightsFromSafetensors(f, 'wan21-tiny');
    const cfg = inferConfig(weights);
    const lat = f.tensors.get('@latents')!;
    const [z, T, h, w] = lat.shape as [number, number, number, number];
    const data = denormalize(toFloat32(lat), z, { mean: toFloat32(f.tensors.get('@mean')!), std: toFloat32(f.tensors.get('@std')!) });
    const first = buildChunk(cfg, weights, { h, w, kind: 'first' });
    const steady = buildChunk(cfg, weights, { h, w, kind: 'steady' });
    const r = await runOrtDecode(first.bytes, steady.bytes, { data, shape: [z, T, h, w] }, cfg, { ort: ort!, device: gpu!.device });
    const want = f.tensors.get('@video')!;
    expect([3, r.frames, r.height, r.width]).toEqual(want.shape);
    const c = compare(
      r.video,
      toFloat32(want).map((v) => Math.min(1, Math.max(-1, v))),
    );
    console.log(`[${where}] ORT golden wan21-tiny: max|err| ${c.maxAbs.toExponential(2)}, PSNR ${c.psnr.toFixed(1)} dB, ${r.seconds.toFixed(2)} s`);
    expect(c.maxAbs).toBeLessThanOrEqual(1e-3);
  });
});
