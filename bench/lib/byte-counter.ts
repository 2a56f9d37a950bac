// Peak GPU bytes of one device, counted by wrapping GPUDevice.prototype.createBuffer and
// GPUBuffer.prototype.destroy while installed: the same method bench/onnx/run-ort.ts uses for
// onnxruntime, so the two numbers compare. Prototype patches live from construction until `stop`.

export class ByteCounter {
  live = 0;
  peak = 0;
  created = 0;
  private readonly sizes = new WeakMap<GPUBuffer, number>();
  private readonly restore: () => void;

  constructor(device: GPUDevice) {
    const devProto = (globalThis as { GPUDevice?: { prototype: GPUDevice } }).GPUDevice!.prototype;
    const bufProto = (globalThis as { GPUBuffer?: { prototype: GPUBuffer } }).GPUBuffer!.prototype;
    const create = devProto.createBuffer;
    const destroy = bufProto.destroy;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    devProto.createBuffer = function (this: GPUDevice, desc: GPUBufferDescriptor): GPUBuffer {
      const b = create.call(this, desc);
      if (this === device) {
        self.sizes.set(b, Number(desc.size));
        self.live += Number(desc.size);
        self.created++;
        self.peak = Math.max(self.peak, self.live);
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
