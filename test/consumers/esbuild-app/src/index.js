// An esbuild bundle: esbuild does not copy the worker file, so the package starts its inline copy.
import { createDecoder } from 'wan-vae-webgpu';

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

main()
  .catch((e) => ({ error: `${e.code ?? ''}: ${e.message ?? e}` }))
  .then((o) => {
    document.getElementById('out').textContent = JSON.stringify(o);
    window.wanVaeResult = o;
  });
