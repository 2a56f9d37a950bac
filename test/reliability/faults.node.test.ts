// GPU faults (issue 13): an out-of-memory error (injected at the N-th buffer allocation of a decode, or
// surfacing mid-decode after frames were delivered) re-plans with the planner's next smaller plan and
// ends in the same frames as the untiled exact decode, each frame delivered once; when no smaller plan
// exists the decode ends with 'oom' and the smallest plan's size. A destroyed device ends the decode with
// 'device-lost' and its reason; the next decode gets a new device by itself.
import { describe, expect, it } from 'vitest';
import type { DecoderDevice } from '../../src/gpu/device';
import { WanVaeDecoder, type DecodeResult } from '../../src/decoder';
import { DecoderError } from '../../src/gpu/errors';
import { liveArenas } from '../../src/runtime/arena';
import { freshDevice, maxAbsDiff, tinyLatents, tinyWeights } from './device';

const codeOf = (e: unknown) => (e instanceof DecoderError ? e.code : `not a DecoderError: ${String(e)}`);
const lat = tinyLatents(2, 6, 6); // 5 frames of 48x48: whole frames, and exact tiles on re-plan

describe('out of memory', () => {
  let ref: DecodeResult | null = null;
  // the untiled exact decode without faults, once for the file
  const reference = async (dev: DecoderDevice) => {
    if (!ref) {
      const dec = new WanVaeDecoder(tinyWeights(), dev);
      ref = await dec.decode(lat);
      dec.dispose();
    }
    return ref;
  };

  for (const at of [1, 12]) {
    it(`an injected OOM at allocation ${at} re-plans and gives the untiled exact frames, each once`, async (ctx) => {
      const dev = await freshDevice(ctx);
      await reference(dev);
      const dec = new WanVaeDecoder(tinyWeights(), dev);
      const live0 = liveArenas.bytes;
      const seen: number[] = [];
      const r = await dec.decode(lat, { injectOom: at, onFrame: (f) => void seen.push(f.index) });
      console.log(`OOM at allocation ${at}: replans ${JSON.stringify(r.replans)}`);
      expect(r.replans.length).toBe(1);
      expect(r.replans[0]!.reason).toMatch(new RegExp(`injected out-of-memory at GPU buffer allocation ${at}`));
      expect(r.replans[0]!.plannedPeakGpuBytes).toBeLessThan(ref!.plannedPeakGpuBytes!);
      expect(r.plannedPeakGpuBytes).toBe(r.replans[0]!.plannedPeakGpuBytes);
      expect(r.peakGpuBytes).toBe(r.plannedPeakGpuBytes);
      expect(seen).toEqual(Array.from({ length: ref!.frames }, (_, i) => i));
      expect(maxAbsDiff(r.video, ref!.video)).toBe(0);
      expect(liveArenas.bytes - live0).toBe(dec.gpuBytes); // the failed plan's buffers are gone
      dec.dispose();
      dev.device.destroy();
    });
  }

  it('an OOM surfacing mid-decode after frames were delivered re-plans without delivering them again', async (ctx) => {
    const dev = await freshDevice(ctx);
    await reference(dev);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const seen: number[] = [];
    const r = await dec.decode(lat, { injectOomAfterFrame: 2, onFrame: (f) => void seen.push(f.index) });
    expect(r.replans.length).toBe(1);
    expect(seen).toEqual(Array.from({ length: ref!.frames }, (_, i) => i));
    expect(maxAbsDiff(r.video, ref!.video)).toBe(0);
    dec.dispose();
    dev.device.destroy();
  });

  it("ends with 'oom' and the smallest plan's size when every plan fails", async (ctx) => {
    const dev = await freshDevice(ctx);
    await reference(dev);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const live0 = liveArenas.bytes;
    // a 3x3 latent: few tile grids to walk down through
    const err = await dec.decode(tinyLatents(2, 3, 3), { injectOom: '1+' }).catch((e: unknown) => e);
    console.log(`every allocation fails: ${(err as Error).message}`);
    expect(codeOf(err)).toBe('oom');
    expect((err as Error).message).toMatch(/no smaller plan.*smallest found needs \d+ MiB/);
    expect(liveArenas.bytes - live0).toBe(0);
    // and the decoder is usable afterwards
    const r = await dec.decode(lat);
    expect(maxAbsDiff(r.video, ref!.video)).toBe(0);
    dec.dispose();
    dev.device.destroy();
  });
});

describe('device lost', () => {
  it("ends the decode with 'device-lost' and its reason; the next decode gets a new device", async (ctx) => {
    const dev = await freshDevice(ctx);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const small = tinyLatents(4, 4, 4);
    const ref = await dec.decode(small);
    const seen: number[] = [];
    const err = await dec
      .decode(small, {
        onFrame: (f) => {
          seen.push(f.index);
          if (f.index === 0) dev.device.destroy();
        },
      })
      .catch((e: unknown) => e);
    console.log(`device destroyed after frame 0: ${String(err)}; ${seen.length} frames delivered`);
    expect(codeOf(err)).toBe('device-lost');
    expect((err as Error).message).toMatch(/destroyed/);
    const again = await dec.decode(small);
    expect(maxAbsDiff(again.video, ref.video)).toBe(0);
    // loseDevice() (the worker's fault injection) between decodes: the next decode also recovers
    await dec.loseDevice();
    const third = await dec.decode(small);
    expect(maxAbsDiff(third.video, ref.video)).toBe(0);
    dec.dispose();
  });
});
