// Generated weights and latents of a scenario (one weights object per model spec at a time: the
// official Wan2.2 decoder is ~2 GB of f32), and the dense FLOPs of a decode.
import { buildChunk } from '../onnx/build-decoder';
import { inferConfig, type DecoderConfig } from '../../src/model/config';
import type { Latents } from '../../src/model/latents';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import type { Weights } from '../../src/model/weights';
import type { ModelSpec } from './types';

let held: { key: string; weights: Weights; cfg: DecoderConfig } | null = null;

export function modelFor(spec: ModelSpec): { weights: Weights; cfg: DecoderConfig } {
  const key = JSON.stringify(spec);
  if (held?.key !== key) {
    held = null; // let the previous model go before generating the next
    const weights = syntheticWeights(spec);
    held = { key, weights, cfg: inferConfig(weights) };
  }
  return held;
}

export function releaseModels(): void {
  held = null;
}

/** Deterministic latents [z, T, h, w] (already de-normalised: decode with latentStats 'none'). */
export function latentsFor(spec: ModelSpec, [T, h, w]: [number, number, number]): Latents {
  return { data: syntheticLatents(spec.zDim, T, h, w), shape: [spec.zDim, T, h, w] };
}

/**
 * Dense FLOPs (2 per multiply-add of every conv and attention matmul; cached convs count all 3 taps,
 * as the official zero-padded cache computes them) of a cached decode of T latent frames, from the
 * chunk graphs bench/onnx builds (no weights needed).
 */
export function decodeFlops(cfg: DecoderConfig, [T, h, w]: [number, number, number]): number {
  const first = buildChunk(cfg, null, { h, w, kind: 'first', layout: 'conv3d' }).stats.macs;
  const steady = T > 1 ? buildChunk(cfg, null, { h, w, kind: 'steady', layout: 'conv3d' }).stats.macs : 0;
  return 2 * (first + (T - 1) * steady);
}
