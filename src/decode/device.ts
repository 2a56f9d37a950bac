// The GPU device of a decoder: requested on first use (or the one the caller gave), watched for loss,
// and replaced after it is lost (the next request asks for a new one). Part of the decoder facade
// (src/decoder.ts); the fault re-plan loop that reacts to a loss is in gpu-session.ts.
import { requestDecoderDevice, type DecoderDevice } from '../gpu/device';

export interface GpuEntry {
  device: GPUDevice;
  description: string;
  info: DecoderDevice['info'];
  f16: boolean;
  mma: { subgroupSize: number } | null;
  /** set once the device is lost */
  lost: GPUDeviceLostInfo | null;
  /**
   * called once when the device is lost. A set of callbacks, not races on device.lost: every reaction
   * attached to that never-settling promise would keep its closure (and a decode's video) alive.
   */
  onLost: Set<(info: GPUDeviceLostInfo) => void>;
}

/** True when `d` is lost now or within `ms` (a loss is reported asynchronously, after the errors it causes). */
export function lostWithin(d: GpuEntry, ms: number): Promise<boolean> {
  if (d.lost) return Promise.resolve(true);
  return new Promise((resolve) => {
    const hit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      d.onLost.delete(hit);
      resolve(false);
    }, ms);
    d.onLost.add(hit);
  });
}

/** Record the loss of `e` once and tell the waiting decodes. */
function markLost(e: GpuEntry, info: GPUDeviceLostInfo): void {
  if (e.lost) return;
  e.lost = info;
  for (const f of [...e.onLost]) f(info);
  e.onLost.clear();
}

/** A device-lost message that says the device ran out of memory (Dawn: "vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY"). */
export const OOM_TEXT = /out.?of.?(device.?|host.?)?memory|OutOfMemory/i;

/** The device of one decoder: `get()` requests it once (again after a loss), `forget()` drops it. */
export class DeviceSlot {
  private device: Promise<GpuEntry> | null = null;

  /** `given`: an existing device to decode on (default: request one on first use; after it is lost, a new one). */
  constructor(private given?: DecoderDevice) {}

  async get(): Promise<GpuEntry> {
    this.device ??= (this.given ? Promise.resolve(this.given) : requestDecoderDevice({ wantF16: true })).then((d) => {
      const i = d.info;
      const e: GpuEntry = {
        device: d.device,
        description: [i.vendor, i.architecture, i.description].filter(Boolean).join(' / ') || 'unknown adapter',
        info: i,
        f16: d.f16,
        mma: d.mma ?? null,
        lost: null,
        onLost: new Set(),
      };
      void d.device.lost.then((info) => markLost(e, info));
      return e;
    });
    // a device request that failed is not cached: the next call tries again
    this.device.catch(() => (this.device = null));
    const d = await this.device;
    if (!d.lost) return d;
    this.forget();
    return this.get();
  }

  /** After a device loss: the next get() requests a new device (the caller drops what lived on the old one). */
  forget(): void {
    this.device = null;
    this.given = undefined;
  }

  /**
   * Destroy the current device (fault injection: as a GPU reset would); nothing when none was requested.
   * It is marked lost at once: Dawn settles device.lost only when it next processes events, and the next
   * decode would otherwise start on the destroyed device (its reads fail with a bare AbortError).
   */
  async lose(): Promise<void> {
    if (!this.device) return;
    const e = await this.device;
    e.device.destroy();
    markLost(e, { reason: 'destroyed', message: 'destroyed by loseDevice()' } as GPUDeviceLostInfo);
  }
}
