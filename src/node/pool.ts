// Node only: a pool of decoders, one per GPU adapter (Dawn), sharing one host copy of the weights. Each
// adapter gets its own Dawn GPU object (`create(['adapter=NAME'])`, the selection the npm `webgpu`
// package documents), one device and one WanVaeDecoder; the decoder uploads the weights to its device
// once and keeps them (a new latent size re-plans and adopts the same buffers: gpu-decoder releaseWeights).
// Decodes are queued in arrival order and each goes to the first decoder that is free; per item:
// progress (onFrame), cancel (signal: a queued item leaves the queue at once, a running one stops
// between chunks) and its own result or error, with the adapter it ran on.
import { existsSync } from 'node:fs';
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
   * listAdapters() finds; identical GPUs, e.g. two 'NVIDIA H200', by PCI bus: 'pci-0000_18_00_0', see
   * requestMemberAdapter). `allowSameAdapter`: accept one name twice, i.e. several members (devices, each with
   * its own copy of the weights) on one adapter, as the tests do with two lavapipe instances. The weights are shared (one host copy); each device gets its own upload.
   * `dawnFlags`: more Dawn toggles for every member (the CLI's --dawn-flags; on NVIDIA shader-f16 and the
   * tensor cores need `enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia`).
   */
  static async create(weights: Weights, opts: { adapters?: string[]; dawnFlags?: string[]; allowSameAdapter?: boolean } = {}): Promise<DecoderPool> {
    const names = opts.adapters ?? (await listAdapters());
    if (!names.length) throw new DecoderError('bad-input', 'a decoder pool needs at least one adapter');
    checkDistinct(names, opts.allowSameAdapter);
    const { create } = await loadDawn();
    const members: { name: string; gpu: GPU; decoder: WanVaeDecoder }[] = [];
    // one after another: a PCI selection sets the environment while that member's adapter is found
    for (const name of names) {
      const { gpu, adapter } = await requestMemberAdapter(create, name, opts.dawnFlags ?? []);
      if (!adapter) throw new DecoderError('no-webgpu', `adapter '${name}': requestAdapter() returned null`);
      members.push({ name, gpu, decoder: new WanVaeDecoder(weights, await requestDecoderDevice({ adapter })) });
    }
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

/** Mesa's device-select Vulkan layer (package mesa-vulkan-drivers): the only way to tell identical GPUs apart here. */
const DEVICE_SELECT_LAYER_DIRS = ['/usr/share/vulkan/implicit_layer.d', '/etc/vulkan/implicit_layer.d', '/usr/local/share/vulkan/implicit_layer.d'];
const PCI_SELECTION = /^pci-[0-9a-f]{4}_[0-9a-f]{2}_[0-9a-f]{2}_[0-7]$/;

/** Two members with one adapter name would both decode on the first GPU of that name (Dawn takes the first match). */
export function checkDistinct(names: string[], allowSameAdapter = false): void {
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i && !allowSameAdapter)
      throw new DecoderError(
        'bad-input',
        `adapter '${n}' is named twice: Dawn takes the first adapter whose name contains it, so both pool members would ` +
          `decode on one GPU; select identical GPUs by PCI bus instead ('pci-0000_18_00_0' for 0000:18:00.0, from lspci or ` +
          `nvidia-smi --query-gpu=pci.bus_id; needs Mesa's device-select Vulkan layer), or pass allowSameAdapter`,
      );
    if (n.startsWith('pci-') && !PCI_SELECTION.test(n)) throw new DecoderError('bad-input', `adapter '${n}': a PCI selection is written pci-DDDD_BB_SS_F (hex, e.g. pci-0000_18_00_0)`);
  });
}

/**
 * The member's Dawn GPU object and adapter. A name goes to Dawn's `adapter=` flag; a PCI selection
 * ('pci-0000_18_00_0') is handed to Mesa's device-select layer (DRI_PRIME in its PCI form, with only that
 * device exposed) while Dawn's Vulkan instance lists the physical devices, then the environment is restored.
 */
async function requestMemberAdapter(create: (flags: string[]) => GPU, name: string, dawnFlags: string[]): Promise<{ gpu: GPU; adapter: GPUAdapter | null }> {
  if (!name.startsWith('pci-')) {
    const gpu = create([`adapter=${name}`, ...dawnFlags]);
    return { gpu, adapter: await gpu.requestAdapter() };
  }
  const layer = [...DEVICE_SELECT_LAYER_DIRS, ...(process.env.VK_ADD_LAYER_PATH?.split(':') ?? [])].some((d) => existsSync(`${d}/VkLayer_MESA_device_select.json`));
  if (!layer || process.env.NODEVICE_SELECT === '1')
    throw new DecoderError(
      'no-webgpu',
      `adapter '${name}': selecting a GPU by PCI bus needs Mesa's device-select Vulkan layer (VkLayer_MESA_device_select.json in ${DEVICE_SELECT_LAYER_DIRS[0]}; Debian/Ubuntu package mesa-vulkan-drivers), not found or disabled by NODEVICE_SELECT`,
    );
  const keys = ['DRI_PRIME', 'MESA_VK_DEVICE_SELECT', 'MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE'] as const;
  const saved = keys.map((k) => process.env[k]);
  try {
    delete process.env.MESA_VK_DEVICE_SELECT; // it would take precedence over DRI_PRIME
    process.env.DRI_PRIME = name;
    process.env.MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE = '1';
    const gpu = create(dawnFlags);
    return { gpu, adapter: await gpu.requestAdapter() };
  } finally {
    keys.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i])));
  }
}
