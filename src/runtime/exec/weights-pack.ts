// The GPU preparation of the portable convs' weights (conv3d / conv3d-tiled layout [taps * cin][co4] in
// the storage precision): the model's f32 rows go up as they are (no JS copy, no JS transpose) in bounded
// chunks into a buffer of the plan (staging), shaders/weights-pack.wgsl writes each weight's layout from
// them. Before: packConvWeight + storageBytes in JS, 1.09 s for Wan2.1's 73 M weights (f32) on the 2-core
// build machine. Same bytes either way (test/runtime/weights-pack.test.ts).
import type { PipelineCache } from '../../gpu/kernel';
import { packConvWeight } from '../../kernels/conv3d';
import { packChunks, packParams, weightsPack } from '../../kernels/weights-pack';
import { storageBytes } from '../f16';
import { runStagedPrep, stagingWords, type BlockedWeightJob, type PrepCounts } from './weights';

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
 * everything is submitted, with what it did (the decoder's GpuDecoder.build.pack).
 */
export async function preparePackedWeights(device: GPUDevice, cache: PipelineCache, jobs: BlockedWeightJob[], staging: GPUBuffer | null, uniforms: GPUBuffer, stride: number): Promise<PrepCounts> {
  const last: PrepCounts = { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 };
  // one pipeline per storage precision (F16 override): a plan's portable weights share one
  const f16 = jobs[0]?.portable === 'f16' ? 1 : 0;
  const words = staging ? stagingWords(device, staging) : 0;
  await runStagedPrep(
    device,
    cache,
    jobs,
    staging,
    words,
    uniforms,
    stride,
    { def: weightsPack, overrides: { F16: f16 }, chunks: packChunks, params: (j, part) => packParams(j, part, f16), inJs: packInJs },
    last,
  );
  return last;
}
