// A vite app (dev server and `vite build`, no vite config): decode the embedded default in the
// library's worker and report what came back.
import { createDecoder, DecoderError, type Frame } from 'wan-vae-webgpu';

interface Outcome {
  frames?: number;
  planned?: number;
  streamed?: number;
  size?: [number, number];
  error?: string;
}

async function main(): Promise<Outcome> {
  const decoder = await createDecoder(null); // null: the embedded default model
  try {
    const latents = await decoder.latents(null); // null: its default latent
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
main()
  .catch((e: unknown): Outcome => ({ error: e instanceof DecoderError ? `${e.code}: ${e.message}` : String(e) }))
  .then((o) => {
    out.textContent = JSON.stringify(o);
    (window as unknown as { wanVaeResult: Outcome }).wanVaeResult = o;
  });
