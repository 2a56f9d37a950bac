// GPU busy time of everything a device runs while the probe is installed: every compute pass of every
// command encoder gets timestampWrites (own-property patches of this one GPUDevice and its encoders,
// removed by `stop`), resolved into a readback buffer when the encoder finishes. The sum of pass times
// excludes the gaps between passes and submissions (readbacks, CPU encoding): the wall time minus this
// is what the host-side loop costs. Owns its query sets and buffers (destroyed by `collect`).

/** Passes timed per command encoder (a decode chunk has ~30-60; the rest go untimed, see `untimed`). */
const MAX_PASSES = 512;

interface Slot {
  querySet: GPUQuerySet;
  resolve: GPUBuffer;
  readback: GPUBuffer;
  passes: number;
  /** label of each timed pass (profile mode: exec/encode.ts passProfile) */
  labels: string[];
}

export class PassProbe {
  private readonly slots: Slot[] = [];
  private untimed = 0;
  private readonly restore: () => void;

  constructor(
    private readonly device: GPUDevice,
    /** timed passes per command encoder (a query set holds at most 4096 timestamps: <= 2048) */
    private readonly capacity = MAX_PASSES,
  ) {
    const own = Object.prototype.hasOwnProperty.call(device, 'createCommandEncoder');
    const create = device.createCommandEncoder;
    device.createCommandEncoder = (desc?: GPUCommandEncoderDescriptor) => this.wrap(create.call(device, desc));
    this.restore = () => {
      if (own) device.createCommandEncoder = create;
      else delete (device as { createCommandEncoder?: unknown }).createCommandEncoder;
    };
  }

  static available(device: GPUDevice): boolean {
    return device.features.has('timestamp-query');
  }

  private wrap(enc: GPUCommandEncoder): GPUCommandEncoder {
    const d = this.device;
    const slot: Slot = {
      querySet: d.createQuerySet({ label: 'probe', type: 'timestamp', count: 2 * this.capacity }),
      resolve: d.createBuffer({ label: 'probe resolve', size: 16 * this.capacity, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }),
      readback: d.createBuffer({ label: 'probe readback', size: 16 * this.capacity, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
      passes: 0,
      labels: [],
    };
    this.slots.push(slot);
    const begin = enc.beginComputePass.bind(enc);
    const finish = enc.finish.bind(enc);
    enc.beginComputePass = (desc: GPUComputePassDescriptor = {}) => {
      if (desc.timestampWrites || slot.passes >= this.capacity) {
        this.untimed++;
        return begin(desc);
      }
      const i = slot.passes++;
      slot.labels.push(desc.label ?? '');
      return begin({ ...desc, timestampWrites: { querySet: slot.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
    };
    enc.finish = (desc?: GPUCommandBufferDescriptor) => {
      if (slot.passes) {
        enc.resolveQuerySet(slot.querySet, 0, 2 * slot.passes, slot.resolve, 0);
        enc.copyBufferToBuffer(slot.resolve, 0, slot.readback, 0, 16 * slot.passes);
      }
      return finish(desc);
    };
    return enc;
  }

  /** Uninstalls the probe (idempotent). */
  stop(): void {
    this.restore();
  }

  /** Stops, waits for the GPU, sums every timed pass: { ms, passes, untimed }; frees everything. */
  async collect(): Promise<{ ms: number; passes: number; untimed: number; each: { label: string; ms: number }[] }> {
    this.stop();
    await this.device.queue.onSubmittedWorkDone();
    let ns = 0,
      passes = 0;
    const each: { label: string; ms: number }[] = [];
    for (const s of this.slots) {
      if (s.passes) {
        await s.readback.mapAsync(GPUMapMode.READ);
        const t = new BigUint64Array(s.readback.getMappedRange(0, 16 * s.passes).slice(0));
        s.readback.unmap();
        for (let i = 0; i < s.passes; i++) {
          const d = t[2 * i + 1]! > t[2 * i]! ? Number(t[2 * i + 1]! - t[2 * i]!) : 0;
          ns += d;
          each.push({ label: s.labels[i]!, ms: d / 1e6 });
        }
        passes += s.passes;
      }
      s.querySet.destroy();
      s.resolve.destroy();
      s.readback.destroy();
    }
    this.slots.length = 0;
    return { ms: ns / 1e6, passes, untimed: this.untimed, each };
  }
}
