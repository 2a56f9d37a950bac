// WebGPU smoke test, both projects: adapter + device through navigator.gpu, one tiny compute dispatch.
// Under CI a missing adapter fails; elsewhere the test skips with the reason.
import { describe, expect, it } from 'vitest';
import { isBrowser } from './helpers/env';
import { cannotRun } from './helpers/need';

const where = isBrowser ? 'browser' : 'node';

const ADD_ONE = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] + 1.0; }
}`;

describe('webgpu smoke', () => {
  it('adds 1 to 4 floats on the GPU', async (ctx) => {
    const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
    const adapter = gpu ? await gpu.requestAdapter() : null;
    if (!adapter) {
      const why = gpu ? 'navigator.gpu.requestAdapter() returned null' : 'navigator.gpu is missing';
      cannotRun(ctx, `[${where}] there is no WebGPU adapter: ${why}`);
    }
    const info = adapter.info;
    const features = [...adapter.features].sort();
    console.log(
      `[${where}] adapter: vendor=${info.vendor} architecture=${info.architecture} ` +
        `device=${info.device} description=${info.description} ` +
        `isFallbackAdapter=${String((adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter ?? (info as { isFallbackAdapter?: boolean }).isFallbackAdapter)} ` +
        `shader-f16=${adapter.features.has('shader-f16')} ` +
        `maxStorageBufferBindingSize=${adapter.limits.maxStorageBufferBindingSize} ` +
        `maxBufferSize=${adapter.limits.maxBufferSize}\n  features: ${features.join(', ')}`,
    );

    const device = await adapter.requestDevice();
    try {
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ code: ADD_ONE });
      const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      const input = new Float32Array([1, 2, 3, 4.5]);
      const storage = device.createBuffer({
        size: input.byteLength,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      });
      const readback = device.createBuffer({
        size: input.byteLength,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
      device.queue.writeBuffer(storage, 0, input);
      const bindGroup = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: storage } }],
      });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(1);
      pass.end();
      encoder.copyBufferToBuffer(storage, 0, readback, 0, input.byteLength);
      device.queue.submit([encoder.finish()]);
      const error = await device.popErrorScope();
      expect(error?.message ?? null).toBeNull();

      await readback.mapAsync(GPUMapMode.READ);
      const out = Array.from(new Float32Array(readback.getMappedRange().slice(0)));
      readback.unmap();
      expect(out).toEqual([2, 3, 4, 5.5]);
      storage.destroy();
      readback.destroy();
    } finally {
      device.destroy();
    }
  });
});
