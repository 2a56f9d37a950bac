// Times one compute pass, repeated: GPU time from `timestamp-query` (each repeat its own pass with
// timestampWrites) when the device has it, else wall time from submit to queue.onSubmittedWorkDone()
// per repeat. Owns its query set and resolve / readback buffers (destroyed by `dispose`).
import type { TimingSource } from './types';

/** Passes per command buffer: keeps one submission short when a pass is slow. */
const PASSES_PER_SUBMIT = 16;

export class PassTimer {
  readonly source: TimingSource;
  private readonly querySet: GPUQuerySet | null = null;
  private readonly resolve: GPUBuffer | null = null;
  private readonly readback: GPUBuffer | null = null;

  constructor(
    private readonly device: GPUDevice,
    useTimestamps = true,
  ) {
    const ts = useTimestamps && device.features.has('timestamp-query');
    this.source = ts ? 'timestamp-query' : 'wall-onSubmittedWorkDone';
    if (!ts) return;
    const count = 2 * PASSES_PER_SUBMIT;
    this.querySet = device.createQuerySet({ label: 'bench timer', type: 'timestamp', count });
    this.resolve = device.createBuffer({ label: 'bench timer resolve', size: count * 8, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readback = device.createBuffer({ label: 'bench timer readback', size: count * 8, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /** Milliseconds of each of `runs` passes, each encoded by `encode`. */
  async time(runs: number, encode: (pass: GPUComputePassEncoder) => void): Promise<number[]> {
    const out: number[] = [];
    while (out.length < runs) {
      const n = Math.min(this.querySet ? PASSES_PER_SUBMIT : 1, runs - out.length);
      out.push(...(this.querySet ? await this.gpuBatch(n, encode) : [await this.wallOne(encode)]));
    }
    return out;
  }

  private async wallOne(encode: (pass: GPUComputePassEncoder) => void): Promise<number> {
    const enc = this.device.createCommandEncoder({ label: 'bench' });
    const pass = enc.beginComputePass({ label: 'bench' });
    encode(pass);
    pass.end();
    const cmd = enc.finish();
    const t0 = performance.now();
    this.device.queue.submit([cmd]);
    await this.device.queue.onSubmittedWorkDone();
    return performance.now() - t0;
  }

  private async gpuBatch(n: number, encode: (pass: GPUComputePassEncoder) => void): Promise<number[]> {
    const enc = this.device.createCommandEncoder({ label: 'bench' });
    for (let i = 0; i < n; i++) {
      const pass = enc.beginComputePass({ label: 'bench', timestampWrites: { querySet: this.querySet!, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
      encode(pass);
      pass.end();
    }
    enc.resolveQuerySet(this.querySet!, 0, 2 * n, this.resolve!, 0);
    enc.copyBufferToBuffer(this.resolve!, 0, this.readback!, 0, 2 * n * 8);
    this.device.queue.submit([enc.finish()]);
    await this.readback!.mapAsync(GPUMapMode.READ);
    const t = new BigUint64Array(this.readback!.getMappedRange().slice(0));
    this.readback!.unmap();
    return Array.from({ length: n }, (_, i) => Number(t[2 * i + 1]! - t[2 * i]!) / 1e6);
  }

  dispose(): void {
    this.querySet?.destroy();
    this.resolve?.destroy();
    this.readback?.destroy();
  }
}
