// Plain Node 20: the trained default model through `wan-vae-webgpu/node` (its files read from the
// package's models/ next to dist/lib) and the files export (`wan-vae-webgpu/models/*`); one JSON line
// with the model's width, its sample's shapes and the plan of a decode (no GPU needed for any of it).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { trainedDefault, WanVaeDecoder } from 'wan-vae-webgpu/node';

const { weights, latents, clip, sample } = await trainedDefault();
const decoder = new WanVaeDecoder(weights);
const plan = decoder.plan(latents.shape);
decoder.dispose();
// the exported files: what a bundler or a server would copy
const card = fileURLToPath(import.meta.resolve('wan-vae-webgpu/models/README.md'));
const file = fileURLToPath(import.meta.resolve('wan-vae-webgpu/models/wan21-d32-decoder.safetensors'));
console.log(
  JSON.stringify({
    dim: decoder.cfg.dim,
    latents: latents.shape,
    clip: clip.shape,
    sample: sample.name,
    frames: plan.framesOut,
    size: [plan.width, plan.height],
    card: readFileSync(card, 'utf8').length > 0,
    weightBytes: readFileSync(file).length,
  }),
);
