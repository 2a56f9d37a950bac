// The trained default model for embedders (`wan-vae-webgpu/trained`, and the Node entry): its decoder
// and default sample, read from the package's models/ folder next to this module. The files are named
// by literal URLs (new URL of '../../models/FILE' against import.meta.url): in Node (dist/lib/ or src/model/, both two
// folders below the package root) that is a file URL read with fs; a bundler (vite, webpack 5) sees
// the literal, copies the file into the app and rewrites the URL; a plain page fetches it from
// node_modules/wan-vae-webgpu/models/. A separate entry, so an app that does not import it ships no
// model (vite.lib.config.ts keeps these URLs literal in the library build).
import { DecoderError } from '../gpu/errors';
import { createDecoder, type DecoderClient } from '../worker/client';
import type { Latents } from './latents';
import { defaultSample, loadModelWeights, loadSample, MODEL_DECODER_FILE, MODEL_NAME, type Clip, type ModelReader, type SampleInfo } from './samples';
import type { Weights } from './weights';

/** Where the trained decoder and its default sample (astronaut-128) are, next to this module. */
export function trainedModelUrls(): { decoder: URL; latents: URL; source: URL } {
  return {
    decoder: new URL('../../models/wan21-d32-decoder.safetensors', import.meta.url),
    latents: new URL('../../models/samples/astronaut-128.latents.npy', import.meta.url),
    source: new URL('../../models/samples/astronaut-128.source.npy', import.meta.url),
  };
}

// fs only where the URL is a file (Node); hidden from bundlers, which must not pull node:fs into a page
const NODE_FS = 'node:fs/promises';

/** The bytes at `url`: fs for file URLs (Node), fetch otherwise; one-line errors naming the URL. */
async function readUrl(url: URL): Promise<Uint8Array> {
  if (url.protocol === 'file:') {
    const fs = (await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS)) as typeof import('node:fs/promises');
    try {
      const b = await fs.readFile(url);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      throw new DecoderError('bad-input', `cannot read the trained model's file ${decodeURIComponent(url.pathname)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  let r: Response;
  try {
    r = await fetch(url);
  } catch (e) {
    throw new DecoderError('bad-input', `cannot fetch the trained model's file ${url.href}: ${(e as Error).message}`);
  }
  if (!r.ok) throw new DecoderError('bad-input', `cannot fetch the trained model's file ${url.href}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** A reader of models/ for the shipped files (samples.ts loaders). */
function trainedReader(): ModelReader {
  const u = trainedModelUrls();
  const sample = defaultSample().files;
  const byName: Record<string, URL> = { [MODEL_DECODER_FILE]: u.decoder, [`samples/${sample.latents}`]: u.latents, [`samples/${sample.source}`]: u.source };
  return (rel) => {
    const url = byName[rel];
    if (!url) throw new DecoderError('bad-input', `the trained model ships ${Object.keys(byName).join(', ')} here, not ${rel}`);
    return readUrl(url);
  };
}

/**
 * The raw files of the trained default model, for the worker API (`createDecoder(weights, name)`,
 * `decoder.latents(latents, name)`): the decoder's safetensors and the default sample's latents and
 * source clip (uint8 .npy).
 */
export async function trainedDefaultBytes(): Promise<{
  weights: Uint8Array;
  latents: Uint8Array;
  source: Uint8Array;
  names: { weights: string; latents: string; source: string };
  sample: SampleInfo;
}> {
  const read = trainedReader();
  const s = defaultSample();
  const [weights, latents, source] = await Promise.all([read(MODEL_DECODER_FILE), read(`samples/${s.files.latents}`), read(`samples/${s.files.source}`)]);
  return { weights, latents, source, names: { weights: MODEL_DECODER_FILE, latents: s.files.latents, source: s.files.source }, sample: s };
}

/**
 * The trained default model parsed, for `new WanVaeDecoder(weights)` (as `embeddedDefault()` gives the
 * random one): the Wan2.1-architecture decoder at width 32 and its default sample (9 frames of 128x128),
 * with the sample's source clip [3, F, H, W] in [-1, 1] to compare a decode against.
 */
export async function trainedDefault(): Promise<{ weights: Weights; latents: Latents; source: string; clip: Clip; sample: SampleInfo }> {
  const read = trainedReader();
  const s = defaultSample();
  const [weights, loaded] = await Promise.all([loadModelWeights(read), loadSample(s.name, read)]);
  return { weights, latents: loaded.latents, source: `${MODEL_NAME}, sample ${s.name}`, clip: loaded.source, sample: s };
}

/**
 * One call for a page: the trained default model loaded in a decoder worker (`createDecoder`) and its
 * default sample's latents parsed there, ready for `decoder.plan(latents.shape)` and
 * `decoder.decode(latents, ...)`. Browsers only (Node has no Web Worker: `trainedDefault()` and
 * `new WanVaeDecoder(weights)` there).
 */
export async function createTrainedDecoder(): Promise<{ decoder: DecoderClient; latents: Latents; sample: SampleInfo }> {
  const files = await trainedDefaultBytes();
  const decoder = await createDecoder(files.weights, files.names.weights);
  try {
    return { decoder, latents: await decoder.latents(files.latents, files.names.latents), sample: files.sample };
  } catch (e) {
    decoder.dispose();
    throw e;
  }
}
