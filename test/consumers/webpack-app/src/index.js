// A webpack 5 app: the package's worker is emitted by webpack from `new Worker(new URL(...))`, the
// trained model's files (wan-vae-webgpu/trained) from its `new URL(..., import.meta.url)` as assets.
import { createDecoder } from 'wan-vae-webgpu';
import { trainedDefaultBytes } from 'wan-vae-webgpu/trained';

/**
 * The first `n` latent frames of a latent [z, T, h, w]. The pages decode the default's first two (a first
 * chunk and a steady one: 5 frames of 64x64) instead of all three (9 frames): the same path through the
 * package in 5/9 of the decode, which SwiftShader runs on the CPU.
 */
function firstFrames({ data, shape: [z, T, h, w] }, n) {
  const out = new Float32Array(z * n * h * w);
  for (let c = 0; c < z; c++) out.set(data.subarray(c * T * h * w, (c * T + n) * h * w), c * n * h * w);
  return { data: out, shape: [z, n, h, w] };
}

async function main() {
  const decoder = await createDecoder(null); // null: the embedded default model
  try {
    const latents = firstFrames(await decoder.latents(null), 2); // null: its default latent
    const plan = await decoder.plan(latents.shape);
    let streamed = 0;
    const result = await decoder.decode(latents, {}, () => streamed++);
    return { frames: result.frames, planned: plan.frames, streamed, size: [result.width, result.height] };
  } finally {
    decoder.dispose();
  }
}

/** The trained default model's files, loaded in a worker of its own: its width, sample shape and plan. */
async function trained() {
  const files = await trainedDefaultBytes();
  const weightBytes = files.weights.length; // before createDecoder transfers the bytes to the worker
  const decoder = await createDecoder(files.weights, files.names.weights);
  try {
    const latents = await decoder.latents(files.latents, files.names.latents);
    const plan = await decoder.plan(latents.shape);
    return { dim: decoder.model.dim, latents: latents.shape, frames: plan.frames, weightBytes };
  } finally {
    decoder.dispose();
  }
}

const describe = (e) => ({ error: `${e.code ?? ''}: ${e.message ?? e}` });
main()
  .catch(describe)
  .then(async (o) => ({ ...o, trained: await trained().catch(describe) }))
  .then((o) => {
    document.getElementById('out').textContent = JSON.stringify(o);
    window.wanVaeResult = o;
  });
