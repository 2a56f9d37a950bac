// Page side of the worker API: spawns the decoder worker, wraps it with comlink, and turns the worker's
// {code, message} results back into DecoderError.
import * as Comlink from 'comlink';
import { DecoderError } from '../gpu/errors';
import type { Latents } from '../model/latents';
import type { FitRequest } from '../plan/auto';
import type { Frame } from '../runtime/gpu-decoder';
import type { DecoderWorkerApi } from './decoder.worker';
import { startWorker } from './spawn';
import type { FitInfo, ModelInfo, PlanInfo, WeightsInput, WeightsRead, WorkerDecodeOptions, WorkerDecodeResult, WorkerStats, Wrapped } from './protocol';

function unwrap<T>(w: Wrapped<T>): T {
  if (w.ok) return w.value;
  throw new DecoderError(w.code, w.message);
}

export interface DecoderClient {
  model: ModelInfo;
  latents(bytes: Uint8Array | null, source?: string, key?: string): Promise<Latents>;
  plan(shape: [number, number, number, number], opts?: WorkerDecodeOptions): Promise<PlanInfo>;
  /** fitPlan in the worker: throws DecoderError('limits') when no plan fits */
  fit(shape: [number, number, number, number], opts: WorkerDecodeOptions, req: FitRequest): Promise<FitInfo>;
  /**
   * Decodes run one at a time in the worker (a second call waits for the first). Rejects with
   * DecoderError: 'cancelled' after cancel(), 'disposed' after dispose(), 'device-lost' (the next decode
   * gets a new device), 'oom' when no smaller plan fits, ... Backpressure: `onFrame` may return a
   * Promise; the worker runs at most `opts.framesInFlight` (default 4) frames ahead of the ones settled,
   * a rejection ends the decode with that error, a cancel settles the waiting frames at once.
   */
  decode(latents: Latents, opts?: WorkerDecodeOptions, onFrame?: (f: Frame) => unknown, signal?: AbortSignal): Promise<WorkerDecodeResult>;
  /**
   * Cancel the running (and queued) decodes of this client (with share(): of this handle only); resolves
   * once they have stopped and returned their buffers. `signal` in decode() cancels one decode.
   */
  cancel(): Promise<void>;
  /**
   * Another handle on the same worker, device and weights (nothing is loaded again): for a second caller
   * in the page. Its decodes queue with the others in the worker; its cancel() and signals stop its own
   * decodes only; the worker ends when the last handle is disposed.
   */
  share(): DecoderClient;
  /** Fault injection: destroy the worker's GPU device (a running decode ends with 'device-lost'). */
  loseDevice(): Promise<void>;
  /** Memory held in the worker now (GPU bytes of every arena, JS heap where known). */
  stats(): Promise<WorkerStats>;
  /** dispose the decoder and terminate the worker; calls in flight reject with 'disposed' */
  dispose(): void;
}

/**
 * Start a decoder worker and load a model in it: a checkpoint (safetensors or torch.save; official,
 * diffusers or ComfyUI names) as bytes, as a Blob / File (read by slices in the worker, any size), as a
 * URL (`{ url }`: read by Range requests in the worker), or null for the embedded default. All GPU work
 * happens in the worker. `onWeights`: each tensor read for the first time with the bytes of the file done
 * and in all (the API's WeightsProgress; the reads happen when the first decode uploads the weights).
 */
export async function createDecoder(weights: WeightsInput, source = 'weights.safetensors', o: { onWeights?: (p: WeightsRead) => void } = {}): Promise<DecoderClient> {
  const worker = await startWorker(); // its file, else the inline copy (spawn.ts)
  const api = Comlink.wrap<DecoderWorkerApi>(worker);
  let model: ModelInfo;
  // a worker that fails to load (bad bundle, CSP) only reports through its error event
  const failed = new Promise<never>((_, reject) =>
    worker.addEventListener('error', (ev) => reject(new DecoderError('no-webgpu', `the decoder worker failed to start: ${ev.message || 'error event'}`)), { once: true }),
  );
  const onRead = o.onWeights ? Comlink.proxy(o.onWeights) : undefined;
  try {
    // a Blob / File is posted as a handle (no copy): the worker reads it by slices
    model = unwrap(await Promise.race([weights instanceof Uint8Array ? api.load(Comlink.transfer(weights, [weights.buffer]), source, onRead) : api.load(weights, source, onRead), failed]));
  } catch (e) {
    worker.terminate();
    throw e;
  }
  // calls in flight reject when the worker goes away (dispose, or a crash after start), instead of hanging
  const inflight = new Set<(e: DecoderError) => void>();
  let gone: DecoderError | null = null;
  const call = <T>(fn: () => Promise<T>): Promise<T> => {
    if (gone) return Promise.reject(gone);
    return new Promise<T>((resolve, reject) => {
      inflight.add(reject);
      fn()
        .then(resolve, reject)
        .finally(() => inflight.delete(reject));
    });
  };
  const end = (e: DecoderError) => {
    gone ??= e;
    for (const reject of inflight) reject(e);
    inflight.clear();
  };
  worker.addEventListener('error', (ev) => end(new DecoderError('internal', `the decoder worker crashed: ${ev.message || 'error event'}`)));
  let handles = 0;
  let nextId = 1;
  const makeHandle = (): DecoderClient => {
    handles++;
    // this handle's decodes not yet ended, by id (per-item cancel in the worker)
    const mine = new Set<number>();
    // this handle's decodes: settle the frames their consumers still hold (cancel, dispose), so the worker stops at once
    const release = new Set<() => void>();
    const releaseMine = () => {
      for (const r of release) r();
    };
    let closed: DecoderError | null = null;
    const mcall = <T>(fn: () => Promise<T>): Promise<T> => (closed ? Promise.reject(closed) : call(fn));
    const cancelMine = () => (mine.size ? call(() => api.cancelOne([...mine])) : Promise.resolve());
    const handle: DecoderClient = {
      model,
      latents: (bytes, src = 'latents', key) => mcall(async () => unwrap(await (bytes ? api.latents(Comlink.transfer(bytes, [bytes.buffer]), src, key) : api.latents(null, src, key)))),
      plan: (shape, opts = {}) => mcall(async () => unwrap(await api.plan(shape, opts))),
      fit: (shape, opts, req) => mcall(async () => unwrap(await api.fit(shape, opts, req))),
      decode: (latents, opts = {}, onFrame, signal) => {
        if (signal?.aborted) return Promise.reject(new DecoderError('cancelled', 'decode cancelled before it started'));
        const id = nextId++;
        mine.add(id);
        let released!: () => void;
        const releasing = new Promise<void>((r) => (released = r));
        release.add(released);
        const stop = () => {
          released();
          void call(() => api.cancelOne([id])).catch(() => undefined);
        };
        signal?.addEventListener('abort', stop, { once: true });
        // the worker's credit for a frame is this callback's reply: it comes when the consumer settles the
        // frame, or at once when the decode is cancelled; the consumer's own error is what decode rejects with
        let failed: { error: unknown } | null = null;
        const relay = onFrame
          ? Comlink.proxy(async (f: Frame) => {
              try {
                await Promise.race([onFrame(f), releasing]);
              } catch (error) {
                failed ??= { error };
                throw error;
              }
            })
          : undefined;
        return mcall(async () => unwrap(await api.decode(latents, opts, relay, id)))
          .catch((e: unknown) => {
            throw failed ? failed.error : e;
          })
          .finally(() => {
            mine.delete(id);
            release.delete(released);
            signal?.removeEventListener('abort', stop);
          });
      },
      // the only handle: every decode in the worker (as before share() existed); else this handle's
      cancel: () => {
        releaseMine();
        return gone || closed ? Promise.resolve() : handles === 1 ? call(() => api.cancel()) : cancelMine();
      },
      loseDevice: () => mcall(async () => unwrap(await api.loseDevice())),
      stats: () => mcall(() => api.stats()),
      share: () => {
        if (gone || closed) throw gone ?? closed;
        return makeHandle();
      },
      dispose: () => {
        if (gone || closed) return;
        releaseMine();
        closed = new DecoderError(
          'disposed',
          handles > 1 ? 'this decoder handle was disposed (the worker goes on for the other handles of share())' : 'the decoder was disposed (its worker is terminated): create a new one',
        );
        if (--handles > 0) {
          // other handles go on: only this one's decodes stop
          void cancelMine().catch(() => undefined);
          return;
        }
        end(closed);
        // the worker cancels its decodes and frees its buffers before it is terminated
        void Promise.race([api.dispose(), new Promise((r) => setTimeout(r, 5000))]).finally(() => worker.terminate());
      },
    };
    return handle;
  };
  return makeHandle();
}
