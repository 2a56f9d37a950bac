// Decoder weights: a safetensors / torch.save checkpoint (or any name -> tensor) normalised to original key
// names, as f32. From a source with synchronous reads (a Node file, a Blob in a worker, bytes) the weights
// are lazy: a tensor is read from the file when `data` is asked for (the GPU upload packs one at a time),
// so a weight load holds one tensor (its bytes and its f32 values) plus the small ones, whatever the size
// of the file; the encoder and anything else the decoder does not use is never read.
import { DecoderError } from '../gpu/errors';
import { bytesToF32, indexCheckpoint, tensorBytesSync, type CheckpointIndex, type IndexedTensor } from './checkpoint';
import { isDiffusersWan22, toOriginalKey } from './keys';
import { parseSafetensors, toFloat32, type StFile } from './safetensors';
import type { WeightSource } from './weight-source';

export interface Weight {
  shape: number[];
  /** the f32 values (a lazy weight reads them from its file at each ask, see TensorReader) */
  readonly data: Float32Array;
  /** dtype in the file, for reporting */
  dtype: string;
}

/** What a weight load read and held (reported by the CLI's --json as `weightLoad`). */
export interface WeightLoadStats {
  format: 'safetensors' | 'pytorch' | 'bytes';
  fileBytes: number;
  /** bytes of decoder tensors in the file */
  decoderBytes: number;
  /** bytes the source returned so far (header, directory, data.pkl, tensors; re-reads counted) */
  bytesRead: number;
  /** tensor reads so far */
  reads: number;
  /** the most CPU memory the reads held at once: one tensor's bytes and f32 values plus the kept small tensors */
  peakWindowBytes: number;
  /** header / directory / pickle, ms */
  indexMs: number;
  /** time in tensor reads and conversion so far, ms */
  readMs: number;
  /** true: tensors read when asked for (bounded window); false: every decoder tensor read up front */
  lazy: boolean;
}

/** Progress of a weight load: a tensor read for the first time, bytes of the file's decoder tensors done / in all. */
export type WeightsProgress = (p: { tensor: string; bytesDone: number; bytesTotal: number }) => void;

/** Tensors of at most this many f32 bytes stay in memory once read (biases, gammas: a few MiB in all). */
export const KEEP_SMALL_BYTES = 256 * 2 ** 10;

/** Reads a lazy weight's tensor from its source: the last one read is kept (a staged upload asks for it per part), small ones always. */
class TensorReader {
  private last: { t: IndexedTensor; data: Float32Array } | null = null;
  private readonly small = new Map<IndexedTensor, Float32Array>();
  private smallBytes = 0;
  private readonly seen = new Set<IndexedTensor>();
  private done = 0;

  constructor(
    private readonly src: WeightSource,
    readonly stats: WeightLoadStats,
    private readonly onProgress?: WeightsProgress,
  ) {}

  read(t: IndexedTensor): Float32Array {
    if (this.last?.t === t) return this.last.data;
    const kept = this.small.get(t);
    if (kept) return kept;
    const t0 = performance.now();
    const b = tensorBytesSync(this.src, t);
    const fresh = this.src.fresh !== false;
    const data = bytesToF32(t, b, fresh);
    // the file's bytes (a buffer of their own, unless the source is bytes in memory) and their f32 values when converted
    const held = (data.buffer === b.buffer ? 0 : data.byteLength) + (fresh ? b.byteLength : 0);
    this.stats.peakWindowBytes = Math.max(this.stats.peakWindowBytes, held + this.smallBytes);
    this.stats.reads++;
    this.stats.bytesRead = this.src.bytesRead;
    this.stats.readMs += performance.now() - t0;
    if (data.byteLength <= KEEP_SMALL_BYTES) {
      this.small.set(t, data);
      this.smallBytes += data.byteLength;
    } else this.last = { t, data };
    if (!this.seen.has(t)) {
      this.seen.add(t);
      this.done += t.byteLength;
      this.onProgress?.({ tensor: t.name, bytesDone: this.done, bytesTotal: this.stats.decoderBytes });
    }
    return data;
  }

  /** Drops the kept last tensor (after an upload: nothing needs it until the next one). */
  release(): void {
    this.last = null;
  }
}

export class Weights {
  constructor(
    readonly map: Map<string, Weight>,
    readonly source: string,
    /** tensors of the file the decoder cannot read (original key -> dtype), named when they are asked for */
    private readonly skipped: Map<string, string> = new Map(),
    /** a checkpoint read by openWeights: what the load read and held */
    readonly load: WeightLoadStats | null = null,
    private readonly reader: TensorReader | null = null,
  ) {}

  /** Lazy weights: drops the tensor kept from the last read (the GPU upload calls it when done). */
  releaseReads(): void {
    this.reader?.release();
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  /** The tensor `key` (original name), checked against `shape` when given. */
  get(key: string, shape?: number[]): Weight {
    const w = this.map.get(key);
    if (!w && this.skipped.has(key)) throw new DecoderError('bad-input', `${this.source}: tensor ${key} has dtype ${this.skipped.get(key)}, expected a float dtype (F32, F16, BF16 or F64)`);
    if (!w) throw new DecoderError('bad-input', `${this.source}: missing tensor ${key}`);
    if (shape) {
      const n = w.shape.reduce((a, b) => a * b, 1),
        m = shape.reduce((a, b) => a * b, 1);
      // gamma is stored (C,1,1,1) or (C,1,1): compare element counts and the first dim
      if (n !== m || w.shape[0] !== shape[0]) throw new DecoderError('bad-input', `${this.source}: tensor ${key} has shape [${w.shape}], expected [${shape}]`);
    }
    return w;
  }

  get paramCount(): number {
    let n = 0;
    for (const w of this.map.values()) n += w.shape.reduce((a, b) => a * b, 1);
    return n;
  }
}

/** Decoder weights from a parsed safetensors file (official, diffusers or ComfyUI naming). */
export function weightsFromSafetensors(file: StFile, source: string): Weights {
  const d22 = isDiffusersWan22(file.tensors.keys());
  const map = new Map<string, Weight>();
  for (const [name, t] of file.tensors) {
    const k = toOriginalKey(name, d22);
    if (!k) continue;
    if (map.has(k)) throw new DecoderError('bad-input', `${source}: tensors ${name} and another both map to ${k}`);
    map.set(k, { shape: t.shape, data: toFloat32(t), dtype: t.dtype });
  }
  if (!map.size) throw new DecoderError('bad-input', `${source}: no decoder tensors found (expected keys like decoder.conv1.weight or decoder.conv_in.weight)`);
  const skipped = new Map<string, string>();
  for (const [name, dtype] of file.skipped ?? []) {
    const k = toOriginalKey(name, d22);
    if (k) skipped.set(k, dtype);
  }
  return new Weights(map, source, skipped);
}

export function loadWeights(bytes: Uint8Array, source: string): Weights {
  return weightsFromSafetensors(parseSafetensors(bytes, source), source);
}

/**
 * Decoder weights from the checkpoint at `src` (safetensors or torch.save zip, any size). Sources with
 * synchronous reads give lazy weights (see TensorReader); the others (fetch in a page's main thread) read
 * every decoder tensor now, one at a time, in file order. The encoder is never read.
 */
export async function openWeights(src: WeightSource, o: { onProgress?: WeightsProgress } = {}): Promise<Weights> {
  const t0 = performance.now();
  let d22 = false;
  const index: CheckpointIndex = await indexCheckpoint(src, (names) => {
    d22 = isDiffusersWan22(names);
    return (n) => toOriginalKey(n, d22) !== null;
  });
  if (index.format === 'safetensors') d22 = isDiffusersWan22(index.tensors.keys());
  const picked = new Map<string, IndexedTensor>();
  for (const [name, t] of index.tensors) {
    const k = toOriginalKey(name, d22);
    if (!k) continue;
    if (picked.has(k)) throw new DecoderError('bad-input', `${src.name}: tensors ${name} and another both map to ${k}`);
    picked.set(k, t);
  }
  if (!picked.size)
    throw new DecoderError(
      'bad-input',
      `${src.name}: no decoder tensors found (expected keys like decoder.conv1.weight or decoder.conv_in.weight; has: ${[...index.tensors.keys()].slice(0, 6).join(', ')}${index.tensors.size > 6 ? ', ...' : ''})`,
    );
  const stats: WeightLoadStats = {
    format: index.format,
    fileBytes: src.size,
    decoderBytes: 0,
    bytesRead: src.bytesRead,
    reads: 0,
    peakWindowBytes: 0,
    indexMs: performance.now() - t0,
    readMs: 0,
    lazy: !!src.readSync,
  };
  for (const t of picked.values()) stats.decoderBytes += t.byteLength;
  const skipped = new Map<string, string>();
  for (const [name, dtype] of index.skipped) {
    const k = toOriginalKey(name, d22);
    if (k) skipped.set(k, dtype);
  }
  const map = new Map<string, Weight>();
  if (src.readSync) {
    const reader = new TensorReader(src, stats, o.onProgress);
    for (const [k, t] of picked)
      map.set(k, {
        shape: t.shape,
        dtype: t.dtype,
        get data() {
          return reader.read(t);
        },
      });
    return new Weights(map, src.name, skipped, stats, reader);
  }
  // async reads only: every decoder tensor now, in file order
  let done = 0,
    held = 0;
  for (const [k, t] of [...picked].sort((a, b) => a[1].offset - b[1].offset)) {
    const t1 = performance.now();
    const b = await src.read(t.offset, t.byteLength);
    const data = bytesToF32(t, b, true);
    map.set(k, { shape: t.shape, dtype: t.dtype, data });
    stats.reads++;
    stats.readMs += performance.now() - t1;
    done += t.byteLength;
    held += data.byteLength;
    stats.peakWindowBytes = Math.max(stats.peakWindowBytes, held + (data.buffer === b.buffer ? 0 : b.byteLength));
    o.onProgress?.({ tensor: t.name, bytesDone: done, bytesTotal: stats.decoderBytes });
  }
  stats.bytesRead = src.bytesRead;
  return new Weights(map, src.name, skipped, stats, null);
}
