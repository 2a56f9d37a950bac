// The decoder facade used by the CLI, the worker and tests: weights + config, option checks (the schema,
// src/options/), latent de-normalisation, a plan per request, and the GPU (WebGPU, src/decode/gpu-session.ts)
// or CPU (reference, src/decode/cpu-path.ts) backend. Frames stream through onFrame.
// Reliability (issue 13): decodes on one decoder run one at a time (a second waits its turn); an
// AbortSignal stops a decode between chunks ('cancelled') and leaves the decoder usable; GPU faults
// (out of memory: re-plan smaller; device lost) are handled by the GPU session.
import { DecoderError } from './gpu/errors';
import type { DecoderDevice } from './gpu/device';
import { framesFor, inferConfig, type DecoderConfig } from './model/config';
import type { Latents } from './model/latents';
import { denormalize, noStats, officialStats } from './model/stats';
import { loadWeights, type Weights } from './model/weights';
import type { Frame } from './runtime/assembler';
import { plan, type Plan } from './plan/planner';
import { checkDecodeOptions } from './options/check';
import { OPTIONS, WAN22_CACHE_OFF } from './options/schema';
import type { DecodeOptions, DecodeResult } from './options/decode-options';
import { GpuSession } from './decode/gpu-session';
import { decodeCpu } from './decode/cpu-path';
import { FrameWindow } from './decode/frame-window';

export type { Frame } from './runtime/assembler';
export type { DecodeOptions, DecodeResult, Replan } from './options/decode-options';

export class WanVaeDecoder {
  readonly cfg: DecoderConfig;
  private readonly gpu: GpuSession;
  /** the end of the last queued decode (never rejects) */
  private queue: Promise<void> = Promise.resolve();
  /** aborted by dispose(): stops the running and queued decodes */
  private readonly stop = new AbortController();
  /** decodes running or queued */
  private busy = 0;

  /** `gpu`: an existing device to decode on (default: request one on first GPU decode; after it is lost, a new one). */
  constructor(
    readonly weights: Weights,
    gpu?: DecoderDevice,
  ) {
    this.cfg = inferConfig(weights);
    this.gpu = new GpuSession(this.cfg, weights, this.stop.signal, gpu);
  }

  static fromSafetensors(bytes: Uint8Array, source: string): WanVaeDecoder {
    return new WanVaeDecoder(loadWeights(bytes, source));
  }

  /** Validate latents against the config and return the decoder input (latents · std + mean). */
  prepare(latents: Latents, stats: DecodeOptions['latentStats'] = 'official'): Float32Array {
    const [z, T, h, w] = latents.shape;
    if (z !== this.cfg.zDim)
      throw new DecoderError(
        'bad-input',
        `${latents.source ? `${latents.source}: ` : ''}latents have ${z} channels, the Wan${this.cfg.version} decoder (${this.weights.source}) expects ${this.cfg.zDim} (shape [${latents.shape}])`,
      );
    if (T < 1 || h < 1 || w < 1) throw new DecoderError('bad-input', `latents shape [${latents.shape}] has an empty dimension`);
    const s = stats === 'official' ? officialStats(z) : stats === 'none' ? noStats(z) : stats;
    return denormalize(latents.data, z, s);
  }

  /** Dry run: the plan of a decode of a latent [z, T, h, w] (no GPU touched). */
  plan(shape: [number, number, number, number], opts: DecodeOptions = {}): Plan {
    checkDecodeOptions(opts);
    const precision = opts.precision ?? OPTIONS.precision.default;
    // tensor cores (f16 only): the plan counts their operand copy; the GPU session re-plans without it where the device has none
    const weightsPrecision = opts.weightsPrecision ?? precision;
    // tensor cores read f16 weights (conv3d-mma) or int8 weights (dequant-int8 to f16 per conv); f16 weights beside f32 storage run the portable conv3d-wq
    return plan(this.cfg, {
      frames: shape[1],
      h: shape[2],
      w: shape[3],
      cache: opts.cache ?? OPTIONS.cache.default,
      precision,
      weightsPrecision,
      rgba: opts.rgba ?? OPTIONS.rgba.default,
      tile: opts.tile,
      cacheOffload: opts.cacheOffload === 'on',
      weightsStream: opts.weightsStream === 'on',
      weightsStreamSlots: opts.weightsStreamSlots,
      norm: opts.norm,
      normChunk: opts.normChunk,
      conv: opts.conv ?? OPTIONS.conv.default,
      tensorCores: (opts.tensorCores ?? OPTIONS.tensorCores.default) && precision === 'f16' && (weightsPrecision === 'f16' || weightsPrecision === 'int8'),
    });
  }

  /** The device's buffer limits (requests the device). */
  async gpuLimits(): Promise<{ maxStorageBufferBindingSize: number; maxBufferSize: number }> {
    const l = (await this.gpu.device()).device.limits;
    return { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize, maxBufferSize: l.maxBufferSize };
  }

  /** Whether the device offers shader-f16 (f16 storage). */
  async hasF16(): Promise<boolean> {
    return (await this.gpu.device()).f16;
  }

  /** Whether the device runs the convs on tensor cores (16x16x16 f16 -> f32 subgroup matrices): f16 plans then count their operand copy. */
  async hasTensorCores(): Promise<boolean> {
    return !!(await this.gpu.device()).mma;
  }

  /** GPU bytes this decoder holds now (the buffers it keeps for the next decode of the same plan; 0 after dispose). */
  get gpuBytes(): number {
    return this.gpu.bytes;
  }

  /**
   * Fault injection for tests and the demo's fault menu: destroys the current GPU device, as a GPU reset
   * or a driver crash would. A running decode ends with 'device-lost'; the next one gets a new device.
   */
  async loseDevice(): Promise<void> {
    return this.gpu.lose();
  }

  /**
   * Decode latents [z, T, h, w]. Decodes on one decoder run one after the other (a call made while one
   * runs waits for it). Rejects with DecoderError: 'cancelled' (opts.signal), 'disposed', 'oom' (no
   * smaller plan fits), 'device-lost' (the device is gone; the next decode requests a new one), ...
   */
  async decode(latents: Latents, opts: DecodeOptions = {}): Promise<DecodeResult> {
    if (this.stop.signal.aborted) throw new DecoderError('disposed', 'this decoder was disposed: create a new one');
    checkDecodeOptions(opts);
    const prev = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((r) => (release = r));
    this.busy++;
    try {
      await prev;
      this.throwIfStopped(opts.signal);
      return await this.decodeNow(latents, opts);
    } catch (e) {
      if (this.stop.signal.aborted && !(e instanceof DecoderError && e.code === 'device-lost')) throw new DecoderError('disposed', 'the decoder was disposed during the decode', { cause: e });
      if (opts.signal?.aborted && !(e instanceof DecoderError && (e.code === 'device-lost' || e.code === 'cancelled')))
        throw new DecoderError('cancelled', `decode cancelled${opts.signal.reason instanceof Error && opts.signal.reason.name !== 'AbortError' ? ` (${opts.signal.reason.message})` : ''}`, {
          cause: e,
        });
      throw e;
    } finally {
      this.busy--;
      release();
    }
  }

  private throwIfStopped(signal: AbortSignal | undefined): void {
    if (this.stop.signal.aborted) throw new DecoderError('disposed', 'this decoder was disposed: create a new one');
    if (signal?.aborted) throw new DecoderError('cancelled', 'decode cancelled before it started');
  }

  private async decodeNow(latents: Latents, opts: DecodeOptions): Promise<DecodeResult> {
    // defaults: the schema's (src/options/schema.ts)
    const cache = opts.cache ?? OPTIONS.cache.default,
      precision = opts.precision ?? OPTIONS.precision.default,
      backend = opts.backend ?? OPTIONS.backend.default;
    const norm = opts.norm ?? OPTIONS.norm.default,
      normChunk = norm === 'chunked' ? (opts.normChunk ?? OPTIONS.normChunk.default) : null;
    const statsName = typeof opts.latentStats === 'object' ? 'file' : (opts.latentStats ?? OPTIONS.latentStats.default);
    const input = this.prepare(latents, opts.latentStats);
    const [, T, h, w] = latents.shape;
    if (cache === 'off' && this.cfg.version === '2.2') throw new DecoderError('unsupported', WAN22_CACHE_OFF);
    if (backend === 'cpu' && precision !== 'f32') throw new DecoderError('bad-input', 'the CPU backend computes in f32/f64 only: precision f16 needs the webgpu backend');
    const frames = cache === 'off' ? T : framesFor(this.cfg, T);
    const H = h * this.cfg.scale,
      W = w * this.cfg.scale;
    const collect = opts.collect !== false;
    const video = new Float32Array(collect ? 3 * frames * H * W : 0);
    // frames arrive in order; after a re-plan the decode starts over and frames already delivered are not delivered again
    let delivered = 0;
    const { signal, unlink } = this.linkSignal(opts.signal);
    // backpressure: the backends await place(), which waits while framesInFlight frames are unsettled (decode/frame-window.ts)
    const inFlight = new FrameWindow(opts.framesInFlight ?? OPTIONS.framesInFlight.default, signal);
    const onFrame = opts.onFrame;
    const place = (f: Frame): unknown => {
      if (f.index < delivered) return;
      delivered = f.index + 1;
      if (collect) for (let c = 0; c < 3; c++) video.set(f.rgb.subarray(c * H * W, (c + 1) * H * W), (c * frames + f.index) * H * W);
      if (onFrame) return inFlight.give(() => onFrame(f));
    };
    const t0 = performance.now();
    const result: DecodeResult = {
      video,
      frames,
      height: H,
      width: W,
      seconds: 0,
      backend,
      adapter: 'cpu (reference)',
      options: { cache, precision, norm, normChunk, latentStats: statsName, tile: opts.tile ?? null, cacheOffload: false, tensorCores: false, weightsPrecision: opts.weightsPrecision ?? precision },
      replans: [],
    };
    try {
      // the CPU reference of packed weights: the same decode with the conv weights the GPU would hold
      if (backend === 'cpu') await decodeCpu(this.cfg, this.weights, input, latents.shape, cache, place, signal, opts.weightsPrecision);
      else await this.gpu.decode(this.plan(latents.shape, opts), input, place, { ...opts, signal }, result);
      await inFlight.drain(); // the decode ends when the consumer has settled every frame
    } finally {
      unlink();
    }
    result.seconds = (performance.now() - t0) / 1000;
    return result;
  }

  /** The caller's signal combined with dispose()'s; `unlink` removes the listeners when the decode ends. */
  private linkSignal(signal: AbortSignal | undefined): { signal: AbortSignal; unlink: () => void } {
    if (!signal) return { signal: this.stop.signal, unlink: () => undefined };
    const both = new AbortController();
    const fire = () => both.abort();
    if (signal.aborted || this.stop.signal.aborted) fire();
    signal.addEventListener('abort', fire, { once: true });
    this.stop.signal.addEventListener('abort', fire, { once: true });
    return {
      signal: both.signal,
      unlink: () => {
        signal.removeEventListener('abort', fire);
        this.stop.signal.removeEventListener('abort', fire);
      },
    };
  }

  /**
   * Free every GPU buffer. A running decode stops at its next chunk and rejects with 'disposed' (its
   * buffers are freed when it has stopped); later calls to decode reject with 'disposed'.
   */
  dispose(): void {
    this.stop.abort();
    const free = () => this.gpu.free();
    if (this.busy) void this.queue.then(free);
    else free();
  }
}
