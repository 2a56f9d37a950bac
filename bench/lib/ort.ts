// onnxruntime-web beside our decoder: the same generated weights and latents, the decoder built as
// ONNX chunk graphs by bench/onnx (one per layout), run with onnxruntime-web's WebGPU EP on OUR device
// (bench/onnx/run-ort.ts: IO binding on GPU buffers, peak bytes by wrapping createBuffer / destroy).
// Rows: `<name>/ours` (our f32 decode, counted the same way) and `<name>/ort-<layout>` with max |err|
// against ours, time and peak bytes, and the ratios. A failure of onnxruntime is a failed row with
// its text (limits, missing ops, protobuf size).
import type { DecoderDevice } from '../../src/gpu/device';
import { buildChunk, type OnnxLayout } from '../onnx/build-decoder';
import { loadOrtWebGpu } from '../onnx/load-ort';
import { runOrtDecode, type OrtDecodeResult } from '../onnx/run-ort';
import { measureDecode } from './decode';
import { decodeFlops, latentsFor, modelFor } from './models';
import { describeError, now, quality, spread } from './stats';
import type { OrtScenario, Result } from './types';

async function ortLayout(gpu: DecoderDevice, s: OrtScenario, layout: OnnxLayout, ours: Result, oursVideo: Float32Array | null, ortDist: string | undefined): Promise<Result> {
  const params = { model: s.model, latent: s.latent, layout, repeats: s.repeats };
  const row: Result = { name: `${s.name}/ort-${layout}`, group: 'ort', status: 'ok', params, key: `${s.name}/ort-${layout}|${JSON.stringify(params)}` };
  try {
    const ort = await loadOrtWebGpu({ distDir: ortDist });
    const { weights, cfg } = modelFor(s.model);
    const [, h, w] = s.latent;
    const tb = now();
    const first = buildChunk(cfg, weights, { h, w, kind: 'first', layout });
    const steady = buildChunk(cfg, weights, { h, w, kind: 'steady', layout });
    const buildMs = now() - tb;
    const lat = latentsFor(s.model, s.latent);
    const runs: OrtDecodeResult[] = [];
    for (let i = 0; i < Math.max(1, s.repeats); i++) runs.push(await runOrtDecode(first.bytes, steady.bytes, lat, cfg, { ort, device: gpu.device }));
    const warm = runs.length > 1 ? runs.slice(1) : runs;
    const last = warm[warm.length - 1]!;
    // run time without session creation (model parse, weight upload): the chunk runs + readbacks
    const runMs = spread(warm.map((r) => 1000 * r.chunkSeconds.reduce((a, b) => a + b, 0)));
    const flops = decodeFlops(cfg, s.latent);
    Object.assign(row, {
      timing: 'wall-decode',
      ms: spread(warm.map((r) => 1000 * r.seconds)),
      gflops: flops / (runMs.median * 1e6),
      peakGpuBytes: last.peakGpuBytes,
      countedPeakGpuBytes: last.peakGpuBytes,
      quality: oursVideo ? quality(last.video, oursVideo, `our f32 decode (${ours.name})`) : undefined,
      extra: {
        coldMs: 1000 * runs[0]!.seconds,
        runMs,
        createMs: `first ${(1000 * last.createSeconds.first).toFixed(0)}, steady ${(1000 * last.createSeconds.steady).toFixed(0)}`,
        chunkMs: last.chunkSeconds.map((x) => (1000 * x).toFixed(1)).join(' / '),
        buildMs,
        modelMiB: `${(first.bytes.byteLength / 2 ** 20).toFixed(1)} + ${(steady.bytes.byteLength / 2 ** 20).toFixed(1)}`,
        nodes: `${first.stats.nodes} + ${steady.stats.nodes}`,
        liveGpuBytesAtEnd: last.liveGpuBytesAtEnd,
        flops,
        timeRatioVsOurs: ours.ms ? runMs.median / ours.ms.median : undefined,
        peakRatioVsOurs: ours.countedPeakGpuBytes ? last.peakGpuBytes / ours.countedPeakGpuBytes : undefined,
      },
    });
  } catch (e) {
    row.status = 'failed';
    row.error = describeError(e);
  }
  return row;
}

export async function runOrtScenario(gpu: DecoderDevice, s: OrtScenario, ortDist?: string): Promise<Result[]> {
  const ours = await measureDecode(gpu, { name: `${s.name}/ours`, group: 'ort', model: s.model, latent: s.latent, probe: s.probe }, { cache: 'on', precision: 'f32' }, Math.max(1, s.repeats));
  const rows = [ours.row];
  for (const layout of s.layouts) rows.push(await ortLayout(gpu, s, layout, ours.row, ours.video, ortDist));
  return rows;
}
