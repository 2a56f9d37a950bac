// A webpack 5 app: the package's worker is emitted by webpack from `new Worker(new URL(...))`, the
// trained model's files (wan-vae-webgpu/trained) from its `new URL(..., import.meta.url)` as assets.
import { createDecoder } from 'wan-vae-webgpu';
import { trainedDefaultBytes } from 'wan-vae-webgpu/trained';

async function main() {
  const decoder = await createDecoder(null); // null: the embedded default model
  try {
    const latents = await decoder.latents(null); // null: its default latent
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
