// The weight uploads (the preparations' rows, exec/weights.ts and wino-weights.ts; streamed weight groups,
// exec/weight-stream.ts): f32 words copied on the JS side into one of two MAP_WRITE buffers, mapped in turn,
// and moved by a copyBufferToBuffer in (or before) the submission that reads them. queue.writeBuffer
// copies into Dawn's own upload memory instead, allocated per write and held until the GPU has run it: a
// preparation that submits its chunks without waiting holds all of them there at once (2.1 GB for Wan2.2's
// weights). Measured on the H200 (bench/probes/upload-bw.mjs, 2026-12-01, 7b0cf0f, 1 GiB in 64 MiB groups):
// writeBuffer 2.3-2.7 GB/s, two mapped buffers in turn 7.0 GB/s, byte-identical.
// The pair is host memory the plan does not count (as Dawn's upload memory is not), 2 x `bytes` while its
// owner holds it; an upload waits for a buffer only when it is the one used two uploads before.
import { DecoderError } from '../../gpu/errors';

export const uploadUsage = (): GPUBufferUsageFlags => GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC;

export class UploadPair {
  private readonly bufs: GPUBuffer[];
  /** mapAsync of each buffer since its last use (null: mapped, at creation) */
  private readonly mapped: (Promise<void> | null)[] = [null, null];
  private k = 0;
  private open: Float32Array | null = null;

  /** `bytes`: the largest upload of one chunk (a multiple of 4) */
  constructor(
    private readonly device: GPUDevice,
    readonly bytes: number,
    label: string,
  ) {
    if (bytes <= 0 || bytes % 4) throw new DecoderError('internal', `UploadPair: ${bytes} bytes (a positive multiple of 4)`);
    const made: GPUBuffer[] = [];
    try {
      for (const i of [0, 1]) made.push(device.createBuffer({ label: `${label} upload ${i}`, size: bytes, usage: uploadUsage(), mappedAtCreation: true }));
    } catch (e) {
      // mappedAtCreation throws a RangeError where the host memory cannot be had: an out-of-memory the decode re-plans smaller on
      for (const b of made) b.destroy();
      if (e instanceof RangeError) throw new DecoderError('oom', `out of memory for the weight upload buffers (2 x ${(bytes / 2 ** 20).toFixed(1)} MiB, ${label})`, { cause: e });
      throw e;
    }
    this.bufs = made;
  }

  /** The next buffer's mapped words (after the GPU is done with its previous chunk); write the chunk's rows into it, then end(). */
  async begin(): Promise<Float32Array> {
    if (this.open) throw new DecoderError('internal', 'UploadPair.begin: the previous chunk was not ended');
    const m = this.mapped[this.k];
    if (m) await m;
    this.mapped[this.k] = null;
    return (this.open = new Float32Array(this.bufs[this.k]!.getMappedRange()));
  }

  /** Unmaps the buffer begin() gave and records the copy of its first `bytes` into `dst` at `dstByte` in `enc`; submit `enc`, then submitted(). */
  end(enc: GPUCommandEncoder, dst: GPUBuffer, dstByte: number, bytes: number): void {
    if (!this.open) throw new DecoderError('internal', 'UploadPair.end without begin');
    this.open = null;
    const b = this.bufs[this.k]!;
    b.unmap();
    if (bytes) enc.copyBufferToBuffer(b, 0, dst, dstByte, bytes);
  }

  /** After the submission of end()'s encoder: maps that buffer again for the chunk after next. */
  submitted(): void {
    const p = this.bufs[this.k]!.mapAsync(GPUMapMode.WRITE);
    p.catch(() => undefined); // destroy() rejects a map still pending: nothing waits for it then
    this.mapped[this.k] = p;
    this.k ^= 1;
  }

  /** src[from, from + n) (f32 words) into `dst` at `dstByte`, in pieces of the pair's size, one submission each; returns the ms spent waiting for a buffer to be mapped. */
  async copy(dst: GPUBuffer, dstByte: number, src: Float32Array, from: number, n: number): Promise<number> {
    const per = this.bytes / 4;
    let waited = 0;
    for (let o = 0; o < n; o += per) {
      const m = Math.min(per, n - o);
      const t0 = performance.now();
      const words = await this.begin();
      waited += performance.now() - t0;
      words.set(src.subarray(from + o, from + o + m));
      const enc = this.device.createCommandEncoder({ label: 'weights uploaded' });
      this.end(enc, dst, dstByte + o * 4, m * 4);
      this.device.queue.submit([enc.finish()]);
      this.submitted();
    }
    return waited;
  }

  /** Frees both buffers (a copy already submitted still runs: WebGPU frees them after it). */
  destroy(): void {
    if (this.open) this.bufs[this.k]!.unmap();
    this.open = null;
    for (const b of this.bufs) b.destroy();
  }
}
