// The GPU side of a decoder: its device (device.ts), the GpuDecoder built for the last plan (kept for
// the next decode of the same plan), and the fault loop: an out-of-memory fault (real, through error
// scopes or a device lost for memory, or injected: WAN_VAE_INJECT_OOM / injectOom) re-plans with the
// planner's next smaller plan and goes on without delivering a frame twice; any other device loss ends
// the decode with 'device-lost' and the next decode requests a new device.
import { DecoderError, summarizeGpuError } from '../gpu/errors';
import type { DecoderDevice } from '../gpu/device';
import type { DecoderConfig } from '../model/config';
import type { Weights } from '../model/weights';
import { conv3dTuningFor } from '../kernels/conv3d';
import { GpuDecoder } from '../runtime/gpu-decoder';
import type { Frame } from '../runtime/assembler';
import { destroyReleased, withOomInjection, type OomInjection } from '../runtime/arena';
import { fitPlan } from '../plan/auto';
import { DEFAULT_NORM_CHUNK, plan, type Plan } from '../plan/planner';
import { problem } from '../options/check';
import type { DecodeOptions, DecodeResult } from '../options/decode-options';
import { OPTIONS } from '../options/schema';
import { deviceTensorCores } from '../plan/conv-form';
import type { WeightPrepMode } from '../runtime/exec/weights';
import { DeviceSlot, lostWithin, OOM_TEXT, type GpuEntry } from './device';

/** The OOM injection of a decode: opts.injectOom, else WAN_VAE_INJECT_OOM from the environment (Node). */
function oomInjection(opt: DecodeOptions['injectOom']): OomInjection | null {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.WAN_VAE_INJECT_OOM;
  const v = String(opt ?? env ?? '');
  if (v === '' || v === '0') return null;
  const m = /^(\d+)(\+?)$/.exec(v);
  if (!m) throw new DecoderError('bad-input', `WAN_VAE_INJECT_OOM / injectOom ${problem('injectOom', v, 'api')}`);
  return { failAt: Number(m[1]), repeat: m[2] === '+', count: 0 };
}

export class GpuSession {
  private readonly slot: DeviceSlot;
  /** the GpuDecoder of the last plan and the device it lives on (a new device after a loss: rebuilt) */
  private gpu: { key: string; dec: GpuDecoder; device: GPUDevice } | null = null;
  /** how this session's decoders prepare the tensor-core weights (exec/weights.ts; benches compare 'js') */
  weightPrep: WeightPrepMode = 'gpu';

  /** `stop`: aborted by the decoder's dispose() (a GpuDecoder finished after it is freed at once). */
  constructor(
    private readonly cfg: DecoderConfig,
    private readonly weights: Weights,
    private readonly stop: AbortSignal,
    given?: DecoderDevice,
  ) {
    this.slot = new DeviceSlot(given);
  }

  device(): Promise<GpuEntry> {
    return this.slot.get();
  }

  /** GPU bytes held now (the buffers kept for the next decode of the same plan; 0 after free). */
  get bytes(): number {
    return this.gpu?.dec.arena.bytes.total ?? 0;
  }

  /** Free the GpuDecoder's buffers (the device stays). */
  free(): void {
    this.gpu?.dec.dispose();
    this.gpu = null;
  }

  /** Destroy the device, as a GPU reset would (fault injection). */
  lose(): Promise<void> {
    return this.slot.lose();
  }

  /** After a device loss: drop the device and everything on it; the next call requests a new device. */
  private forgetDevice(): void {
    this.free();
    this.slot.forget();
  }

  /** The GPU decode of `p` with re-planning after out-of-memory faults; fills `result`. */
  async decode(p: Plan, input: Float32Array, place: (f: Frame) => unknown, opts: DecodeOptions, result: DecodeResult): Promise<void> {
    const inj = oomInjection(opts.injectOom);
    if (opts.injectOomAfterFrame !== undefined) {
      const after = opts.injectOomAfterFrame,
        inner = place;
      let fired = false;
      place = (f) => {
        const r = inner(f);
        if (f.index === after && !fired) {
          fired = true;
          throw new DecoderError('oom', `injected out-of-memory after frame ${after} (as a failed submission would surface)`);
        }
        return r;
      };
    }
    for (;;) {
      const d = await this.slot.get();
      try {
        await this.run(d, p, input, place, opts, inj, result);
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
          throw new DecoderError(
            'device-lost',
            `the GPU device was lost during the decode (${info.reason}${info.message ? `: ${info.message}` : ''}); frames delivered before it are kept, the next decode requests a new device`,
            { cause: e },
          );
        }
        if (!(e instanceof DecoderError && e.code === 'oom') || opts.signal?.aborted) throw e;
        this.free();
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
    // the plan's norm mode first, then the others in the schema's order
    const norms = [o.norm, ...OPTIONS.norm.values.filter((n) => n !== o.norm)];
    try {
      return fitPlan(
        this.cfg,
        { frames: o.frames, h: o.h, w: o.w, cache: o.cache, rgba: o.rgba, tensorCores: o.tensorCores, weightsPrecision: o.weightsPrecision, conv: o.conv },
        {
          budget: p.memory.total - 1,
          limits: { maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize, maxBufferSize: limits.maxBufferSize },
          precisions: [o.precision],
          tile: 'auto',
          tileMode: o.tile?.mode ?? 'exact',
          tileOrder: o.tile?.order ?? 'tile-major',
          stores: o.tile?.order === 'frame-major' ? ['gpu'] : ['gpu', 'cpu'],
          // frame-major: parking the idle tiles' caches in CPU memory is exact too
          cacheOffloads: ['off', 'on'],
          // streamed conv weights are exact too
          weightsStreams: o.weightsStream ? ['on'] : ['off', 'on'],
          norms,
          normChunk: o.normChunk,
        },
      );
    } catch (e) {
      if (e instanceof DecoderError && e.code === 'limits') throw new DecoderError('oom', `${fault}; no smaller plan to fall back to (plan of ${p.memory.total} bytes): ${e.message}`, { cause: e });
      throw e;
    }
  }

  /** One attempt: (re)build the GPU decoder for `p` if needed and decode under error scopes, racing device loss. */
  private async run(d: GpuEntry, p: Plan, input: Float32Array, place: (f: Frame) => unknown, opts: DecodeOptions, inj: OomInjection | null, result: DecodeResult): Promise<void> {
    // tensor cores where the plan counted them and the device offers them; else the same plan without their operand copy (conv-form.ts)
    if (deviceTensorCores(p.opts, d.mma).replan) p = plan(this.cfg, { ...p.opts, tensorCores: false });
    const mma = deviceTensorCores(p.opts, d.mma).mma;
    const key = JSON.stringify([p.opts, !!mma]);
    if (this.gpu?.key !== key || this.gpu.device !== d.device) {
      // a new plan on the same device: the weights stay on the GPU, adopted by the new decoder
      const kept = this.gpu && this.gpu.device === d.device ? this.gpu.dec.releaseWeights(this.weights) : null;
      this.free();
      let dec: GpuDecoder;
      try {
        dec = await withOomInjection(inj, () => GpuDecoder.create(d.device, p, this.weights, { tuning: conv3dTuningFor(d.info), mma, reuse: kept, weightPrep: this.weightPrep }));
      } finally {
        if (kept) destroyReleased(kept.buffers.values());
      }
      if (this.stop.aborted) {
        dec.dispose();
        throw new DecoderError('disposed', 'the decoder was disposed while it was being built');
      }
      this.gpu = { key, dec, device: d.device };
    }
    const dec = this.gpu.dec;
    let onLost!: (info: GPUDeviceLostInfo) => void;
    const lost = new Promise<never>((_, reject) => (onLost = (info) => reject(new DecoderError('device-lost', `the GPU device was lost (${info.reason})`))));
    lost.catch(() => undefined);
    d.onLost.add(onLost);
    d.device.pushErrorScope('out-of-memory');
    d.device.pushErrorScope('validation');
    let failure: unknown = null;
    const ws0 = dec.weightStream && { ...dec.weightStream };
    const running = dec.decode(input, place, opts.signal);
    running.catch(() => undefined);
    try {
      await Promise.race([running, lost]);
    } catch (e) {
      failure = e;
    } finally {
      d.onLost.delete(onLost);
    }
    const [v, m] = await Promise.all([d.device.popErrorScope(), d.device.popErrorScope()]).catch(() => [null, null] as const);
    // (each chunk's submissions have scopes of their own, checked before the next goes out: GpuDecoder;
    // these catch the rest, e.g. the rings cleared between tiles)
    if (m) throw new DecoderError('oom', `out of GPU memory while decoding with the plan of ${p.memory.total} bytes: ${summarizeGpuError(m.message).text}`, { cause: failure });
    if (failure) throw failure;
    if (v) throw new DecoderError('validation', `a decode submission failed validation: ${summarizeGpuError(v.message).text}`);
    const o = p.opts;
    result.options = {
      ...result.options,
      precision: o.precision,
      tile: o.tile ?? null,
      cacheOffload: !!o.cacheOffload,
      norm: o.norm ?? 'full',
      normChunk: o.norm === 'chunked' ? (o.normChunk ?? DEFAULT_NORM_CHUNK) : null,
      tensorCores: !!mma,
      weightsPrecision: o.weightsPrecision ?? o.precision,
    };
    result.adapter = d.description;
    result.peakGpuBytes = dec.arena.peak;
    result.plannedPeakGpuBytes = p.memory.total;
    result.memory = { ...dec.arena.bytes };
    result.startup = { ...dec.build, prep: { ...dec.build.prep } };
    const ws = dec.weightStream;
    if (ws && ws0) result.weightStream = { uploads: ws.uploads - ws0.uploads, uploadedBytes: ws.uploadedBytes - ws0.uploadedBytes, waitMs: ws.waitMs - ws0.waitMs, copyMs: ws.copyMs - ws0.copyMs }; // this decode's: the stream counts since the build
  }
}
