/** Posted once by the decoder worker when its code has loaded (src/worker/worker-entry.ts). */
export const WORKER_READY = 'wan-vae-webgpu:worker-ready';
