// The CLI's side of the trained default model (models/, issue 12): where models/ is, `wan-vae samples`,
// and the weights + latents + source clip of `--sample NAME` (the default of `wan-vae decode`).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DecoderError } from '../gpu/errors';
import { GENERATED_DEFAULT } from '../model/default-model';
import { defaultSample, loadModelWeights, loadSample, MODEL_DECODER_FILE, MODEL_NAME, SAMPLES, type LoadedSample, type ModelReader } from '../model/samples';
import type { Weights } from '../model/weights';

/** models/: $WAN_MODELS_DIR, else beside the package root (dist/cli.js -> ../models, src/node -> ../../models). */
export function modelsDir(): string {
  const env = process.env.WAN_MODELS_DIR;
  const candidates = env ? [resolve(env)] : [fileURLToPath(new URL('../models/', import.meta.url)), fileURLToPath(new URL('../../models/', import.meta.url))];
  for (const d of candidates) if (existsSync(join(d, MODEL_DECODER_FILE))) return d;
  throw new DecoderError('bad-input', `the trained default model is missing: no ${MODEL_DECODER_FILE} in ${candidates.join(' or ')} (set WAN_MODELS_DIR to the models/ folder)`);
}

export function nodeModelsReader(dir = modelsDir()): ModelReader {
  return async (rel) => {
    const p = join(dir, rel);
    try {
      const b = await readFile(p);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      throw new DecoderError('bad-input', `cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
}

/** The trained decoder and one sample (the default when `name` is undefined). */
export async function loadCliSample(name: string | undefined): Promise<{ weights: Weights; sample: LoadedSample; source: string }> {
  const read = nodeModelsReader();
  const info = name === undefined ? defaultSample() : SAMPLES.find((s) => s.name === name);
  if (!info)
    throw new DecoderError('bad-input', `--sample ${name}: no such sample (wan-vae samples lists them: ${SAMPLES.map((s) => s.name).join(', ')}; 'generated' is ${GENERATED_DEFAULT.description})`);
  const [weights, sample] = await Promise.all([loadModelWeights(read), loadSample(info.name, read)]);
  return { weights, sample, source: `${MODEL_NAME}, sample ${info.name}` };
}

/** `wan-vae samples [--json]`: the shipped samples with their size and PSNR of the PyTorch decode. */
export function samplesCmd(args: { json?: string | true }): number {
  if (args.json) {
    console.log(JSON.stringify({ model: MODEL_NAME, decoder: `models/${MODEL_DECODER_FILE}`, samples: SAMPLES }));
    return 0;
  }
  console.log(`${MODEL_NAME}: models/${MODEL_DECODER_FILE}; decode one with wan-vae decode --sample NAME`);
  for (const s of SAMPLES)
    console.log(
      `  ${(s.name + (s.default ? ' *' : '')).padEnd(17)} ${String(s.frames).padStart(2)} frames ${`${s.height}x${s.width}`.padEnd(7)} PSNR ${s.psnrTorch.toFixed(1)} dB (PyTorch)  ${s.title}`,
    );
  console.log(`  (* the default; held-out: every clip is a camera move never used in training, chelsea a photograph never seen)`);
  return 0;
}
