// The decoder facade used by the CLI, the worker and tests: weights + config, latent de-normalisation,
// a plan per request, and the GPU (WebGPU) or CPU (reference) backend. Frames stream through onFrame.
// Reliability (issue 13): decodes on one decoder run one at a time (a second waits its turn); an
// AbortSignal stops a decode between chunks ('cancelled') and leaves the decoder usable; an out-of-memory
// fault (real, through error scopes, or injected: WAN_VAE_INJECT_OOM / injectOom) re-plans with the
// planner's next smaller plan and goes on without delivering a frame twice; a lost device ends the decode
// with 'device-lost' and the next decode requests a new device.
import { CpuDecoder } from './cpu/decoder';
import { DecoderError } from './gpu/errors';
import { requestDecoderDevice, type DecoderDevice } from './gpu/device';
import { framesFor, inferConfig, type DecoderConfig } from './model/config';
import type { Latents } from './model/latents';
import { denormalize, noStats, officialStats, type LatentStats } from './model/stats';
import { loadWeights, type Weights } from './model/weights';
import { weightsAs, type WeightsPrecision } from './model/quantize';
import { conv3dTuningFor } from './kernels/conv3d';
import { GpuDecoder } from './runtime/gpu-decoder';
import type { Frame } from './runtime/assembler';
import { withOomInjection, type OomInjection } from './runtime/arena';
import { fitPlan } from './plan/auto';
import { DEFAULT_NORM_CHUNK, plan, type MemoryBreakdown, type Plan, type Precision, type TileOption } from './plan/planner';
import type { NormMode } from './plan/graph';

export type { Frame } from './runtime/assembler';

export interface DecodeOptions {
  backend?: 'webgpu' | 'cpu';
  /** 'on': exact causal cache; 'off': the official feat_cache=None per-frame loop (Wan2.1 only, T frames) */
  cache?: 'on' | 'off';
  /** storage precision on the GPU (accumulation is always f32) */
  precision?: Precision;
  /**
   * storage of the conv weights (default: = precision): 'int8' (per-output-channel scales) or 'f16' (with
   * f32 storage) are dequantised in the portable conv's operand load: tensor cores are not used with int8
   */
  weightsPrecision?: WeightsPrecision;
  /** 'official' (by z: Wan2.1 16 / Wan2.2 48 channels), 'none' (already de-normalised) or explicit statistics */
  latentStats?: 'official' | 'none' | LatentStats;
  /** also produce RGBA8 frames (for display) */
  rgba?: boolean;
  /** spatial tiling (tile core in latent pixels, exact or blended, tile- or frame-major); default none */
  tile?: TileOption;
  /** where RMS_norm results live: 'full' (default, a separate tensor), 'chunked' (in place, normChunk px per dispatch), 'fused' (folded into the next conv) */
  norm?: NormMode['mode'];
  normChunk?: number;
  /**
   * tensor cores for the convs (conv3d-mma) where the device offers subgroup matrices and precision is
   * f16. Default false: correct, but slower than the portable conv today (README, H200 numbers).
   */
  tensorCores?: boolean;
  /** stops the decode between chunks: it rejects with DecoderError('cancelled'), the decoder stays usable */
  signal?: AbortSignal;
  onFrame?: (f: Frame) => void;
  /** keep the whole video in `result.video` (default true); false: frames only through onFrame, constant CPU memory */
  collect?: boolean;
  /**
   * fault injection: the N-th GPU buffer allocation of this decode (counted over its re-plans) fails as
   * out-of-memory; 'N+': that one and every later one (nothing fits). Default: the environment variable
   * WAN_VAE_INJECT_OOM where there is one (Node); 0 = none. A decode that reuses the previous decode's
   * buffers (same plan) allocates nothing.
   */
  injectOom?: number | `${number}+`;
  /** fault injection: an out-of-memory error surfaces after frame N has been delivered, as a failed submission would */
  injectOomAfterFrame?: number;
}

/** A plan used after a GPU fault: why the previous one failed and what replaced it. */
export interface Replan {
  /** the fault, e.g. the out-of-memory error's message */
  reason: string;
  /** the plan that replaced it (fitPlan's one line) */
  plan: string;
  plannedPeakGpuBytes: number;
}

export interface DecodeResult {
  /** [3, frames, height, width], clamped to [-1, 1]; empty with collect: false */
  video: Float32Array;
  frames: number;
  height: number;
  width: number;
  seconds: number;
  backend: 'webgpu' | 'cpu';
  adapter: string;
  options: { cache: 'on' | 'off'; precision: Precision; norm: NormMode['mode']; normChunk: number | null; latentStats: string; tile: TileOption | null; tensorCores: boolean; weightsPrecision: WeightsPrecision };
  /** measured by the arena (GPU only) */
  peakGpuBytes?: number;
  plannedPeakGpuBytes?: number;
  memory?: MemoryBreakdown;
  /** every plan used after a GPU fault, in order (empty: the first plan ran through) */
  replans: Replan[];
}

interface GpuEntry {
  device: GPUDevice;
  description: string;
  info: DecoderDevice['info'];
  f16: boolean;
  mma: { subgroupSize: number } | null;
  /** set once the device is lost */
  lost: GPUDeviceLostInfo | null;
  /**
   * called once when the device is lost. A set of callbacks, not races on device.lost: every reaction
   * attached to that never-settling promise would keep its closure (and a decode's video) alive.
   */
  onLost: Set<(info: GPUDeviceLostInfo) => void>;
}

/** True when `d` is lost now or within `ms` (a loss is reported asynchronously, after the errors it causes). */
function lostWithin(d: GpuEntry, ms: number): Promise<boolean> {
  if (d.lost) return Promise.resolve(true);
  return new Promise((resolve) => {
    const hit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      d.onLost.delete(hit);
      resolve(false);
    }, ms);
    d.onLost.add(hit);
  });
}

/** A device-lost message that says the device ran out of memory (Dawn: "vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY"). */
const OOM_TEXT = /out.?of.?(device.?|host.?)?memory|OutOfMemory/i;

/** The OOM injection of a decode: opts.injectOom, else WAN_VAE_INJECT_OOM from the environment (Node). */
function oomInjection(opt: DecodeOptions['injectOom']): OomInjection | null {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.WAN_VAE_INJECT_OOM;
  const v = String(opt ?? env ?? '');
  if (v === '' || v === '0') return null;
  const m = /^(\d+)(\+?)$/.exec(v);
  if (!m) throw new DecoderError('bad-input', `WAN_VAE_INJECT_OOM / injectOom must be N or N+ (the GPU buffer allocation of the decode to fail; + also every later one), got '${v}'`);
  return { failAt: Number(m[1]), repeat: m[2] === '+', count: 0 };
}

export class WanVaeDecoder {
  readonly cfg: DecoderConfig;
  private device: Promise<GpuEntry> | null = null;
  private gpu: { key: string; dec: GpuDecoder } | null = null;
  /** the end of the last queued decode (never rejects) */
  private queue: Promise<void> = Promise.resolve();
  /** aborted by dispose(): stops the running and queued decodes */
  private readonly stop = new AbortController();
  /** decodes running or queued */
  private busy = 0;

  /** `gpu`: an existing device to decode on (default: request one on first GPU decode; after it is lost, a new one). */
  constructor(
    readonly weights: Weights,
    private gpuIn?: DecoderDevice,
  ) {
    this.cfg = inferConfig(weights);
  }

  static fromSafetensors(bytes: Uint8Array, source: string): WanVaeDecoder {
    return new WanVaeDecoder(loadWeights(bytes, source));
  }

  /** Validate latents against the config and return the decoder input (latents · std + mean). */
  prepare(latents: Latents, stats: DecodeOptions['latentStats'] = 'official'): Float32Array {
    const [z, T, h, w] = latents.shape;
    if (z !== this.cfg.zDim)
      throw new DecoderError('bad-input', `${latents.source ? `${latents.source}: ` : ''}latents have ${z} channels, the Wan${this.cfg.version} decoder (${this.weights.source}) expects ${this.cfg.zDim} (shape [${latents.shape}])`);
    if (T < 1 || h < 1 || w < 1) throw new DecoderError('bad-input', `latents shape [${latents.shape}] has an empty dimension`);
    const s = stats === 'official' ? officialStats(z) : stats === 'none' ? noStats(z) : stats;
    return denormalize(latents.data, z, s);
  }

  /** Dry run: the plan of a decode of a latent [z, T, h, w] (no GPU touched). */
  plan(shape: [number, number, number, number], opts: DecodeOptions = {}): Plan {
    const precision = opts.precision ?? 'f32';
    // tensor cores (f16 only): the plan counts their operand copy; runGpu re-plans without it where the device has none
    const weightsPrecision = opts.weightsPrecision ?? precision;
    // tensor cores read f16 weights only: packed (int8) weights run the portable conv3d-wq
    return plan(this.cfg, { frames: shape[1], h: shape[2], w: shape[3], cache: opts.cache ?? 'on', precision, weightsPrecision, rgba: opts.rgba ?? false, tile: opts.tile, norm: opts.norm, normChunk: opts.normChunk, tensorCores: opts.tensorCores === true && precision === 'f16' && weightsPrecision === 'f16' });
  }

  private async gpuDevice(): Promise<GpuEntry> {
    this.device ??= (this.gpuIn ? Promise.resolve(this.gpuIn) : requestDecoderDevice({ wantF16: true })).then((d) => {
      const i = d.info;
      const e: GpuEntry = { device: d.device, description: [i.vendor, i.architecture, i.description].filter(Boolean).join(' / ') || 'unknown adapter', info: i, f16: d.f16, mma: d.mma ?? null, lost: null, onLost: new Set() };
      void d.device.lost.then((info) => {
        e.lost = info;
        for (const f of [...e.onLost]) f(info);
        e.onLost.clear();
      });
      return e;
    });
    // a device request that failed is not cached: the next call tries again
    this.device.catch(() => (this.device = null));
    const d = await this.device;
    if (!d.lost) return d;
    this.forgetDevice();
    return this.gpuDevice();
  }

  /** After a device loss: drop the device and everything on it; the next GPU call requests a new device. */
  private forgetDevice(): void {
    this.gpu?.dec.dispose();
    this.gpu = null;
    this.device = null;
    this.gpuIn = undefined;
  }

  /** The device's buffer limits (requests the device). */
  async gpuLimits(): Promise<{ maxStorageBufferBindingSize: number; maxBufferSize: number }> {
    const l = (await this.gpuDevice()).device.limits;
    return { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize, maxBufferSize: l.maxBufferSize };
  }

  /** Whether the device offers shader-f16 (f16 storage). */
  async hasF16(): Promise<boolean> {
    return (await this.gpuDevice()).f16;
  }

  /** GPU bytes this decoder holds now (the buffers it keeps for the next decode of the same plan; 0 after dispose). */
  get gpuBytes(): number {
    return this.gpu?.dec.arena.bytes.total ?? 0;
  }

  /**
   * Fault injection for tests and the demo's fault menu: destroys the current GPU device, as a GPU reset
   * or a driver crash would. A running decode ends with 'device-lost'; the next one gets a new device.
   */
  async loseDevice(): Promise<void> {
    if (this.device) (await this.device).device.destroy();
  }

  /**
   * Decode latents [z, T, h, w]. Decodes on one decoder run one after the other (a call made while one
   * runs waits for it). Rejects with DecoderError: 'cancelled' (opts.signal), 'disposed', 'oom' (no
   * smaller plan fits), 'device-lost' (the device is gone; the next decode requests a new one), ...
   */
  async decode(latents: Latents, opts: DecodeOptions = {}): Promise<DecodeResult> {
    if (this.stop.signal.aborted) throw new DecoderError('disposed', 'this decoder was disposed: create a new one');
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
        throw new DecoderError('cancelled', `decode cancelled${opts.signal.reason instanceof Error && opts.signal.reason.name !== 'AbortError' ? ` (${opts.signal.reason.message})` : ''}`, { cause: e });
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
    const cache = opts.cache ?? 'on', precision = opts.precision ?? 'f32', backend = opts.backend ?? 'webgpu';
    const norm = opts.norm ?? 'full', normChunk = norm === 'chunked' ? (opts.normChunk ?? DEFAULT_NORM_CHUNK) : null;
    const statsName = typeof opts.latentStats === 'object' ? 'file' : (opts.latentStats ?? 'official');
    const input = this.prepare(latents, opts.latentStats);
    const [, T, h, w] = latents.shape;
    if (cache === 'off' && this.cfg.version === '2.2')
      throw new DecoderError('unsupported', 'cache off is not possible for Wan2.2: with feat_cache=None its DupUp3D shortcut doubles time while the main path does not, and the official code raises a shape error');
    if (backend === 'cpu' && precision !== 'f32') throw new DecoderError('bad-input', 'the CPU backend computes in f32/f64 only: precision f16 needs the webgpu backend');
    const frames = cache === 'off' ? T : framesFor(this.cfg, T);
    const H = h * this.cfg.scale, W = w * this.cfg.scale;
    const collect = opts.collect !== false;
    const video = new Float32Array(collect ? 3 * frames * H * W : 0);
    // frames arrive in order; after a re-plan the decode starts over and frames already delivered are not delivered again
    let delivered = 0;
    const place = (f: Frame) => {
      if (f.index < delivered) return;
      delivered = f.index + 1;
      if (collect) for (let c = 0; c < 3; c++) video.set(f.rgb.subarray(c * H * W, (c + 1) * H * W), (c * frames + f.index) * H * W);
      opts.onFrame?.(f);
    };
    const t0 = performance.now();
    const result: DecodeResult = { video, frames, height: H, width: W, seconds: 0, backend, adapter: 'cpu (reference)', options: { cache, precision, norm, normChunk, latentStats: statsName, tile: opts.tile ?? null, tensorCores: false, weightsPrecision: opts.weightsPrecision ?? precision }, replans: [] };
    const { signal, unlink } = this.linkSignal(opts.signal);
    try {
      // the CPU reference of packed weights: the same decode with the conv weights the GPU would hold
      if (backend === 'cpu') await this.decodeCpu(input, latents.shape, cache, place, signal, opts.weightsPrecision);
      else await this.decodeGpu(this.plan(latents.shape, opts), input, place, { ...opts, signal }, result);
    } finally {
      unlink();
    }
    result.seconds = (performance.now() - t0) / 1000;
    return result;
  }

  private async decodeCpu(input: Float32Array, shape: Latents['shape'], cache: 'on' | 'off', place: (f: Frame) => void, signal: AbortSignal, wp: WeightsPrecision = 'f32'): Promise<void> {
    const H = shape[2] * this.cfg.scale, W = shape[3] * this.cfg.scale;
    let index = 0;
    await new CpuDecoder(this.cfg, weightsAs(this.weights, wp)).decode({ data: input, shape }, {
      useCache: cache === 'on',
      signal,
      onChunk: (chunk) => {
        const n = chunk.shape[1]!;
        for (let f = 0; f < n; f++) {
          const rgb = new Float32Array(3 * H * W);
          for (let c = 0; c < 3; c++) rgb.set(chunk.data.subarray((c * n + f) * H * W, (c * n + f + 1) * H * W), c * H * W);
          place({ index: index++, rgb });
        }
      },
    });
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

  /** The GPU decode with re-planning after out-of-memory faults; fills `result`. */
  private async decodeGpu(p: Plan, input: Float32Array, place: (f: Frame) => void, opts: DecodeOptions, result: DecodeResult): Promise<void> {
    const inj = oomInjection(opts.injectOom);
    if (opts.injectOomAfterFrame !== undefined) {
      const after = opts.injectOomAfterFrame, inner = place;
      let fired = false;
      place = (f) => {
        inner(f);
        if (f.index === after && !fired) {
          fired = true;
          throw new DecoderError('oom', `injected out-of-memory after frame ${after} (as a failed submission would surface)`);
        }
      };
    }
    for (;;) {
      const d = await this.gpuDevice();
      try {
        await this.runGpu(d, p, input, place, opts, inj, result);
        return;
      } catch (e) {
        if (await lostWithin(d, 50)) {
          this.forgetDevice();
          const info = d.lost!;
          // Dawn loses the device when an allocation inside a command (a staging buffer of writeBuffer, a
          // lazily allocated resource) runs out of memory (measured on an H200): that is an OOM, re-plan
          // smaller on a new device
          if (OOM_TEXT.test(info.message) && !opts.signal?.aborted) {
            p = this.nextPlan(p, d.device.limits, `out of GPU memory (the device was lost: ${info.message.split('\n')[0]})`, result);
            continue;
          }
          throw new DecoderError('device-lost', `the GPU device was lost during the decode (${info.reason}${info.message ? `: ${info.message}` : ''}); frames delivered before it are kept, the next decode requests a new device`, { cause: e });
        }
        if (!(e instanceof DecoderError && e.code === 'oom') || opts.signal?.aborted) throw e;
        this.gpu?.dec.dispose();
        this.gpu = null;
        p = this.nextPlan(p, d.device.limits, e.message, result);
      }
    }
  }

  /** The next smaller plan after `fault`, recorded in result.replans. */
  private nextPlan(p: Plan, limits: GPUSupportedLimits, fault: string, result: DecodeResult): Plan {
    const next = this.smallerPlan(p, limits, fault);
    result.replans.push({ reason: fault, plan: next.reason, plannedPeakGpuBytes: next.plan.memory.total });
    return next.plan;
  }

  /** The planner's next plan below `p` (same precision, exact levers first), or 'oom' with the smallest plan's size. */
  private smallerPlan(p: Plan, limits: GPUSupportedLimits, fault: string): { plan: Plan; reason: string } {
    const o = p.opts;
    const norms = [o.norm ?? 'full', ...(['full', 'chunked', 'fused'] as const).filter((n) => n !== (o.norm ?? 'full'))];
    try {
      return fitPlan(this.cfg, { frames: o.frames, h: o.h, w: o.w, cache: o.cache, rgba: o.rgba, tensorCores: o.tensorCores, weightsPrecision: o.weightsPrecision }, {
        budget: p.memory.total - 1,
        limits: { maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize, maxBufferSize: limits.maxBufferSize },
        precisions: [o.precision],
        tile: 'auto',
        tileMode: o.tile?.mode ?? 'exact',
        tileOrder: o.tile?.order ?? 'tile-major',
        stores: o.tile?.order === 'frame-major' ? ['gpu'] : ['gpu', 'cpu'],
        norms,
        normChunk: o.normChunk,
      });
    } catch (e) {
      if (e instanceof DecoderError && e.code === 'limits') throw new DecoderError('oom', `${fault}; no smaller plan to fall back to (plan of ${p.memory.total} bytes): ${e.message}`, { cause: e });
      throw e;
    }
  }

  /** One attempt: (re)build the GPU decoder for `p` if needed and decode under error scopes, racing device loss. */
  private async runGpu(d: GpuEntry, p: Plan, input: Float32Array, place: (f: Frame) => void, opts: DecodeOptions, inj: OomInjection | null, result: DecodeResult): Promise<void> {
    // tensor cores where the plan counted them and the device offers them; else the same plan without their operand copy
    if (p.opts.tensorCores && !d.mma) p = plan(this.cfg, { ...p.opts, tensorCores: false });
    const mma = p.opts.tensorCores && d.mma ? d.mma : null;
    const key = JSON.stringify([p.opts, !!mma]);
    if (this.gpu?.key !== key) {
      this.gpu?.dec.dispose();
      this.gpu = null;
      const dec = await withOomInjection(inj, () => GpuDecoder.create(d.device, p, this.weights, { tuning: conv3dTuningFor(d.info), mma }));
      if (this.stop.signal.aborted) {
        dec.dispose();
        throw new DecoderError('disposed', 'the decoder was disposed while it was being built');
      }
      this.gpu = { key, dec };
    }
    const dec = this.gpu.dec;
    let onLost!: (info: GPUDeviceLostInfo) => void;
    const lost = new Promise<never>((_, reject) => (onLost = (info) => reject(new DecoderError('device-lost', `the GPU device was lost (${info.reason})`))));
    lost.catch(() => undefined);
    d.onLost.add(onLost);
    d.device.pushErrorScope('out-of-memory');
    d.device.pushErrorScope('validation');
    let failure: unknown = null;
    const run = dec.decode(input, place, opts.signal);
    run.catch(() => undefined);
    try {
      await Promise.race([run, lost]);
    } catch (e) {
      failure = e;
    } finally {
      d.onLost.delete(onLost);
    }
    const [v, m] = await Promise.all([d.device.popErrorScope(), d.device.popErrorScope()]).catch(() => [null, null] as const);
    if (m) throw new DecoderError('oom', `out of GPU memory while decoding with the plan of ${p.memory.total} bytes: ${m.message}`, { cause: failure });
    if (failure) throw failure;
    if (v) throw new DecoderError('validation', `a decode submission failed validation: ${v.message}`);
    const o = p.opts;
    result.options = { ...result.options, precision: o.precision, tile: o.tile ?? null, norm: o.norm ?? 'full', normChunk: o.norm === 'chunked' ? (o.normChunk ?? DEFAULT_NORM_CHUNK) : null, tensorCores: !!mma, weightsPrecision: o.weightsPrecision ?? o.precision };
    result.adapter = d.description;
    result.peakGpuBytes = dec.arena.peak;
    result.plannedPeakGpuBytes = p.memory.total;
    result.memory = { ...dec.arena.bytes };
  }

  /**
   * Free every GPU buffer. A running decode stops at its next chunk and rejects with 'disposed' (its
   * buffers are freed when it has stopped); later calls to decode reject with 'disposed'.
   */
  dispose(): void {
    this.stop.abort();
    const free = () => {
      this.gpu?.dec.dispose();
      this.gpu = null;
    };
    if (this.busy) void this.queue.then(free);
    else free();
  }
}
