// Weight packing and upload: exactly the buffers the planner counted (step-kinds.ts `weights` of every
// step, once per key), each packed for its kernel (conv3d's cout-padded layout, or conv3d-mma's blocked
// one on tensor cores) and converted to the storage precision. With a streamed plan (weight-stream.ts)
// the conv weights are packed here too but kept in CPU memory; only the rest is uploaded.
// Tensor-core plans with f16 weights: the conv weights are not packed in JS but prepared on the GPU
// (prepareBlockedWeights: f32 rows uploaded into the operand copy, shaders/weights-block.wgsl re-blocks
// and rounds them; H200, Wan2.2's 530 M weights: 0.91 s instead of 11.0 s of JS, 2026-12-01, 22f5ac7).
import { encodeParams, type Elem, type KernelDef, type PipelineCache } from '../../gpu/kernel';
import { packConvWeightBlocked } from '../../kernels/conv3d-mma';
import { upPhaseWeight } from '../../kernels/conv-layout';
import { blockChunks, blockParams, weightsBlock, type BlockedShape } from '../../kernels/weights-block';
import { convWeightFormat, packF16Pairs, packInt8, packInt8BlockedRows, type WeightsPrecision } from '../../model/quantize';
import type { Weights } from '../../model/weights';
import type { PrepReport } from '../../options/decode-options';
import type { Arena } from '../arena';
import { storageBytes } from '../f16';
import type { Step } from '../../plan/graph';
import { weightBuffers, type WeightUse } from '../../plan/step-kinds';
import { UploadPair } from './upload-pair';
import { storageUsage } from './usage';

/** The bytes of weight buffer `w` as its kernel reads them (packed by the conv weight format, else in `elem`). */
export function packWeight(w: WeightUse, weights: Weights, elem: Elem, mma: boolean, weightsPrecision?: WeightsPrecision): Uint8Array<ArrayBuffer> {
  // conv weights in a packed format (int8 with per-output-channel scales, f16 pairs) for conv3d-wq
  // for conv3d-wq; int8 on tensor cores: conv3d-mma's blocked layout in int8 + scales for dequant-int8
  const format = convWeightFormat(elem, weightsPrecision);
  const blocked = mma && (format === 'elem' || format === 'int8');
  if (w.conv && format === 'int8' && blocked) {
    // straight from the PyTorch-order rows (the same bytes as packInt8Blocked of the f32 blocked copy, without it)
    const { cout, cin, rows } = w.conv;
    return new Uint8Array(packInt8BlockedRows(weights.get(w.key, [cout, cin, rows / cin]).data, cout, cin, rows / cin).buffer);
  }
  const data = w.data(weights, blocked);
  const packed = w.conv && format === 'int8' ? packInt8(data, w.conv.cout, w.conv.rows) : w.conv && format === 'f16' ? packF16Pairs(data) : null;
  return packed ? new Uint8Array(packed.buffer as ArrayBuffer) : storageBytes(data, w.wino?.f32 || w.winoRows ? 'f32' : elem);
}

/**
 * Uploads every weight buffer `steps` read, except the keys in `skip` (streamed ones), adopting the ones
 * in `reuse` (by key; taken out of it); returns them by key. Shapes are checked (DecoderError naming the key).
 * `jobs` given (and `mode` 'gpu', the default): the blocked f16 conv weights of tensor-core plans are created
 * but not written; they are pushed there for prepareBlockedWeights.
 */
export function uploadWeights(
  device: GPUDevice,
  arena: Arena,
  steps: Iterable<Step>,
  weights: Weights,
  elem: Elem,
  mma: boolean,
  weightsPrecision?: WeightsPrecision,
  skip?: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  reuse?: Map<string, GPUBuffer>,
  jobs?: BlockedWeightJob[],
  mode: WeightPrepMode = 'gpu',
): Map<string, GPUBuffer> {
  const out = new Map<string, GPUBuffer>();
  // the buffer of `bytes` created now, written later from the f32 rows of `src` [cout, cin, taps] by
  // prepareBlockedWeights / the Winograd or portable preparation (a job of kind `kind`)
  // (`map`: the rows the job prepares are made from the model's rows of `srcTaps` taps: conv-layout.ts upPhaseWeight)
  const defer = (w: WeightUse, src: string, cout: number, cin: number, taps: number, bytes: number, kind: JobKind = {}, map?: { srcTaps: number; rows: (d: Float32Array) => Float32Array }) => {
    // Weights.get checks the count and the first dim (as the JS path's packWeight does)
    const t = weights.get(src, [cout, cin, map ? map.srcTaps : taps]);
    const buf = arena.create('weights', w.key, bytes, storageUsage());
    let from: Float32Array | undefined, mapped: Float32Array | undefined; // map's result for the rows last read
    jobs!.push({
      key: w.key,
      buf,
      get data() {
        if (!map) return t.data;
        if (t.data !== from) mapped = map.rows((from = t.data));
        return mapped!;
      },
      prefetch: () => weights.prefetch(src),
      cout,
      cin,
      taps,
      ...kind,
    });
    out.set(w.key, buf);
  };
  for (const w of weightBuffers(steps)) {
    if (skip?.has(w.key)) continue;
    // the previous decoder's buffer of this key (same model, storage and packing: GpuDecoder checks): adopted, not uploaded again
    const old = reuse?.get(w.key);
    if (old) {
      reuse!.delete(w.key);
      out.set(w.key, arena.adopt('weights', old));
      continue;
    }
    // tensor cores, f16 weights: conv3d-mma's blocked layout, prepared on the GPU from the f32 rows
    if (jobs && mode === 'gpu' && w.conv && w.conv.blocked > 0 && mma && elem === 'f16' && convWeightFormat(elem, weightsPrecision) === 'elem') {
      const { cout, cin, rows, upPhases } = w.conv;
      // an upsample Conv2d's four phases (plan/conv-form.ts upPhases): the 16-tap rows made from the model's 3x3 weight here, blocked on the GPU
      if (upPhases) defer(w, upPhases, cout, cin, 16, w.conv.blocked * 2, {}, { srcTaps: 9, rows: (d) => upPhaseWeight(d, cout, cin) });
      else defer(w, w.key, cout, cin, rows / cin, w.conv.blocked * 2);
      continue;
    }
    // Winograd convs (portable f32 / f16 plans): U = G g G^T in the storage type, prepared on the GPU from the f32 rows (exec/wino-weights.ts)
    if (jobs && mode === 'gpu' && w.wino) {
      const { r, cout, cin, kt } = w.wino;
      const uElem: Elem = w.wino.f32 ? 'f32' : elem;
      defer(w, w.wino.src, cout, cin, kt * 9, Math.ceil((w.elems * (uElem === 'f16' ? 2 : 4)) / 4) * 4, { wino: r, winoElem: uElem, winoMma: w.wino.mma });
      continue;
    }
    // Winograd convs with U made per call: their f32 rows as they are, read ahead and uploaded by the Winograd preparation (exec/wino-weights.ts)
    if (jobs && mode === 'gpu' && w.winoRows) {
      const { src, cout, cin, kt } = w.winoRows;
      defer(w, src, cout, cin, kt * 9, w.elems * 4, { wino: 2, winoRows: true }); // (`wino` routes the job to the Winograd preparation)
      continue;
    }
    // portable convs, conv weights stored in `elem`: conv3d's layout, prepared on the GPU from the f32 rows (exec/weights-pack.ts)
    if (jobs && mode === 'gpu' && w.conv && !mma && convWeightFormat(elem, weightsPrecision) === 'elem') {
      const { cout, cin, rows } = w.conv;
      defer(w, w.key, cout, cin, rows / cin, w.elems * (elem === 'f16' ? 2 : 4), { portable: elem });
      continue;
    }
    const bytes = packWeight(w, weights, elem, mma, weightsPrecision);
    const buf = arena.create('weights', w.key, bytes.byteLength, storageUsage());
    device.queue.writeBuffer(buf, 0, bytes);
    out.set(w.key, buf);
  }
  return out;
}

/** One blocked f16 conv weight whose buffer is created but not yet written (prepareBlockedWeights writes it). */
export interface BlockedWeightJob extends BlockedShape {
  key: string;
  buf: GPUBuffer;
  /** the PyTorch-order f32 weight [cout, cin, taps] (shape checked; a getter: lazy weights read it from their file when the job runs) */
  readonly data: Float32Array;
  /** reads `data` ahead into the lazy weights' reused buffers (Weights.prefetch); `data` is then valid until the next job's prefetch */
  prefetch?: () => Promise<void>;
  /** set: conv3d's portable layout in this storage precision (exec/weights-pack.ts), not the blocked one */
  portable?: Elem;
  /** set: a Winograd conv's U = G g G^T (exec/wino-weights.ts; taps = kt * 9), not the blocked layout */
  wino?: 2 | 4;
  /** with wino: U's storage type (default f32) */
  winoElem?: Elem;
  /** with wino: U in the tensor-core GEMM's layout (kernels/winograd-mma-layout.ts), not packWinogradWeight's */
  winoMma?: boolean;
  /** with wino: no U, the f32 rows as they are (a conv with U made per call, plan/conv-form.ts WinoPlan.u) */
  winoRows?: boolean;
}

/** What a job prepares beyond conv3d-mma's blocked layout (none set: the blocked layout). */
type JobKind = Pick<BlockedWeightJob, 'portable' | 'wino' | 'winoElem' | 'winoMma' | 'winoRows'>;

/**
 * How the blocked f16 weights of tensor-core plans are prepared: 'gpu' (default) uploads the f32 rows and
 * re-blocks + rounds them with weights-block (shaders/weights-block.wgsl), 'js' packs them here
 * (packConvWeightBlocked + storageBytes: 11.0 s for Wan2.2's 530 M weights on the H200's host, GPU path 0.91 s, 2026-12-01, 22f5ac7).
 * Same bytes either way (test/runtime/weights-prep.test.ts). A decoder's choice (GpuDecoder.create's
 * `weightPrep`), not a module setting: two decoders of one process may differ.
 */
export type WeightPrepMode = 'gpu' | 'js';

/** What one preparation did: weights prepared on the GPU / in JS, submissions, f32 bytes uploaded, ms until all was submitted (the shape DecodeResult.startup reports). */
export type PrepCounts = PrepReport;

/** Upper bound of one staged upload (bytes): the f32 rows of one submission. */
export const PREP_CHUNK_BYTES = 64 * 2 ** 20;

/** The JS preparation of one job (the path of packWeight): re-block, then f16. */
function prepareInJs(device: GPUDevice, j: BlockedWeightJob): void {
  device.queue.writeBuffer(j.buf, 0, storageBytes(packConvWeightBlocked(j.data, j.cout, j.cin, j.taps, 1), 'f16'));
}

/**
 * Writes every job's buffer: on the GPU through `staging` (bounded chunks of whole output-channel rows,
 * one weights-block dispatch per weight part, params in `uniforms` at `stride`-byte slots, one submission
 * per chunk), in JS where the GPU path cannot run: mode 'js', no staging (plans without tensor cores'
 * operand copy), or a weight whose one output channel does not fit the staging. `staging` holds f32 rows
 * meanwhile and is cleared to zeros afterwards (as created); `uniforms` is the decoder's params buffer,
 * which the decode rewrites per run (queue order keeps the two apart). Both are the plan's own buffers:
 * the preparation allocates no GPU memory (peak = planned). Resolves once everything is submitted.
 */
export async function prepareBlockedWeights(
  device: GPUDevice,
  cache: PipelineCache,
  jobs: BlockedWeightJob[],
  staging: GPUBuffer | null,
  uniforms: GPUBuffer,
  stride: number,
  mode: WeightPrepMode = 'gpu',
): Promise<PrepCounts> {
  const last: PrepCounts = { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 };
  const words = staging && mode === 'gpu' ? stagingWords(device, staging) : 0;
  await runStagedPrep(device, cache, jobs, staging, words, uniforms, stride, { def: weightsBlock, overrides: {}, chunks: blockChunks, params: blockParams, inJs: prepareInJs }, last);
  return last;
}

/** f32 words of `staging` one staged chunk may use: its size, the binding limit and PREP_CHUNK_BYTES. */
export const stagingWords = (device: GPUDevice, staging: GPUBuffer): number => Math.floor(Math.min(staging.size, device.limits.maxStorageBufferBindingSize, PREP_CHUNK_BYTES) / 4);

/** One part of a staged chunk: output channels o0 .. o0 + n - 1 of job `job`, `staged` of them uploaded from word src0. */
export interface StagedPart {
  job: number;
  o0: number;
  n: number;
  staged: number;
  src0: number;
}

/** A GPU weight preparation from staged f32 rows (weights-block, weights-pack): its kernel, the cut into chunks, each part's params, the JS path. */
export interface StagedPrep<P extends Record<string, number>> {
  def: KernelDef<P>;
  overrides: Record<string, number>;
  chunks(shapes: readonly BlockedShape[], stagingWords: number, maxParts: number): { chunks: StagedPart[][]; tooLarge: number[] };
  params(shape: BlockedShape, part: StagedPart): P;
  inJs(device: GPUDevice, job: BlockedWeightJob): void;
}

/**
 * Runs preparation `k` over every job: the model's f32 rows go up as they are into `staging` (`words`
 * words per chunk; 0: every job in JS) through a mapped pair (exec/upload-pair.ts: copied into a mapped
 * buffer, moved into staging first in the chunk's submission), one dispatch per part with its params in `uniforms` at `stride`-byte
 * slots, one submission per chunk; jobs no chunk takes (one output-channel group larger than the staging)
 * in JS. `staging` is cleared to zeros afterwards (as created). Records what it did in `last`.
 */
export async function runStagedPrep<P extends Record<string, number>>(
  device: GPUDevice,
  cache: PipelineCache,
  jobs: BlockedWeightJob[],
  staging: GPUBuffer | null,
  words: number,
  uniforms: GPUBuffer,
  stride: number,
  k: StagedPrep<P>,
  last: PrepCounts,
): Promise<void> {
  const t0 = performance.now();
  const { chunks, tooLarge } = k.chunks(jobs, words, Math.max(1, Math.floor(uniforms.size / stride)));
  for (const j of tooLarge) {
    await jobs[j]!.prefetch?.();
    k.inJs(device, jobs[j]!);
  }
  last.js = tooLarge.length;
  if (chunks.length) {
    const pipeline = await cache.get(k.def, k.overrides, 'f32');
    const params = device.createBindGroup({ layout: cache.paramsLayout, entries: [{ binding: 0, resource: { buffer: uniforms, size: 256 } }] });
    const groups = new Map<number, GPUBindGroup>();
    const group = (j: number) => {
      let g = groups.get(j);
      if (!g)
        groups.set(
          j,
          (g = device.createBindGroup({
            layout: cache.bindGroupLayout(k.def),
            entries: [
              { binding: 0, resource: { buffer: staging!, size: words * 4 } },
              { binding: 1, resource: { buffer: jobs[j]!.buf } },
            ],
          })),
        );
      return g;
    };
    // each chunk's rows through a mapped buffer of the pair (exec/upload-pair.ts), copied into staging in the chunk's submission
    const bytes = Math.max(...chunks.map((c) => Math.max(...c.map((part) => (part.src0 + part.staged * jobs[part.job]!.cin * jobs[part.job]!.taps) * 4))));
    const up = new UploadPair(device, bytes, k.def.id);
    let used = 0;
    try {
      for (const chunk of chunks) {
        const words = await up.begin();
        let chunkBytes = 0;
        for (const part of chunk) {
          const j = jobs[part.job]!;
          const row = j.cin * j.taps;
          // the model's own rows (read ahead into the reused buffers of lazy weights), copied as they are
          await j.prefetch?.();
          words.set(j.data.subarray(part.o0 * row, (part.o0 + part.staged) * row), part.src0);
          last.uploadedBytes += part.staged * row * 4;
          chunkBytes = Math.max(chunkBytes, (part.src0 + part.staged * row) * 4);
        }
        used = Math.max(used, chunkBytes);
        const uni = new Uint8Array(chunk.length * stride);
        const enc = device.createCommandEncoder({ label: k.def.id });
        up.end(enc, staging!, 0, chunkBytes);
        const pass = enc.beginComputePass({ label: k.def.id });
        pass.setPipeline(pipeline);
        for (const [i, part] of chunk.entries()) {
          const p = k.params(jobs[part.job]!, part);
          uni.set(encodeParams(k.def, p), i * stride);
          pass.setBindGroup(0, group(part.job));
          pass.setBindGroup(1, params, [i * stride]);
          pass.dispatchWorkgroups(...k.def.dispatch(p, {}));
        }
        pass.end();
        device.queue.writeBuffer(uniforms, 0, uni);
        device.queue.submit([enc.finish()]);
        up.submitted();
      }
    } finally {
      up.destroy();
    }
    const clear = device.createCommandEncoder({ label: `${k.def.id} staging cleared` });
    clear.clearBuffer(staging!, 0, Math.ceil(used / 4) * 4);
    device.queue.submit([clear.finish()]);
    last.chunks = chunks.length;
    last.gpu = jobs.length - tooLarge.length;
  }
  jobs.length = 0; // the f32 arrays are the model's; nothing here keeps them
  last.ms = performance.now() - t0;
}
