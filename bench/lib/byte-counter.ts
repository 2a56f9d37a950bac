// Peak GPU bytes, counted by wrapping GPUDevice.prototype.createBuffer and GPUBuffer.prototype.destroy
// while installed. One counter for both sides of a comparison: our decode (bench/lib/decode.ts, one
// device) and onnxruntime (bench/onnx/run-ort.ts, its device or every device), so the two numbers
// compare. Prototype patches live from construction until `stop`.

export class ByteCounter {
  live = 0;
  peak = 0;
  created = 0;
  private readonly sizes = new WeakMap<GPUBuffer, number>();
  private readonly restore: () => void;

  /**
   * Counts the buffers `device` creates; with `device` undefined, the buffers of every device.
   * `who` names the caller in the error thrown when WebGPU's GPUDevice / GPUBuffer are not globals.
   */
  constructor(device: GPUDevice | undefined, who = 'ByteCounter') {
    const devProto = (globalThis as { GPUDevice?: { prototype: GPUDevice } }).GPUDevice?.prototype;
    const bufProto = (globalThis as { GPUBuffer?: { prototype: GPUBuffer } }).GPUBuffer?.prototype;
    if (!devProto || !bufProto) throw new Error(`${who}: GPUDevice / GPUBuffer are not globals here (WebGPU missing?): cannot count GPU bytes`);
    const create = devProto.createBuffer;
    const destroy = bufProto.destroy;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    devProto.createBuffer = function (this: GPUDevice, desc: GPUBufferDescriptor): GPUBuffer {
      const b = create.call(this, desc);
      if (!device || this === device) {
        const size = Number(desc.size);
        self.sizes.set(b, size);
        self.live += size;
        self.created++;
        if (self.live > self.peak) self.peak = self.live;
      }
      return b;
    };
    bufProto.destroy = function (this: GPUBuffer): undefined {
      const size = self.sizes.get(this);
      if (size !== undefined) {
        self.sizes.delete(this);
        self.live -= size;
      }
      return destroy.call(this);
    };
    this.restore = () => {
      devProto.createBuffer = create;
      bufProto.destroy = destroy;
    };
  }

  stop(): void {
    this.restore();
  }
}
