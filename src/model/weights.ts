// Decoder weights: a safetensors / torch.save checkpoint (or any name -> tensor) normalised to original key
// names, as f32. From a source with synchronous reads (a Node file, a Blob in a worker, bytes) the weights
// are lazy: a tensor is read from the file when `data` is asked for (the GPU upload packs one at a time),
// so a weight load holds one tensor (its bytes and its f32 values) plus the small ones, whatever the size
// of the file; the encoder and anything else the decoder does not use is never read.
import { DecoderError } from '../gpu/errors';
import { bytesToF32, indexCheckpoint, tensorBytesSync, type CheckpointIndex, type IndexedTensor } from './checkpoint';
import { isDiffusersWan22, toOriginalKey } from './keys';
import { printable } from './printable';
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

/** f32 elements of a located tensor */
const elemsOf = (t: IndexedTensor) => t.shape.reduce((a, b) => a * b, 1);

/**
 * Reads a lazy weight's tensor from its source: the last one read is kept (a staged upload asks for it per
 * part), small ones always. `read` is synchronous (a buffer per tensor); `prefetch` (the staged upload's,
 * where the source has readInto) reads into one staging buffer reused for every tensor and converts a
 * 16-bit tensor into one reused f32 buffer, so the renderer never holds more than those two plus the
 * small tensors, whenever its GC runs. A prefetched tensor's values are valid until the next prefetch.
 */
class TensorReader {
  private last: { t: IndexedTensor; data: Float32Array } | null = null;
  private readonly small = new Map<IndexedTensor, Float32Array>();
  private smallBytes = 0;
  private readonly seen = new Set<IndexedTensor>();
  private done = 0;
  /** prefetch's reused buffers: the file's bytes of one tensor, its f32 values (16-bit and F64 files) */
  private staging: ArrayBuffer | null = null;
  private f32: Float32Array | null = null;

  constructor(
    private readonly src: WeightSource,
    readonly stats: WeightLoadStats,
    /** the tensors read by key, for prefetch; their largest in bytes in the file and in f32 elements */
    readonly tensors: ReadonlyMap<string, IndexedTensor>,
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
    this.took(t, data, (data.buffer === b.buffer ? 0 : data.byteLength) + (fresh ? b.byteLength : 0), t0);
    return data;
  }

  /** Reads the tensor `key` into the reused buffers (a no-op for small, kept or unknown ones, or a source without readInto). */
  async prefetch(key: string): Promise<void> {
    const t = this.tensors.get(key);
    if (!t || !this.src.readInto || this.last?.t === t || this.small.has(t) || elemsOf(t) * 4 <= KEEP_SMALL_BYTES) return;
    const t0 = performance.now();
    this.last = null; // its values may lie in the staging buffer
    let into = this.staging;
    this.staging = null; // taken over by the read (detached) until it returns it
    if (!into || into.byteLength < t.byteLength) into = new ArrayBuffer(Math.max(...[...this.tensors.values()].map((x) => x.byteLength)));
    const b = await this.src.readInto(t.offset, t.byteLength, into);
    this.staging = b.buffer;
    let data: Float32Array;
    if (t.dtype === 'F32') data = new Float32Array(b.buffer, 0, t.byteLength / 4);
    else {
      if (!this.f32 || this.f32.length < elemsOf(t)) this.f32 = new Float32Array(Math.max(...[...this.tensors.values()].map(elemsOf)));
      data = bytesToF32(t, b, true, this.f32);
    }
    // held: the staging buffer and the conversion buffer, whatever this tensor's size
    this.took(t, data, this.staging.byteLength + (this.f32?.byteLength ?? 0), t0);
  }

  /** Records a read: window, counts, time, progress; keeps the values (small: always; else as the last). */
  private took(t: IndexedTensor, data: Float32Array, held: number, t0: number): void {
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
  }

  /** Drops the kept last tensor and prefetch's buffers (after an upload: nothing needs them until the next one). */
  release(): void {
    this.last = null;
    this.staging = null;
    this.f32 = null;
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

  /**
   * Lazy weights from a source with readInto: reads tensor `key` now into the reader's reused buffers, so
   * that the next `get(key).data` is those values (valid until the next prefetch); resolves at once otherwise.
   */
  prefetch(key: string): Promise<void> {
    return this.reader?.prefetch(key) ?? Promise.resolve();
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
    if (map.has(k)) throw new DecoderError('bad-input', `${source}: tensors ${printable(name)} and another both map to ${printable(k)}`);
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
    if (picked.has(k)) throw new DecoderError('bad-input', `${src.name}: tensors ${printable(name)} and another both map to ${printable(k)}`);
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
    const reader = new TensorReader(src, stats, picked, o.onProgress);
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
