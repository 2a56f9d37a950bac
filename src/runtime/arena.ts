// Arena: creates and destroys every GPUBuffer of a decode and counts bytes by owner (weights, cache,
// activations, io, staging, uniforms). Buffers are created once when the decoder is built; the
// per-frame loop allocates nothing. `dispose()` may be called more than once.
import { DecoderError } from '../gpu/errors';
import type { MemoryBreakdown } from './planner';

export type Owner = Exclude<keyof MemoryBreakdown, 'total'>;

export class Arena {
  private readonly buffers: GPUBuffer[] = [];
  readonly bytes: MemoryBreakdown = { weights: 0, cache: 0, activations: 0, store: 0, io: 0, staging: 0, uniforms: 0, total: 0 };
  /** highest total ever allocated at once */
  peak = 0;

  constructor(private readonly device: GPUDevice) {}

  create(owner: Owner, label: string, size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    if (size > this.device.limits.maxBufferSize)
      throw new DecoderError('limits', `${label}: buffer of ${size} bytes exceeds maxBufferSize ${this.device.limits.maxBufferSize}`);
    const buf = this.device.createBuffer({ label, size: Math.max(4, size), usage });
    this.buffers.push(buf);
    this.bytes[owner] += buf.size;
    this.bytes.total += buf.size;
    this.peak = Math.max(this.peak, this.bytes.total);
    return buf;
  }

  dispose(): void {
    for (const b of this.buffers.splice(0)) b.destroy();
    for (const k of Object.keys(this.bytes) as (keyof MemoryBreakdown)[]) this.bytes[k] = 0;
  }
}
