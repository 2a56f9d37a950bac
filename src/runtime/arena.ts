// Arena: creates and destroys every GPUBuffer of a decode and counts bytes by owner (weights, cache,
// activations, io, staging, uniforms). Buffers are created once when the decoder is built; the
// per-frame loop allocates nothing. `dispose()` may be called more than once.
// Also: the live bytes and buffers of every arena of this JS realm (tests check that a cancelled or
// failed decode gives everything back), and out-of-memory fault injection (WAN_VAE_INJECT_OOM).
import { DecoderError } from '../gpu/errors';
import type { MemoryBreakdown } from '../plan/planner';

export type Owner = Exclude<keyof MemoryBreakdown, 'total'>;

/**
 * An injected out-of-memory fault: the allocation numbered `failAt` (1-based, counted over every arena
 * built while the injection is installed, i.e. over one decode and its re-plans) throws
 * DecoderError('oom') instead of creating the buffer; with `repeat`, every later allocation too (so
 * no plan fits). `count` is the allocations seen so far.
 */
export interface OomInjection {
  failAt: number;
  repeat: boolean;
  count: number;
}

let installed: OomInjection | null = null;

/**
 * Runs `fn` with `inj` installed: arenas constructed during the synchronous part of `fn` (GpuDecoder.create
 * builds its arena before its first await) keep it for all their allocations.
 */
export function withOomInjection<T>(inj: OomInjection | null, fn: () => T): T {
  const prev = installed;
  installed = inj;
  try {
    return fn();
  } finally {
    installed = prev;
  }
}

/** Live GPU memory of every arena of this realm (not yet disposed). */
export const liveArenas = { bytes: 0, buffers: 0 };

export class Arena {
  private readonly buffers: GPUBuffer[] = [];
  /** the owner of each buffer (release / adopt move a decoder's weights to the next decoder on the device) */
  private readonly owners = new Map<GPUBuffer, Owner>();
  readonly bytes: MemoryBreakdown = { weights: 0, cache: 0, activations: 0, store: 0, io: 0, staging: 0, uniforms: 0, total: 0 };
  /** highest total ever allocated at once */
  peak = 0;
  private readonly inject = installed;

  constructor(private readonly device: GPUDevice) {}

  create(owner: Owner, label: string, size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    if (size > this.device.limits.maxBufferSize) throw new DecoderError('limits', `${label}: buffer of ${size} bytes exceeds maxBufferSize ${this.device.limits.maxBufferSize}`);
    const inj = this.inject;
    if (inj && (++inj.count === inj.failAt || (inj.repeat && inj.count > inj.failAt)))
      throw new DecoderError('oom', `${label}: injected out-of-memory at GPU buffer allocation ${inj.count} of this decode (${size} bytes; WAN_VAE_INJECT_OOM=${inj.failAt}${inj.repeat ? '+' : ''})`);
    const buf = this.device.createBuffer({ label, size: Math.max(4, size), usage });
    this.buffers.push(buf);
    this.owners.set(buf, owner);
    this.bytes[owner] += buf.size;
    this.bytes.total += buf.size;
    this.peak = Math.max(this.peak, this.bytes.total);
    liveArenas.bytes += buf.size;
    liveArenas.buffers += 1;
    return buf;
  }

  /**
   * Takes `owner`'s buffers out of this arena without destroying them (still counted in liveArenas): the
   * next arena adopts the ones it needs; the caller destroys the rest with `destroyReleased`.
   */
  release(owner: Owner): GPUBuffer[] {
    const out = this.buffers.filter((b) => this.owners.get(b) === owner);
    for (const b of out) {
      this.buffers.splice(this.buffers.indexOf(b), 1);
      this.owners.delete(b);
      this.bytes[owner] -= b.size;
      this.bytes.total -= b.size;
    }
    return out;
  }

  /** Counts a released buffer of another arena as this arena's (no allocation: no injected fault either). */
  adopt(owner: Owner, buf: GPUBuffer): GPUBuffer {
    this.buffers.push(buf);
    this.owners.set(buf, owner);
    this.bytes[owner] += buf.size;
    this.bytes.total += buf.size;
    this.peak = Math.max(this.peak, this.bytes.total);
    return buf;
  }

  dispose(): void {
    this.owners.clear();
    for (const b of this.buffers.splice(0)) {
      liveArenas.bytes -= b.size;
      liveArenas.buffers -= 1;
      b.destroy();
    }
    for (const k of Object.keys(this.bytes) as (keyof MemoryBreakdown)[]) this.bytes[k] = 0;
  }
}

/** Destroys released buffers no arena adopted (liveArenas counts them until then). */
export function destroyReleased(bufs: Iterable<GPUBuffer>): void {
  for (const b of bufs) {
    liveArenas.bytes -= b.size;
    liveArenas.buffers -= 1;
    b.destroy();
  }
}
