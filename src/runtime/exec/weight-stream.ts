// Weight streaming at run time (plan/weight-stream.ts plans it): the packed conv weights of every group
// stay in CPU memory (one Uint8Array per group, packed once when the decoder is built); the GPU holds a
// ring of `slots` buffers of `slotBytes`. A conv binds its weight as a range of the slot of its group
// (bind groups are made once: a key's slot and offset never change). A program run is recorded as
// segments, one per change of group; a segment's group is written into its slot when the slot holds another
// group, one segment ahead where the slot is not the one the segment before reads (else right before it):
// copied on the host into one of two mapped buffers (exec/upload-pair.ts) and moved into the slot by a
// copyBufferToBuffer submitted after the segments already submitted, which read the slot's previous group.
// The host copy happens while the GPU still runs the work submitted before; it waits only for the buffer of
// the upload before the last one to be mapped again.
// (queue.writeBuffer did the same with Dawn's own upload memory, allocated per write: 1.2-2.7 GB/s against
// 3.3-7.0 GB/s through the pair, bench/results/h200/mapped-upload-h100-2026-12-07-d386c5d/.)
import { DecoderError } from '../../gpu/errors';
import type { Elem } from '../../gpu/kernel';
import type { Weights } from '../../model/weights';
import type { Step } from '../../plan/graph';
import type { Plan } from '../../plan/planner';
import { weightBuffers } from '../../plan/step-kinds';
import { streamedKey, type WeightStreamPlan } from '../../plan/weight-stream';
import type { Arena } from '../arena';
import { UploadPair } from './upload-pair';
import { storageUsage } from './usage';
import { PREP_CHUNK_BYTES, packWeight } from './weights';

export class WeightStream {
  readonly slotBuffers: GPUBuffer[];
  private readonly host: Uint8Array<ArrayBuffer>[];
  /** the group each slot holds now (-1: none yet) */
  private readonly held: number[];
  /** the two mapped buffers the uploads go through (made at the first upload; host memory the plan does not count, as Dawn's upload memory is not) */
  private pair: UploadPair | null = null;
  /** bytes and writes uploaded since the decoder was built (tests compare them with the plan's replay) */
  uploadedBytes = 0;
  uploads = 0;
  /** ms since the build spent in ensure(): waiting for an upload buffer to be mapped again (the GPU behind) and in the rest (the host copy, the copy submitted) */
  waitMs = 0;
  copyMs = 0;

  constructor(
    private readonly device: GPUDevice,
    arena: Arena,
    readonly sp: WeightStreamPlan,
    steps: Iterable<Step>,
    weights: Weights,
    elem: Elem,
    mma: boolean,
    weightsPrecision: Plan['opts']['weightsPrecision'],
  ) {
    this.host = sp.groups.map((bytes) => new Uint8Array(bytes));
    for (const w of weightBuffers(steps)) {
      const e = sp.entries.get(w.key);
      if (!e) continue;
      const bytes = packWeight(w, weights, elem, mma, weightsPrecision);
      if (bytes.byteLength > e.bytes) throw new DecoderError('internal', `weight stream: ${w.key} packs to ${bytes.byteLength} bytes, the plan counted ${e.bytes}`);
      this.host[e.group]!.set(bytes, e.offset);
    }
    this.slotBuffers = Array.from({ length: sp.slots }, (_, k) => arena.create('weights', `weight stream slot ${k}`, sp.slotBytes[k]!, storageUsage()));
    this.held = new Array<number>(sp.slots).fill(-1);
  }

  /** The bound range of a streamed key (its group's slot, its offset), or null for a resident key. */
  binding(key: string): GPUBufferBinding | null {
    const e = this.sp.entries.get(key);
    if (!e) return null;
    return { buffer: this.slotBuffers[e.group % this.sp.slots]!, offset: e.offset, size: Math.ceil(e.bytes / 4) * 4 };
  }

  /** The group step `s` reads (-1: none streamed). */
  groupOf(s: Step): number {
    const k = streamedKey(s);
    return k ? this.sp.entries.get(k)!.group : -1;
  }

  /** The ring slot of group `g`. */
  slotOf(g: number): number {
    return g % this.sp.slots;
  }

  /** True when group `g` is in its slot now. */
  holds(g: number): boolean {
    return this.held[this.slotOf(g)] === g;
  }

  /**
   * Writes group `g` into its slot unless the slot holds it already: submits the copies (pieces of at most
   * PREP_CHUNK_BYTES, the largest group's size when smaller), ordered after everything submitted before.
   */
  async ensure(g: number): Promise<void> {
    const k = this.slotOf(g);
    if (this.held[k] === g) return;
    const src = this.host[g]!; // groups are multiples of STREAM_ALIGN bytes
    this.pair ??= new UploadPair(this.device, Math.min(PREP_CHUNK_BYTES, Math.max(...this.sp.groups)), 'weight stream');
    // the slot is unclaimed while its pieces go in: an upload that fails part way (a cancel, a lost device)
    // leaves it holding no group, so the next decode writes it whole
    this.held[k] = -1;
    const t0 = performance.now();
    const waited = await this.pair.copy(this.slotBuffers[k]!, 0, new Float32Array(src.buffer, src.byteOffset, src.byteLength / 4), 0, src.byteLength / 4);
    this.waitMs += waited;
    this.copyMs += performance.now() - t0 - waited;
    this.held[k] = g;
    this.uploadedBytes += src.byteLength;
    this.uploads++;
  }

  /** Frees the upload buffers (the ring slots are the arena's). */
  destroy(): void {
    this.pair?.destroy();
    this.pair = null;
  }
}

/**
 * The command encoders of one program run: `first`, then one per segment `split(group)` opens (the step
 * encoder calls it where a conv reads a new group). `submit()` submits them in order, writing each
 * segment's group first where needed; consecutive segments with nothing to upload go in one submit.
 */
export class Segments {
  private readonly list: { group: number; enc: GPUCommandEncoder }[];
  /** null without a stream: the step encoder then records into `first` only */
  readonly split: ((group: number) => GPUCommandEncoder) | null;

  constructor(
    private readonly device: GPUDevice,
    label: string,
    private readonly stream: WeightStream | null,
  ) {
    this.list = [{ group: -1, enc: device.createCommandEncoder({ label }) }];
    this.split = stream
      ? (group) => {
          const enc = device.createCommandEncoder({ label: `${label} weights group ${group}` });
          this.list.push({ group, enc });
          return enc;
        }
      : null;
  }

  get first(): GPUCommandEncoder {
    return this.list[0]!.enc;
  }

  /** the encoder of the last segment (the run's final copies go there) */
  get last(): GPUCommandEncoder {
    return this.list.at(-1)!.enc;
  }

  async submit(): Promise<void> {
    let batch: GPUCommandBuffer[] = [];
    const s = this.stream;
    // a write must follow the segments recorded before it (they read the slot's previous group): submit them first
    const write = async (g: number) => {
      if (batch.length) this.device.queue.submit(batch);
      batch = [];
      await s!.ensure(g);
    };
    for (let i = 0; i < this.list.length; i++) {
      const { group, enc } = this.list[i]!;
      if (group >= 0 && s && !s.holds(group)) await write(group);
      // the next segment's group one segment ahead, where its slot is not this segment's: what the slot holds now
      // is read only by segments submitted already (a segment reads one group), so the copy may go before this
      // segment; the same uploads as just in time, earlier in the queue (bench/probes/copy-overlap.mjs: whether
      // the GPU then runs it beside this segment's compute)
      const next = this.list[i + 1]?.group ?? -1;
      if (s && next >= 0 && !s.holds(next) && (group < 0 || s.slotOf(next) !== s.slotOf(group))) await write(next);
      batch.push(enc.finish());
    }
    if (batch.length) this.device.queue.submit(batch);
  }
}
