// Page side of the worker API: spawns the decoder worker, wraps it with comlink, and turns the worker's
// {code, message} results back into DecoderError.
import * as Comlink from 'comlink';
import { DecoderError } from '../gpu/errors';
import type { Latents } from '../model/latents';
import type { FitRequest } from '../runtime/auto';
import type { Frame } from '../runtime/gpu-decoder';
import type { DecoderWorkerApi } from './decoder.worker';
import type { FitInfo, ModelInfo, PlanInfo, WorkerDecodeOptions, WorkerDecodeResult, Wrapped } from './protocol';

function unwrap<T>(w: Wrapped<T>): T {
  if (w.ok) return w.value;
  throw new DecoderError(w.code === 'internal' ? 'validation' : w.code, w.message);
}

export interface DecoderClient {
  model: ModelInfo;
  latents(bytes: Uint8Array | null, source?: string, key?: string): Promise<Latents>;
  plan(shape: [number, number, number, number], opts?: WorkerDecodeOptions): Promise<PlanInfo>;
  /** fitPlan in the worker: throws DecoderError('limits') when no plan fits */
  fit(shape: [number, number, number, number], opts: WorkerDecodeOptions, req: FitRequest): Promise<FitInfo>;
  decode(latents: Latents, opts?: WorkerDecodeOptions, onFrame?: (f: Frame) => void): Promise<WorkerDecodeResult>;
  cancel(): Promise<void>;
  /** dispose the decoder and terminate the worker */
  dispose(): void;
}

/**
 * Start a decoder worker and load a model in it: safetensors bytes (official, diffusers or ComfyUI names)
 * or null for the embedded default. All GPU work happens in the worker.
 */
export async function createDecoder(weights: Uint8Array | null, source = 'weights.safetensors'): Promise<DecoderClient> {
  const worker = new Worker(new URL('./decoder.worker.ts', import.meta.url), { type: 'module' });
  const api = Comlink.wrap<DecoderWorkerApi>(worker);
  let model: ModelInfo;
  // a worker that fails to load (bad bundle, CSP) only reports through its error event
  const failed = new Promise<never>((_, reject) =>
    worker.addEventListener('error', (ev) => reject(new DecoderError('no-webgpu', `the decoder worker failed to start: ${ev.message || 'error event'}`)), { once: true }),
  );
  try {
    model = unwrap(await Promise.race([weights ? api.load(Comlink.transfer(weights, [weights.buffer]), source) : api.load(null, source), failed]));
  } catch (e) {
    worker.terminate();
    throw e;
  }
  return {
    model,
    latents: async (bytes, src = 'latents', key) =>
      unwrap(await (bytes ? api.latents(Comlink.transfer(bytes, [bytes.buffer]), src, key) : api.latents(null, src, key))),
    plan: async (shape, opts = {}) => unwrap(await api.plan(shape, opts)),
    fit: async (shape, opts, req) => unwrap(await api.fit(shape, opts, req)),
    decode: async (latents, opts = {}, onFrame) => unwrap(await api.decode(latents, opts, onFrame ? Comlink.proxy(onFrame) : undefined)),
    cancel: () => api.cancel(),
    dispose: () => {
      void api.dispose().finally(() => worker.terminate());
    },
  };
}
