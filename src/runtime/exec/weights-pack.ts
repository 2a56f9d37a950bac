// The GPU preparation of the portable convs' weights (conv3d / conv3d-tiled layout [taps * cin][co4] in
// the storage precision): the model's f32 rows go up as they are (no JS copy, no JS transpose) in bounded
// chunks into a buffer of the plan (staging), shaders/weights-pack.wgsl writes each weight's layout from
// them. Before: packConvWeight + storageBytes in JS, 1.09 s for Wan2.1's 73 M weights (f32) on the 2-core
// build machine. Same bytes either way (test/runtime/weights-pack.test.ts).
import { encodeParams, type PipelineCache } from '../../gpu/kernel';
import { packConvWeight } from '../../kernels/conv3d';
import { packChunks, packParams, weightsPack } from '../../kernels/weights-pack';
import { storageBytes } from '../f16';
import { PREP_CHUNK_BYTES, type BlockedWeightJob } from './weights';

/** What the last preparation did: weights packed on the GPU / in JS, submissions, f32 bytes uploaded, ms until all was submitted. */
export const weightPack = { last: { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 } };

/** The JS packing of one job (the path of packWeight). */
function packInJs(device: GPUDevice, j: BlockedWeightJob): void {
  device.queue.writeBuffer(j.buf, 0, storageBytes(packConvWeight(j.data, j.cout, j.cin, j.taps, 1), j.portable!));
}

/**
 * Writes every job's buffer (jobs with `portable` set): on the GPU through `staging` (chunks of whole
 * output-channel groups, one weights-pack dispatch per weight part, params in `uniforms` at `stride`-byte
 * slots, one submission per chunk), in JS for a weight whose 4 output channels do not fit the staging.
 * `staging` holds f32 rows meanwhile and is cleared to zeros afterwards (as created): it is a buffer of
 * the plan (an activation slot), so the preparation allocates no GPU memory (peak = planned). `uniforms`
 * is the decoder's params buffer, rewritten per run (queue order keeps the two apart). Resolves once
 * everything is submitted.
 */
export async function preparePackedWeights(device: GPUDevice, cache: PipelineCache, jobs: BlockedWeightJob[], staging: GPUBuffer | null, uniforms: GPUBuffer, stride: number): Promise<void> {
  const t0 = performance.now();
  const last = (weightPack.last = { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 });
  const words = staging ? Math.floor(Math.min(staging.size, device.limits.maxStorageBufferBindingSize, PREP_CHUNK_BYTES) / 4) : 0;
  const { chunks, tooLarge } = packChunks(jobs, words, Math.max(1, Math.floor(uniforms.size / stride)));
  for (const j of tooLarge) packInJs(device, jobs[j]!);
  last.js = tooLarge.length;
  if (chunks.length) {
    // one pipeline per storage precision (F16 override)
    const f16 = jobs[0]!.portable === 'f16' ? 1 : 0;
    const pipeline = await cache.get(weightsPack, { F16: f16 }, 'f32');
    const params = device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uniforms, size: 256 } }] });
    const groups = new Map<number, GPUBindGroup>();
    const group = (j: number) => {
      let g = groups.get(j);
      if (!g)
        groups.set(j, (g = device.createBindGroup({ layout: cache.bindGroupLayout(weightsPack), entries: [{ binding: 0, resource: { buffer: staging!, size: words * 4 } }, { binding: 1, resource: { buffer: jobs[j]!.buf } }] })));
      return g;
    };
    let used = 0;
    for (const chunk of chunks) {
      const uni = new Uint8Array(chunk.length * stride);
      const enc = device.createCommandEncoder({ label: 'weights-pack' });
      const pass = enc.beginComputePass({ label: 'weights-pack' });
      pass.setPipeline(pipeline);
      chunk.forEach((part, i) => {
        const j = jobs[part.job]!;
        const row = j.cin * j.taps;
        // the model's own rows, uploaded as they are (writeBuffer copies them)
        device.queue.writeBuffer(staging!, part.src0 * 4, j.data as Float32Array<ArrayBuffer>, part.o0 * row, part.staged * row);
        last.uploadedBytes += part.staged * row * 4;
        used = Math.max(used, (part.src0 + part.staged * row) * 4);
        const p = packParams(j, part, f16);
        uni.set(encodeParams(weightsPack, p), i * stride);
        pass.setBindGroup(0, group(part.job));
        pass.setBindGroup(1, params, [i * stride]);
        pass.dispatchWorkgroups(...weightsPack.dispatch(p, {}));
      });
      pass.end();
      device.queue.writeBuffer(uniforms, 0, uni);
      device.queue.submit([enc.finish()]);
    }
    const clear = device.createCommandEncoder({ label: 'weights-pack staging cleared' });
    clear.clearBuffer(staging!, 0, Math.ceil(used / 4) * 4);
    device.queue.submit([clear.finish()]);
    last.chunks = chunks.length;
    last.gpu = jobs.length - tooLarge.length;
  }
  jobs.length = 0; // the f32 arrays are the model's; nothing here keeps them
  last.ms = performance.now() - t0;
}
