// A webpack 5 app: the package's worker is emitted by webpack from `new Worker(new URL(...))`.
import { createDecoder } from 'wan-vae-webgpu';

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

main()
  .catch((e) => ({ error: `${e.code ?? ''}: ${e.message ?? e}` }))
  .then((o) => {
    document.getElementById('out').textContent = JSON.stringify(o);
    window.wanVaeResult = o;
  });
