// The embedded default: the generated model and latent decoded when no weights / latents are given to
// the worker (`load(null)` / `latents(null)`, `createDecoder(null)`), by `embeddedDefault()` of the API
// and by the CLI's `--sample generated` (the CLI without --weights decodes the trained model of models/,
// src/node/samples-cli.ts). One place, so they decode the same thing. Async: a default read from a file
// (fetch in the browser, fs in Node) keeps this signature. The trained model (models/, real decodes) is
// `trainedDefault()` of `wan-vae-webgpu/trained` (src/model/trained.ts): a separate entry, so an app that
// does not use it ships no model files.
import type { Latents } from './latents';
import { syntheticLatents, syntheticWeights } from './synthetic';
import type { Weights } from './weights';

export const EMBEDDED_DEFAULT_SOURCE = 'embedded default';

/**
 * The embedded default, defined here only: a generated decoder of the official Wan2.1 architecture at
 * base width 16 (random weights, seed 1) and a latent [16, 3, 8, 8] (9 frames of 64x64 of coloured
 * noise). The CLI's `--sample generated`, `createDecoder(null)` and the page on a software adapter.
 */
export const GENERATED_DEFAULT = {
  model: { version: '2.1', dim: 16, zDim: 16, seed: 1 },
  latentShape: [16, 3, 8, 8],
  /** how the CLI and the docs name it */
  description: 'the random dim-16 model and latent',
} as const;

/** The default model's weights (GENERATED_DEFAULT.model). */
export async function defaultWeights(): Promise<Weights> {
  return syntheticWeights({ ...GENERATED_DEFAULT.model });
}

/** The default latent [16, 3, 8, 8] (9 frames of 64x64 with the default model). */
export async function defaultLatents(): Promise<Latents> {
  const [z, T, h, w] = GENERATED_DEFAULT.latentShape;
  return { data: syntheticLatents(z, T, h, w), shape: [z, T, h, w], source: EMBEDDED_DEFAULT_SOURCE };
}

/** The embedded default model and latent, as `createDecoder(null)` and `latents(null)` give them. */
export async function embeddedDefault(): Promise<{ weights: Weights; latents: Latents; source: string }> {
  const [weights, latents] = await Promise.all([defaultWeights(), defaultLatents()]);
  return { weights, latents, source: EMBEDDED_DEFAULT_SOURCE };
}
