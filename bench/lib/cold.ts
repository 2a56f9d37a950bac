// Cold start: import -> first frame on a fresh device, in phases (all wall time, ms):
//   import      worker / process start to the suite starting (module fetch + evaluation; in Node the
//               process boot too), measured by the entry and passed in;
//   device      requestAdapter + requestDevice;
//   weights     generating the weights on the CPU (stands in for reading a file);
//   upload      decode() start to the first shader module: plan, weight packing, writeBuffer of every
//               weight (the GPU copies run with the first submit, so their GPU time lands in first frame);
//   compile     first shader module to the last pipeline compiled (createComputePipelineAsync);
//   firstFrame  last pipeline to the first frame read back.
// Then the same decode again on the built decoder (warm first frame). Device patches are own
// properties of the fresh device, removed before it is destroyed.
import { WanVaeDecoder, type DecodeOptions } from '../../src/decoder';
import { requestDecoderDevice } from '../../src/gpu/device';
import { latentsFor, modelFor, releaseModels } from './models';
import { describeError, now } from './stats';
import type { DecodeScenario, Result } from './types';

interface Marks {
  firstModule?: number;
  lastPipeline?: number;
}

function instrument(device: GPUDevice, marks: Marks): () => void {
  const mod = device.createShaderModule;
  const pipe = device.createComputePipelineAsync;
  device.createShaderModule = (d: GPUShaderModuleDescriptor) => {
    marks.firstModule ??= now();
    return mod.call(device, d);
  };
  device.createComputePipelineAsync = (d: GPUComputePipelineDescriptor) =>
    pipe.call(device, d).then((p) => {
      marks.lastPipeline = now();
      return p;
    });
  return () => {
    delete (device as Partial<GPUDevice>).createShaderModule;
    delete (device as Partial<GPUDevice>).createComputePipelineAsync;
  };
}

export async function runColdScenario(s: DecodeScenario, importMs: number): Promise<Result[]> {
  const params = { model: s.model, latent: s.latent, options: s.options };
  const row: Result = { name: s.name, group: 'cold', status: 'ok', params, key: `${s.name}|${JSON.stringify(params)}`, timing: 'wall' };
  const t0 = now();
  let gpu: Awaited<ReturnType<typeof requestDecoderDevice>> | null = null;
  try {
    gpu = await requestDecoderDevice({ wantF16: true });
    const t1 = now();
    releaseModels();
    const { weights } = modelFor(s.model);
    const lat = latentsFor(s.model, s.latent);
    const t2 = now();
    const marks: Marks = {};
    const restore = instrument(gpu.device, marks);
    const dec = new WanVaeDecoder(weights, gpu);
    let first = NaN;
    const t3 = now();
    try {
      await dec.decode(lat, { ...(s.options as DecodeOptions), latentStats: 'none', onFrame: () => void (Number.isNaN(first) && (first = now())) });
    } finally {
      restore();
    }
    let warmFirst = NaN;
    const t4 = now();
    await dec.decode(lat, { ...(s.options as DecodeOptions), latentStats: 'none', onFrame: () => void (Number.isNaN(warmFirst) && (warmFirst = now() - t4)) });
    dec.dispose();
    const upload = (marks.firstModule ?? NaN) - t3,
      compile = (marks.lastPipeline ?? NaN) - (marks.firstModule ?? NaN);
    row.extra = {
      importMs,
      deviceMs: t1 - t0,
      weightsMs: t2 - t1,
      uploadMs: upload,
      compileMs: compile,
      firstFrameMs: first - (marks.lastPipeline ?? NaN),
      totalMs: importMs + (first - t0),
      warmFirstFrameMs: warmFirst,
    };
    const total = importMs + (first - t0);
    row.ms = { n: 1, median: total, p10: total, p90: total, min: total, max: total };
  } catch (e) {
    row.status = 'failed';
    row.error = describeError(e);
  } finally {
    gpu?.device.destroy();
  }
  return [row];
}
