// The decoder facade used by the CLI, the worker and tests: weights + config, latent de-normalisation,
// a plan per request, and the GPU (WebGPU) or CPU (reference) backend. Frames stream through onFrame.
import { CpuDecoder } from './cpu/decoder';
import { DecoderError } from './gpu/errors';
import { requestDecoderDevice, type DecoderDevice } from './gpu/device';
import { framesFor, inferConfig, type DecoderConfig } from './model/config';
import type { Latents } from './model/latents';
import { denormalize, noStats, officialStats, type LatentStats } from './model/stats';
import { loadWeights, type Weights } from './model/weights';
import { conv3dTuningFor } from './kernels/conv3d';
import { GpuDecoder } from './runtime/gpu-decoder';
import type { Frame } from './runtime/assembler';
import { DEFAULT_NORM_CHUNK, plan, type MemoryBreakdown, type Plan, type Precision, type TileOption } from './runtime/planner';
import type { NormMode } from './runtime/graph';

export type { Frame } from './runtime/assembler';

export interface DecodeOptions {
  backend?: 'webgpu' | 'cpu';
  /** 'on': exact causal cache; 'off': the official feat_cache=None per-frame loop (Wan2.1 only, T frames) */
  cache?: 'on' | 'off';
  /** storage precision on the GPU (accumulation is always f32) */
  precision?: Precision;
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
  signal?: AbortSignal;
  onFrame?: (f: Frame) => void;
}

export interface DecodeResult {
  /** [3, frames, height, width], clamped to [-1, 1] */
  video: Float32Array;
  frames: number;
  height: number;
  width: number;
  seconds: number;
  backend: 'webgpu' | 'cpu';
  adapter: string;
  options: { cache: 'on' | 'off'; precision: Precision; norm: NormMode['mode']; normChunk: number | null; latentStats: string; tile: TileOption | null; tensorCores: boolean };
  /** measured by the arena (GPU only) */
  peakGpuBytes?: number;
  plannedPeakGpuBytes?: number;
  memory?: MemoryBreakdown;
}

export class WanVaeDecoder {
  readonly cfg: DecoderConfig;
  private device: Promise<{ device: GPUDevice; description: string; info: DecoderDevice['info']; f16: boolean; mma: { subgroupSize: number } | null }> | null = null;
  private gpu: { key: string; dec: GpuDecoder } | null = null;

  /** `gpu`: an existing device to decode on (default: request one on first GPU decode). */
  constructor(
    readonly weights: Weights,
    private readonly gpuIn?: DecoderDevice,
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
    return plan(this.cfg, { frames: shape[1], h: shape[2], w: shape[3], cache: opts.cache ?? 'on', precision: opts.precision ?? 'f32', rgba: opts.rgba ?? false, tile: opts.tile, norm: opts.norm, normChunk: opts.normChunk });
  }

  private async gpuDevice() {
    this.device ??= (this.gpuIn ? Promise.resolve(this.gpuIn) : requestDecoderDevice({ wantF16: true })).then((d) => {
      const i = d.info;
      return { device: d.device, description: [i.vendor, i.architecture, i.description].filter(Boolean).join(' / ') || 'unknown adapter', info: i, f16: d.f16, mma: d.mma ?? null };
    });
    return this.device;
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

  async decode(latents: Latents, opts: DecodeOptions = {}): Promise<DecodeResult> {
    const cache = opts.cache ?? 'on', precision = opts.precision ?? 'f32', backend = opts.backend ?? 'webgpu';
    const norm = opts.norm ?? 'full', normChunk = norm === 'chunked' ? (opts.normChunk ?? DEFAULT_NORM_CHUNK) : null;
    const statsName = typeof opts.latentStats === 'object' ? 'file' : (opts.latentStats ?? 'official');
    const input = this.prepare(latents, opts.latentStats);
    const [z, T, h, w] = latents.shape;
    if (cache === 'off' && this.cfg.version === '2.2')
      throw new DecoderError('unsupported', 'cache off is not possible for Wan2.2: with feat_cache=None its DupUp3D shortcut doubles time while the main path does not, and the official code raises a shape error');
    const frames = cache === 'off' ? T : framesFor(this.cfg, T);
    const H = h * this.cfg.scale, W = w * this.cfg.scale;
    const video = new Float32Array(3 * frames * H * W);
    const place = (f: Frame) => {
      for (let c = 0; c < 3; c++) video.set(f.rgb.subarray(c * H * W, (c + 1) * H * W), (c * frames + f.index) * H * W);
      opts.onFrame?.(f);
    };
    const t0 = performance.now();
    const result: DecodeResult = { video, frames, height: H, width: W, seconds: 0, backend, adapter: 'cpu (reference)', options: { cache, precision, norm, normChunk, latentStats: statsName, tile: opts.tile ?? null, tensorCores: false } };
    if (backend === 'cpu') {
      if (precision !== 'f32') throw new DecoderError('bad-input', 'the CPU backend computes in f32/f64 only: precision f16 needs the webgpu backend');
      let index = 0;
      await new CpuDecoder(this.cfg, this.weights).decode({ data: input, shape: [z, T, h, w] }, {
        useCache: cache === 'on',
        signal: opts.signal,
        onChunk: (chunk) => {
          const n = chunk.shape[1]!;
          for (let f = 0; f < n; f++) {
            const rgb = new Float32Array(3 * H * W);
            for (let c = 0; c < 3; c++) rgb.set(chunk.data.subarray((c * n + f) * H * W, (c * n + f + 1) * H * W), c * H * W);
            place({ index: index++, rgb });
          }
        },
      });
    } else {
      const p = this.plan(latents.shape, opts);
      const d = await this.gpuDevice();
      const mma = opts.tensorCores === true && precision === 'f16' && d.mma ? d.mma : null;
      result.options.tensorCores = !!mma;
      const key = JSON.stringify([latents.shape, cache, precision, norm, normChunk, opts.rgba ?? false, opts.tile ?? null, !!mma]);
      if (this.gpu?.key !== key) {
        this.gpu?.dec.dispose();
        this.gpu = null;
        this.gpu = { key, dec: await GpuDecoder.create(d.device, p, this.weights, { tuning: conv3dTuningFor(d.info), mma }) };
      }
      await this.gpu.dec.decode(input, place, opts.signal);
      result.adapter = d.description;
      result.peakGpuBytes = this.gpu.dec.arena.peak;
      result.plannedPeakGpuBytes = p.memory.total;
      result.memory = { ...this.gpu.dec.arena.bytes };
    }
    result.seconds = (performance.now() - t0) / 1000;
    return result;
  }

  dispose(): void {
    this.gpu?.dec.dispose();
    this.gpu = null;
  }
}
