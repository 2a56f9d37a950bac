// GPU access for kernel tests: one shared device per test file (null when there is none; tests then call
// need.ts' needGpu / needDevice, which skip with the reason, or fail under CI), and withDevice(), which runs
// a test body inside validation / out-of-memory error scopes and destroys every buffer it created.
import { requestDecoderDevice, type DecoderDevice } from '../../src/gpu/device';
import { DecoderError } from '../../src/gpu/errors';
import { checkDispatch, encodeParams, PipelineCache, resolveOverrides, type Elem, type KernelDef } from '../../src/gpu/kernel';
import { halfBits, halfRound, halfValue } from './half';

export interface TestGpu extends DecoderDevice {
  cache: PipelineCache;
}

let shared: Promise<TestGpu | null> | null = null;
let whyNone = 'getTestDevice() was not called';

/** The test device, or null when WebGPU or an adapter is missing (noDeviceReason() says why). */
export function getTestDevice(): Promise<TestGpu | null> {
  shared ??= (async () => {
    try {
      const d = await requestDecoderDevice();
      return { ...d, cache: new PipelineCache(d.device) };
    } catch (e) {
      whyNone = e instanceof Error ? e.message : String(e);
      return null;
    }
  })();
  return shared;
}

/** Why getTestDevice() resolved to null. */
export function noDeviceReason(): string {
  return whyNone;
}

/** IEEE half bits of one float (round to nearest even; overflow to ±inf): test/helpers/half.ts, not the runtime's toHalf. */
const f32ToF16Bits = halfBits;

const f16BitsToF32 = halfValue;

/** Values rounded to what `elem` storage keeps (identity for f32), independently of the runtime's conversion. */
export function roundToElem(data: Float32Array, elem: Elem): Float32Array {
  if (elem === 'f32') return data;
  return data.map(halfRound);
}

/** Bytes of `data` as `elem` storage, padded to a multiple of 4 bytes. */
function toElemBytes(data: Float32Array, elem: Elem): Uint8Array<ArrayBuffer> {
  if (elem === 'f32') return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
  const h = new Uint16Array(Math.ceil(data.length / 2) * 2);
  for (let i = 0; i < data.length; i++) h[i] = f32ToF16Bits(data[i]!);
  return new Uint8Array(h.buffer);
}

export interface GpuScope {
  gpu: TestGpu;
  device: GPUDevice;
  /** a storage buffer holding `data` as `elem` (at least 16 bytes) */
  upload(data: Float32Array, elem: Elem, label?: string): GPUBuffer;
  /** a zero-filled storage buffer of `count` elements of `bytesPerElem` bytes */
  zeros(count: number, bytesPerElem: number, label?: string): GPUBuffer;
  /** a small buffer for bindings a kernel ignores */
  dummy(): GPUBuffer;
  /** `count` elements of `elem` from element `offset`, as floats */
  read(buffer: GPUBuffer, elem: Elem, count: number, offset?: number): Promise<Float32Array>;
  readU32(buffer: GPUBuffer, count: number): Promise<Uint32Array>;
  run<P extends Record<string, number>>(def: KernelDef<P>, p: P, ov: Record<string, number>, elem: Elem, buffers: GPUBuffer[]): Promise<void>;
}

/** Runs `fn` with buffer tracking and error scopes; throws on a validation or OOM error. */
export async function withDevice<T>(fn: (s: GpuScope) => Promise<T>): Promise<T> {
  const gpu = await getTestDevice();
  if (!gpu) throw new Error('withDevice: no WebGPU device (the test should have been skipped)');
  const { device } = gpu;
  const owned: GPUBuffer[] = [];
  const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const create = (size: number, usage: number, label: string) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(size / 16) * 16), usage, label });
    owned.push(b);
    return b;
  };
  const scope: GpuScope = {
    gpu,
    device,
    upload(data, elem, label = 'test input') {
      const bytes = toElemBytes(data, elem);
      const b = create(bytes.byteLength, STORAGE, label);
      device.queue.writeBuffer(b, 0, bytes);
      return b;
    },
    zeros: (count, bpe, label = 'test output') => create(count * bpe, STORAGE, label),
    dummy: () => create(16, STORAGE, 'dummy'),
    async read(buffer, elem, count, offset = 0) {
      const bpe = elem === 'f16' ? 2 : 4;
      const start = offset * bpe;
      const aligned = start - (start % 4);
      const size = Math.ceil((start + count * bpe - aligned) / 4) * 4;
      const staging = create(size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'readback');
      const enc = device.createCommandEncoder();
      enc.copyBufferToBuffer(buffer, aligned, staging, 0, size);
      device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const raw = staging.getMappedRange().slice(0);
      staging.unmap();
      if (elem === 'f32') return new Float32Array(raw, start - aligned, count);
      const h = new Uint16Array(raw, start - aligned, count);
      return Float32Array.from(h, f16BitsToF32);
    },
    async readU32(buffer, count) {
      const f = await scope.read(buffer, 'f32', count);
      return new Uint32Array(f.buffer, f.byteOffset, count);
    },
    run: (def, p, ov, elem, buffers) => runKernel(device, gpu.cache, def, p, ov, elem, buffers),
  };
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  try {
    return await fn(scope);
  } finally {
    const validation = await device.popErrorScope();
    const oom = await device.popErrorScope();
    for (const b of owned) b.destroy();
    if (validation) throw new Error(`WebGPU validation error: ${validation.message}`);
    if (oom) throw new Error(`WebGPU out-of-memory error: ${oom.message}`);
  }
}

/**
 * One kernel alone (kernel tests; not the decoder's path): binds `buffers` in `def.bindings` order,
 * uploads the params, checks the dispatch size, dispatches once, submits, waits for completion and
 * frees the params buffer.
 */
export async function runKernel<P extends Record<string, number>>(
  device: GPUDevice,
  cache: PipelineCache,
  def: KernelDef<P>,
  p: P,
  overrides: Record<string, number>,
  elem: Elem,
  buffers: GPUBuffer[],
): Promise<void> {
  if (buffers.length !== def.bindings.length) throw new DecoderError('bad-input', `${def.id}: ${buffers.length} buffers for ${def.bindings.length} bindings`);
  const pipeline = await cache.get(def, overrides, elem);
  const counts = def.dispatch(p, resolveOverrides(def, overrides));
  checkDispatch(def, counts, device.limits);
  const data = encodeParams(def, p, overrides);
  const params = device.createBuffer({ label: `${def.id} params`, size: data.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  try {
    device.queue.writeBuffer(params, 0, data);
    const group0 = device.createBindGroup({ label: def.id, layout: cache.bindGroupLayout(def), entries: buffers.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
    const group1 = device.createBindGroup({ label: `${def.id} params`, layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: params, size: data.byteLength } }] });
    const enc = device.createCommandEncoder({ label: def.id });
    const pass = enc.beginComputePass({ label: def.id });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group0);
    pass.setBindGroup(1, group1, [0]);
    pass.dispatchWorkgroups(...counts);
    pass.end();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
  } finally {
    params.destroy();
  }
}

/** Every byte of buffer `b` (a COPY_SRC buffer), read back through a mapped copy. */
export async function readBytes(device: GPUDevice, b: GPUBuffer): Promise<Uint8Array> {
  const r = device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(b, 0, r, 0, b.size);
  device.queue.submit([enc.finish()]);
  await r.mapAsync(GPUMapMode.READ);
  const out = new Uint8Array(r.getMappedRange().slice(0));
  r.unmap();
  r.destroy();
  return out;
}
