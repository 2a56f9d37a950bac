// The decoder worker: owns the WebGPU device and the decoder; all GPU work happens here. Exposed with
// comlink; frames go to the page through a proxied callback with their buffers transferred.
// Decodes run one at a time (the decoder queues them); cancel() stops the running and queued ones and
// resolves once they have ended (their buffers returned), so the page may start the next right after.
import * as Comlink from 'comlink';
import { WanVaeDecoder } from '../decoder';
import { DecoderError } from '../gpu/errors';
import { readLatents, type Latents } from '../model/latents';
import { defaultLatents, defaultWeights, EMBEDDED_DEFAULT_SOURCE } from '../model/default-model';
import { blobSource, bytesSource, urlSource, type WeightSource } from '../model/weight-source';
import { openWeights } from '../model/weights';
import { liveArenas } from '../runtime/arena';
import { fitPlan, type FitRequest } from '../plan/auto';
import { checkDecodeOptions } from '../options/check';
import type { Frame } from '../runtime/gpu-decoder';
import { plan, type Plan } from '../plan/planner';
import { hostLines } from '../plan/host-text';
import type { FitInfo, ModelInfo, PlanInfo, WeightsInput, WeightsRead, WorkerDecodeOptions, WorkerDecodeResult, WorkerStats, Wrapped } from './protocol';

let decoder: WanVaeDecoder | null = null;
/** decodes started and not yet ended: their cancel switch and their end (never rejects) */
const running = new Set<{ abort: AbortController; ended: Promise<unknown>; id?: number }>();

async function wrap<T>(fn: () => T | Promise<T>): Promise<Wrapped<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (e instanceof DecoderError) return { ok: false, code: e.code, message: e.message };
    return { ok: false, code: 'internal', message: `internal error in the decoder worker: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
  }
}

/** Cancel every running and queued decode and wait until they have ended. */
async function cancelAll(): Promise<void> {
  const all = [...running];
  for (const r of all) r.abort.abort();
  await Promise.all(all.map((r) => r.ended));
}

function need(): WanVaeDecoder {
  if (!decoder) throw new DecoderError('bad-input', 'no model loaded: call load() first');
  return decoder;
}

/** The source of `weights` (not null) named `name` in messages. */
function weightSource(weights: Exclude<WeightsInput, null>, name: string): WeightSource | Promise<WeightSource> {
  if (weights instanceof Uint8Array) return bytesSource(weights, name);
  if (weights instanceof Blob) return blobSource(weights, name);
  return urlSource(weights.url, name);
}

function planInfo(p: Plan): PlanInfo {
  return {
    plannedPeakGpuBytes: p.memory.total,
    memory: { ...p.memory },
    frames: p.framesOut,
    height: p.height,
    width: p.width,
    largestBufferBytes: p.largestBuffer,
    storeWhere: p.storeWhere,
    hostStoreBytes: p.hostStoreBytes,
    host: { total: p.host.total, lines: hostLines(p, plan(p.cfg, { ...p.opts, frames: p.opts.frames + 1 })) },
    bus: { ...p.bus },
  };
}

const api = {
  /**
   * Load weights: a checkpoint's bytes, a Blob / File (safetensors or torch.save, any size: read by slices
   * as the GPU upload packs each tensor, never copied whole: the staged conv weights through the slice's
   * byte stream into one reused buffer, the rest through FileReaderSync), a URL (Range requests,
   * synchronous in this worker, so as lazy as a Blob; a server without Range: its body streamed once, every
   * decoder tensor read then), or the embedded default model when `weights` is null. `onRead` (a comlink
   * proxy of the page's callback) sees each tensor read for the first time, with the bytes of the file done:
   * at the first decode, when the upload reads them (the index alone is read here).
   */
  load(weights: WeightsInput, source: string, onRead?: (p: WeightsRead) => unknown): Promise<Wrapped<ModelInfo>> {
    return wrap(async () => {
      await cancelAll();
      decoder?.dispose();
      decoder = null;
      // the page may be gone before the upload ends: a progress call that fails is dropped
      const onProgress = onRead ? (p: WeightsRead) => void Promise.resolve(onRead(p)).catch(() => undefined) : undefined;
      decoder = weights ? new WanVaeDecoder(await openWeights(await weightSource(weights, source), { onProgress })) : new WanVaeDecoder(await defaultWeights());
      const c = decoder.cfg;
      return { version: c.version, dim: c.dim, zDim: c.zDim, scale: c.scale, params: decoder.weights.paramCount, source: weights ? source : EMBEDDED_DEFAULT_SOURCE };
    });
  },

  /** Parse latents (npy / safetensors / torch.save .pt) or make the embedded default latent. */
  latents(bytes: Uint8Array | null, source: string, key?: string): Promise<Wrapped<Latents>> {
    return wrap(() => (bytes ? readLatents(bytes, source, key) : defaultLatents()));
  },

  plan(shape: [number, number, number, number], opts: WorkerDecodeOptions = {}): Promise<Wrapped<PlanInfo>> {
    return wrap(() => planInfo(need().plan(shape, opts)));
  },

  /**
   * fitPlan: the tiles (with their store), precision and norm mode that fit `req` (budget and adapter
   * limits) for a latent [z, T, h, w] decoded with `opts` (cache, rgba); a 'limits' error says what the
   * smallest plan needs.
   */
  fit(shape: [number, number, number, number], opts: WorkerDecodeOptions, req: FitRequest): Promise<Wrapped<FitInfo>> {
    return wrap(() => {
      checkDecodeOptions(opts); // plan() and decode() check through the decoder
      const { plan: p, reason } = fitPlan(
        need().cfg,
        { frames: shape[1], h: shape[2], w: shape[3], cache: opts.cache ?? 'on', rgba: opts.rgba ?? false, weightsPrecision: opts.weightsPrecision, conv: opts.conv ?? 'auto' },
        req,
      );
      const o = p.opts;
      return {
        reason,
        options: {
          precision: o.precision,
          weightsPrecision: o.weightsPrecision ?? o.precision,
          tile: o.tile,
          cacheOffload: o.cacheOffload ? 'on' : 'off',
          weightsStream: p.weightStream ? 'on' : 'off',
          ...(p.weightStream ? { weightsStreamSlots: p.weightStream.slots } : {}),
          norm: o.norm,
          ...(o.norm === 'chunked' ? { normChunk: o.normChunk } : {}),
          conv: o.conv ?? 'direct',
        },
        plan: planInfo(p),
      };
    });
  },

  /**
   * `id`: the page's name for this decode, for cancelOne (per-item cancel of a shared client).
   * Backpressure: `onFrame` is the page's callback (a comlink proxy), whose reply comes when the page's
   * consumer has settled the frame (comlink awaits a returned Promise): that reply is the frame's credit.
   * The decoder hands out at most `opts.framesInFlight` frames without their reply (decode/frame-window.ts),
   * so a slow page holds the worker back instead of frames queueing in the page's message queue.
   */
  decode(latents: Latents, opts: WorkerDecodeOptions, onFrame?: (f: Frame) => unknown, id?: number): Promise<Wrapped<WorkerDecodeResult>> {
    const abort = new AbortController();
    // the callback is a comlink proxy on its own channel: wait until every frame has been delivered,
    // or the result (or the error) could overtake the last frames (at most framesInFlight are open)
    const delivered = new Set<Promise<unknown>>();
    const post = (f: Frame) => {
      const p = Promise.resolve(onFrame!(Comlink.transfer(f, f.rgba ? [f.rgb.buffer, f.rgba.buffer] : [f.rgb.buffer])));
      delivered.add(p);
      const drop = () => void delivered.delete(p);
      p.then(drop, drop);
      return p;
    };
    const job = (async () => {
      try {
        const r = await need().decode(latents, { ...opts, signal: abort.signal, onFrame: onFrame ? post : undefined });
        const { video, ...rest } = r;
        const out: WorkerDecodeResult = { ...rest, video: opts.collect === false ? null : video };
        return out.video ? Comlink.transfer(out, [out.video.buffer]) : out;
      } finally {
        await Promise.allSettled([...delivered]);
      }
    })();
    const entry = { abort, ended: job.catch(() => undefined), id };
    running.add(entry);
    void entry.ended.then(() => running.delete(entry));
    return wrap(() => job);
  },

  /**
   * Cancel the running decode and any queued ones: they reject with 'cancelled' within one chunk. Resolves
   * once they have ended and their buffers are back (the decoder stays usable).
   */
  cancel(): Promise<void> {
    return cancelAll();
  },

  /** Cancel the decodes started with `ids` (running or queued: they reject with 'cancelled'); resolves once they have ended. */
  async cancelOne(ids: number[]): Promise<void> {
    const some = [...running].filter((r) => r.id !== undefined && ids.includes(r.id));
    for (const r of some) r.abort.abort();
    await Promise.all(some.map((r) => r.ended));
  },

  /**
   * Fault injection: destroy the worker's GPU device, as a GPU reset would. A running decode ends with
   * 'device-lost'; the next decode requests a new device by itself.
   */
  loseDevice(): Promise<Wrapped<void>> {
    return wrap(() => need().loseDevice());
  },

  /**
   * Memory held in the worker now: GPU bytes and buffers of every arena (what a decoder keeps between
   * decodes) and the JS heap where the engine reports it (Chromium's performance.memory), else null.
   */
  stats(): WorkerStats {
    const heap = (performance as { memory?: { usedJSHeapSize?: number } }).memory?.usedJSHeapSize;
    return { gpuBytes: liveArenas.bytes, gpuBuffers: liveArenas.buffers, jsHeapBytes: typeof heap === 'number' ? heap : null };
  },

  /** Cancel running decodes, then free every GPU buffer. */
  async dispose(): Promise<void> {
    await cancelAll();
    decoder?.dispose();
    decoder = null;
  },
};

export type DecoderWorkerApi = typeof api;
/** Serve `api` to the page (called once by worker-entry.ts: no import-time side effects here, `sideEffects: false`). */
export function exposeDecoderWorker(): void {
  Comlink.expose(api);
}
