// Plain Node 20 (no bundler, no TypeScript): decode the embedded default through Dawn (the optional
// peer dependency `webgpu`) and print one JSON line.
import { embeddedDefault, installNodeWebGPU, WanVaeDecoder } from 'wan-vae-webgpu/node';

await installNodeWebGPU(); // navigator.gpu from Dawn; a clear error when `webgpu` is not installed
const { weights, latents } = await embeddedDefault();
const decoder = new WanVaeDecoder(weights);
let streamed = 0;
const plan = decoder.plan(latents.shape);
const result = await decoder.decode(latents, { onFrame: () => streamed++ });
decoder.dispose();
console.log(JSON.stringify({ frames: result.frames, planned: plan.framesOut, streamed, size: [result.width, result.height], adapter: result.adapter }));
