// A vite app (dev server and `vite build`, no vite config): decode the embedded default in the
// library's worker and report what came back; then load the trained model with `createTrainedDecoder()`
// of `wan-vae-webgpu/trained` (its files emitted by vite from the package's `new URL(..., import.meta.url)`).
import { createDecoder, DecoderError, type Frame, type Latents } from 'wan-vae-webgpu';
import { createTrainedDecoder } from 'wan-vae-webgpu/trained';

interface Outcome {
  frames?: number;
  planned?: number;
  streamed?: number;
  size?: [number, number];
  error?: string;
  trained?: Trained;
}

interface Trained {
  dim?: number;
  latents?: number[];
  frames?: number;
  weightBytes?: number;
  error?: string;
}

/** The trained default model in one call (createTrainedDecoder: its own worker): its width, sample shape and plan. */
async function trained(): Promise<Trained> {
  const { decoder, latents } = await createTrainedDecoder();
  try {
    const plan = await decoder.plan(latents.shape);
    return { dim: decoder.model.dim, latents: latents.shape, frames: plan.frames };
  } finally {
    decoder.dispose();
  }
}

/**
 * The first `n` latent frames of a latent [z, T, h, w]. The pages decode the default's first two (a first
 * chunk and a steady one: 5 frames of 64x64) instead of all three (9 frames): the same path through the
 * package in 5/9 of the decode, which SwiftShader runs on the CPU.
 */
function firstFrames({ data, shape: [z, T, h, w] }: Latents, n: number): Latents {
  const out = new Float32Array(z * n * h * w);
  for (let c = 0; c < z; c++) out.set(data.subarray(c * T * h * w, (c * T + n) * h * w), c * n * h * w);
  return { data: out, shape: [z, n, h, w] };
}

async function main(): Promise<Outcome> {
  const decoder = await createDecoder(null); // null: the embedded default model
  try {
    const latents = firstFrames(await decoder.latents(null), 2); // null: its default latent
    const plan = await decoder.plan(latents.shape);
    let streamed = 0;
    const result = await decoder.decode(latents, {}, (f: Frame) => {
      streamed += f.rgb.length === 3 * plan.height * plan.width ? 1 : 0;
    });
    return { frames: result.frames, planned: plan.frames, streamed, size: [result.width, result.height] };
  } finally {
    decoder.dispose();
  }
}

const out = document.getElementById('out')!;
const describe = (e: unknown) => (e instanceof DecoderError ? `${e.code}: ${e.message}` : String(e));
main()
  .catch((e: unknown): Outcome => ({ error: describe(e) }))
  .then(async (o) => ({ ...o, trained: await trained().catch((e: unknown): Trained => ({ error: describe(e) })) }))
  .then((o) => {
    out.textContent = JSON.stringify(o);
    (window as unknown as { wanVaeResult: Outcome }).wanVaeResult = o;
  });
