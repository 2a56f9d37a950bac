// What the kernel probes share (bench/probes/wino-gemm.ts, attention-mma.ts): GPU time of a compute pass by timestamp queries
// (median of `runs` passes in one submission; wall time per pass where the device has no timestamp-query) and buffers
// read back as floats from f32 or f16 storage.
import type { Elem } from '../../src/gpu/kernel';
import { fromHalf } from '../../src/runtime/f16';

/** A timer of `run` (the dispatches of one compute pass): milliseconds, the median of `runs` passes. */
export function passTimer(device: GPUDevice, runs: number): (run: (p: GPUComputePassEncoder) => void) => Promise<number> {
  const qs = device.features.has('timestamp-query') ? device.createQuerySet({ type: 'timestamp', count: 2 * runs }) : null;
  const qr = device.createBuffer({ size: 16 * runs, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const qb = device.createBuffer({ size: 16 * runs, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  return async (run) => {
    if (!qs) {
      const t0 = performance.now();
      for (let i = 0; i < runs; i++) {
        const enc = device.createCommandEncoder();
        const p = enc.beginComputePass();
        run(p);
        p.end();
        device.queue.submit([enc.finish()]);
      }
      await device.queue.onSubmittedWorkDone();
      return (performance.now() - t0) / runs;
    }
    const enc = device.createCommandEncoder();
    for (let i = 0; i < runs; i++) {
      const p = enc.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
      run(p);
      p.end();
    }
    enc.resolveQuerySet(qs, 0, 2 * runs, qr, 0);
    enc.copyBufferToBuffer(qr, 0, qb, 0, 16 * runs);
    device.queue.submit([enc.finish()]);
    await qb.mapAsync(GPUMapMode.READ);
    const t = new BigUint64Array(qb.getMappedRange().slice(0));
    qb.unmap();
    const ms = [...Array(runs).keys()].map((i) => Number(t[2 * i + 1]! - t[2 * i]!) / 1e6).sort((a, b) => a - b);
    return ms[ms.length >> 1]!;
  };
}

/** `n` values of `elem` storage from byte `offBytes` of `buf`, as floats. */
export async function readFloats(device: GPUDevice, buf: GPUBuffer, offBytes: number, n: number, elem: Elem): Promise<Float32Array> {
  const bytes = Math.ceil((n * (elem === 'f16' ? 2 : 4)) / 4) * 4;
  const rb = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, offBytes, rb, 0, bytes);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(n);
  if (elem === 'f32') out.set(new Float32Array(rb.getMappedRange(), 0, n));
  else {
    const h = new Uint16Array(rb.getMappedRange(), 0, n);
    for (let i = 0; i < n; i++) out[i] = fromHalf(h[i]!);
  }
  rb.unmap();
  rb.destroy();
  return out;
}
