// PipelineCache's compile errors settle once, as the promise get() returns: a shader's compilation info that
// reports an error before its pipeline settles (Dawn's usual order for a broken module) must not also surface as
// an unhandled rejection (vitest fails a run on one, with no failed test: CI on 2026-12-04). A stand-in device
// that answers in that order, so the case does not depend on a real compiler's timing.
import { afterEach, describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { PipelineCache, type AnyKernelDef } from '../../src/gpu/kernel';
import { kernels } from '../../src/kernels/index';

/** A GPUDevice with what PipelineCache calls: the module's info reports `error` at once, the pipeline settles after `pipelineMs`. */
function earlyInfoDevice(error: string | null, pipelineMs: number): GPUDevice {
  const message = { type: 'error', message: error, lineNum: 1, linePos: 1, offset: 0, length: 1 };
  const device = {
    createBindGroupLayout: (d: GPUBindGroupLayoutDescriptor) => ({ label: d.label ?? '' }),
    createPipelineLayout: (d: GPUPipelineLayoutDescriptor) => ({ label: d.label ?? '' }),
    pushErrorScope: () => undefined,
    popErrorScope: () => Promise.resolve(null),
    createShaderModule: (d: GPUShaderModuleDescriptor) => ({ label: d.label, getCompilationInfo: () => Promise.resolve({ messages: error ? [message] : [] }) }),
    createComputePipelineAsync: (d: GPUComputePipelineDescriptor) =>
      new Promise((resolve, reject) => setTimeout(() => (error ? reject(new Error('invalid module')) : resolve({ label: d.label })), pipelineMs)),
  };
  return device as unknown as GPUDevice;
}

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);

afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
});

describe('PipelineCache: a compile error is reported once, by get()', () => {
  it('compile info with an error before the pipeline settles: get() rejects with DecoderError compile, nothing unhandled', async () => {
    process.on('unhandledRejection', onUnhandled);
    const cache = new PipelineCache(earlyInfoDevice('expected a function body', 60));
    const broken: AnyKernelDef = { ...kernels.crop, id: 'crop-early-info' };
    const got = cache.get(broken, {}, 'f32').catch((e: unknown) => e);
    // past the point where the info's rejection would have been reported unhandled (a macrotask after it)
    await new Promise((r) => setTimeout(r, 20));
    const err = await got;
    await new Promise((r) => setTimeout(r, 20));
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('compile');
    expect((err as DecoderError).message).toMatch(/crop-early-info\|f32\|.* does not compile:\n.*expected a function body/);
    expect(unhandled).toEqual([]);
  });

  it('the same stand-in without an error resolves to the pipeline of the key', async () => {
    const cache = new PipelineCache(earlyInfoDevice(null, 5));
    const p = await cache.get(kernels.crop, {}, 'f32');
    expect(p.label).toMatch(/^crop\|f32\|/);
  });
});
