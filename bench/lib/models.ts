// Generated weights and latents of a scenario (one weights object per model spec at a time: the
// official Wan2.2 decoder is ~2 GB of f32), and the dense FLOPs of a decode.
import { buildChunk } from '../onnx/build-decoder';
import { inferConfig, type DecoderConfig } from '../../src/model/config';
import type { Latents } from '../../src/model/latents';
import { fetchReader, loadModelWeights, loadSample, type Clip, type ModelReader } from '../../src/model/samples';
import { denormalize, officialStats } from '../../src/model/stats';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import type { Weights } from '../../src/model/weights';
import type { ModelSpec } from './types';

let held: { key: string; weights: Weights; cfg: DecoderConfig } | null = null;

/** The trained default model (models/) with one sample: latents de-normalised (decode with latentStats 'none'). */
interface Trained {
  weights: Weights;
  cfg: DecoderConfig;
  latents: Latents;
  source: Clip;
}
const trained = new Map<string, Trained>();
let reader: ModelReader | null = null;

/** How models/ files are read: the Node entry sets an fs reader; the browser fetches /models/ from the page's server. */
export function setModelReader(r: ModelReader): void {
  reader = r;
}

/** Loads what `spec` needs before modelFor / latentsFor (the trained model and its sample; generated models: nothing). */
export async function prepareModel(spec: ModelSpec): Promise<void> {
  if (!spec.sample || trained.has(spec.sample)) return;
  const read = reader ?? fetchReader(new URL('/models/', globalThis.location?.origin));
  const [weights, s] = await Promise.all([loadModelWeights(read), loadSample(spec.sample, read)]);
  const z = s.latents.shape[0];
  trained.clear(); // one trained sample at a time
  trained.set(spec.sample, { weights, cfg: inferConfig(weights), latents: { data: denormalize(s.latents.data, z, officialStats(z)), shape: s.latents.shape }, source: s.source });
}

function trainedFor(spec: ModelSpec): Trained {
  const t = trained.get(spec.sample!);
  if (!t) throw new Error(`bench: the trained model with sample ${spec.sample} is not loaded (await prepareModel(spec) first)`);
  return t;
}

/** The source clip of a trained-model spec ([3, F, H, W] in [-1, 1]); undefined for generated models. */
export function sourceFor(spec: ModelSpec): Clip | undefined {
  return spec.sample ? trainedFor(spec).source : undefined;
}

export function modelFor(spec: ModelSpec): { weights: Weights; cfg: DecoderConfig } {
  if (spec.sample) return trainedFor(spec);
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
  if (spec.sample) {
    const l = trainedFor(spec).latents;
    if (l.shape[1] !== T || l.shape[2] !== h || l.shape[3] !== w) throw new Error(`bench: sample ${spec.sample} has latents [${l.shape}], the scenario asks for [T, h, w] = [${T}, ${h}, ${w}]`);
    return l;
  }
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
