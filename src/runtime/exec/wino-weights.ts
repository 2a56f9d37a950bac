// The GPU preparation of the Winograd convs' weights U = G g G^T (kernels/winograd-weights.ts): the
// model's f32 rows go up as they are (through a mapped pair, exec/upload-pair.ts), in parts of whole output channels, into the plan's Winograd
// scratch (V + M of one band, exec/resources.ts; nothing in it is read before the decode writes it), and
// one dispatch per part writes U. Before: packWinogradWeight in JS plus the upload of U (16/9 or 4x the
// weights' bytes). Where no staging is given (CPU adapters) or one output channel does not fit it: JS.
// Convs with U made per call (plan/conv-form.ts WinoPlan.u) hold their f32 rows instead: read ahead and
// uploaded as they are here (the decode's winograd-u makes U from them before each call's GEMM).
import { encodeParams, type PipelineCache } from '../../gpu/kernel';
import { winogradWeights } from '../../kernels/winograd-weights';
import { winogradMmaWeights } from '../../kernels/winograd-mma';
import { winoMmaWeightLayout } from '../../kernels/winograd-mma-layout';
import { packWinogradWeight } from '../../kernels/winograd-transforms';
import { storageBytes } from '../f16';
import { UploadPair } from './upload-pair';
import { PREP_CHUNK_BYTES, stagingWords, type BlockedWeightJob, type PrepCounts } from './weights';

/**
 * Writes the U buffer of every job (jobs with `wino` set; `taps` = kt * 9; `winoRows`: the f32 rows as they are, for a
 * conv with U made per call, counted in uploadedBytes only): one part (whole output
 * channels that fit `staging`) per submission, its params in slot 0 of `uniforms` (the decoder's params
 * buffer, rewritten per run: queue order keeps them apart). Resolves once everything is submitted, with
 * what it did (the decoder's GpuDecoder.build.wino; `chunks`: the parts, one submission each).
 */
export async function prepareWinoWeights(device: GPUDevice, cache: PipelineCache, jobs: BlockedWeightJob[], staging: GPUBuffer | null, uniforms: GPUBuffer): Promise<PrepCounts> {
  const t0 = performance.now();
  const last: PrepCounts = { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 };
  // words of one part at most: the staging, the binding limit and PREP_CHUNK_BYTES (the upload pair's size bound)
  const words = staging ? stagingWords(device, staging) : 0;
  const params = staging ? device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uniforms, size: 256 } }] }) : null;
  // the rows go up through a mapped pair (exec/upload-pair.ts) of the largest part's size (from the shapes: a lazy
  // weight's `data` is read only after its prefetch); rows of a conv with U per call in pieces of PREP_CHUNK_BYTES
  const largest = Math.max(0, ...jobs.map((j) => (j.winoRows ? Math.min(j.cout * j.cin * j.taps, PREP_CHUNK_BYTES / 4) : Math.min(j.cout, Math.floor(words / (j.cin * j.taps))) * j.cin * j.taps)));
  const up = largest ? new UploadPair(device, largest * 4, 'winograd weights') : null;
  try {
    await prepareEach(device, cache, jobs, staging, uniforms, words, params, up, last);
  } finally {
    up?.destroy();
  }
  jobs.length = 0;
  last.ms = performance.now() - t0;
  return last;
}

async function prepareEach(
  device: GPUDevice,
  cache: PipelineCache,
  jobs: BlockedWeightJob[],
  staging: GPUBuffer | null,
  uniforms: GPUBuffer,
  words: number,
  params: GPUBindGroup | null,
  up: UploadPair | null,
  last: PrepCounts,
): Promise<void> {
  for (const j of jobs) {
    if (j.winoRows) {
      // a conv with U made per call (winograd-u makes it before its GEMM): its rows as they are, read ahead as U's are
      await j.prefetch?.();
      await up!.copy(j.buf, 0, j.data, 0, j.data.length);
      last.uploadedBytes += j.data.byteLength;
      continue;
    }
    const r = j.wino!;
    const kt = j.taps / 9;
    const row = j.cin * j.taps; // words of one output channel
    const per = Math.floor(words / row);
    if (!per) {
      await j.prefetch?.(); // lazy weights: read into their reused buffers (Weights.prefetch), no buffer of its own
      const u = packWinogradWeight(j.data, r, j.cout, j.cin, kt);
      device.queue.writeBuffer(j.buf, 0, storageBytes(j.winoMma ? winoMmaWeightLayout(u, r, j.cout, j.cin, kt) : u, j.winoElem ?? 'f32'));
      last.js++;
      continue;
    }
    const def = j.winoMma ? winogradMmaWeights(r) : winogradWeights(r); // the tensor-core GEMM's layout (kernels/winograd-mma.ts)
    const pipeline = await cache.get(def, {}, j.winoElem ?? 'f32');
    const group = device.createBindGroup({
      layout: cache.bindGroupLayout(def),
      entries: [
        { binding: 0, resource: { buffer: staging!, size: words * 4 } },
        { binding: 1, resource: { buffer: j.buf } },
      ],
    });
    for (let o0 = 0; o0 < j.cout; o0 += per) {
      const n = Math.min(per, j.cout - o0);
      await j.prefetch?.(); // lazy weights: read into their reused buffers (a no-op once this weight is the one held)
      const rows = await up!.begin();
      rows.set(j.data.subarray(o0 * row, (o0 + n) * row));
      last.uploadedBytes += n * row * 4;
      const p = { cin: j.cin, kt, cout: j.cout, o0, n, src0: 0 };
      device.queue.writeBuffer(uniforms, 0, encodeParams(def, p));
      const enc = device.createCommandEncoder({ label: def.id });
      up!.end(enc, staging!, 0, n * row * 4);
      const pass = enc.beginComputePass({ label: def.id });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.setBindGroup(1, params!, [0]);
      pass.dispatchWorkgroups(...def.dispatch(p, {}));
      pass.end();
      device.queue.submit([enc.finish()]);
      up!.submitted();
      last.chunks++;
    }
    last.gpu++;
  }
}
