// Node only: a pool of decoders, one per GPU adapter (Dawn), sharing one host copy of the weights. Each
// adapter gets its own Dawn GPU object (`create(['adapter=NAME'])`, the selection the npm `webgpu`
// package documents), one device and one WanVaeDecoder; the decoder uploads the weights to its device
// once and keeps them (a new latent size re-plans and adopts the same buffers: gpu-decoder releaseWeights).
// Decodes are queued in arrival order and each goes to the first decoder that is free; per item:
// progress (onFrame), cancel (signal: a queued item leaves the queue at once, a running one stops
// between chunks) and its own result or error, with the adapter it ran on.
import { DecoderError } from '../gpu/errors';
import { requestDecoderDevice } from '../gpu/device';
import type { Latents } from '../model/latents';
import type { Weights } from '../model/weights';
import { WanVaeDecoder } from '../decoder';
import type { DecodeOptions, DecodeResult } from '../options/decode-options';
import { installNodeWebGPU, loadDawn } from './install-webgpu';

/** The adapters Dawn offers in this process (names as `create(['adapter=NAME'])` takes them). */
export async function listAdapters(): Promise<string[]> {
  await installNodeWebGPU(); // the Vulkan ICD choice and globals, as for a single decoder
  const { create } = await loadDawn();
  // Dawn lists the adapters in the error of an adapter name that matches none (the package's README)
  try {
    await create(['adapter=no-adapter-is-named-this']).requestAdapter();
  } catch (e) {
    const names = [...String((e as Error).message).matchAll(/name: '([^']+)'/g)].map((m) => m[1]!);
    if (names.length) return names;
    throw new DecoderError('no-webgpu', `could not list the WebGPU adapters: ${(e as Error).message}`, { cause: e });
  }
  throw new DecoderError('no-webgpu', 'could not list the WebGPU adapters: Dawn accepted an adapter name that should match none');
}

interface Job {
  latents: Latents;
  opts: DecodeOptions;
  resolve: (r: PoolResult) => void;
  reject: (e: unknown) => void;
}

export interface PoolResult extends DecodeResult {
  /** the pool member that decoded it (index into members) and its adapter name */
  member: number;
  memberName: string;
}

export class DecoderPool {
  private readonly queue: Job[] = [];
  private readonly busy = new Set<number>();
  private disposed = false;

  private constructor(
    /** `gpu`: the member's Dawn GPU object, kept referenced: Dawn processes its device's events only while it lives */
    readonly members: { name: string; gpu: GPU; decoder: WanVaeDecoder }[],
  ) {}

  /**
   * One decoder per adapter: `adapters` (names or substrings Dawn matches; default every adapter
   * listAdapters() finds). The weights are shared (one host copy); each device gets its own upload.
   * `dawnFlags`: more Dawn toggles for every member (the CLI's --dawn-flags; on NVIDIA shader-f16 and the
   * tensor cores need `enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia`).
   */
  static async create(weights: Weights, opts: { adapters?: string[]; dawnFlags?: string[] } = {}): Promise<DecoderPool> {
    const names = opts.adapters ?? (await listAdapters());
    if (!names.length) throw new DecoderError('bad-input', 'a decoder pool needs at least one adapter');
    const { create } = await loadDawn();
    const members = await Promise.all(
      names.map(async (name) => {
        const gpu = create([`adapter=${name}`, ...(opts.dawnFlags ?? [])]);
        const adapter = await gpu.requestAdapter();
        if (!adapter) throw new DecoderError('no-webgpu', `adapter '${name}': requestAdapter() returned null`);
        return { name, gpu, decoder: new WanVaeDecoder(weights, await requestDecoderDevice({ adapter })) };
      }),
    );
    return new DecoderPool(members);
  }

  get size(): number {
    return this.members.length;
  }

  /** Decodes queued or running now. */
  get pending(): number {
    return this.queue.length + this.busy.size;
  }

  /** Queue a decode; it runs on the first free member. Rejects as WanVaeDecoder.decode does ('cancelled' also while queued). */
  decode(latents: Latents, opts: DecodeOptions = {}): Promise<PoolResult> {
    if (this.disposed) return Promise.reject(new DecoderError('disposed', 'this decoder pool was disposed'));
    if (opts.signal?.aborted) return Promise.reject(new DecoderError('cancelled', 'decode cancelled before it started'));
    return new Promise<PoolResult>((resolve, reject) => {
      const job: Job = { latents, opts, resolve, reject };
      this.queue.push(job);
      // a queued item leaves the queue at once when cancelled
      opts.signal?.addEventListener(
        'abort',
        () => {
          const i = this.queue.indexOf(job);
          if (i >= 0) {
            this.queue.splice(i, 1);
            reject(new DecoderError('cancelled', 'decode cancelled while queued'));
          }
        },
        { once: true },
      );
      this.dispatch();
    });
  }

  /** Hands queued jobs to free members, in order. */
  private dispatch(): void {
    for (let m = 0; m < this.members.length && this.queue.length; m++) {
      if (this.busy.has(m)) continue;
      const job = this.queue.shift()!;
      this.busy.add(m);
      const member = this.members[m]!;
      member.decoder
        .decode(job.latents, job.opts)
        .then((r) => job.resolve({ ...r, member: m, memberName: member.name }), job.reject)
        .finally(() => {
          this.busy.delete(m);
          this.dispatch();
        });
    }
  }

  /** Rejects the queued decodes ('disposed'), stops the running ones and frees every device's buffers. */
  dispose(): void {
    this.disposed = true;
    for (const j of this.queue.splice(0)) j.reject(new DecoderError('disposed', 'the decoder pool was disposed'));
    for (const m of this.members) m.decoder.dispose();
  }
}
