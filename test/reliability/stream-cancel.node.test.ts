// Cancellation and dispose() with streamed weights (--weights-stream on): a chunk's submission awaits
// its weight uploads (the two mapped buffers of runtime/exec/upload-pair.ts), so an abort or a dispose()
// can arrive while an upload is pending. The decode still ends with 'cancelled' or 'disposed' (never a
// raw WebGPU error), gives back every buffer, and the next streamed decode is bit-identical.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { DecoderError } from '../../src/gpu/errors';
import { liveArenas } from '../../src/runtime/arena';
import { freshDevice, maxAbsDiff, tinyLatents, tinyWeights } from './device';

const codeOf = (e: unknown) => (e instanceof DecoderError ? e.code : `not a DecoderError: ${String(e)}`);
const streamed = { weightsStream: 'on', weightsStreamSlots: 2 } as const;

describe('streamed weights: cancel and dispose during a decode', () => {
  it('an abort at every frame index ends with cancelled; the decoder is idle and the next decode is exact', async (ctx) => {
    const dev = await freshDevice(ctx);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const lat = tinyLatents(4, 4, 4); // 13 frames of 32x32
    const live0 = liveArenas.bytes;
    const resident = await dec.decode(lat, { weightsStream: 'off' });
    const ref = await dec.decode(lat, streamed);
    // streamed: the GPU holds a ring of 2 slots, not every conv weight; the same frames
    expect(ref.memory!.weights).toBeLessThan(resident.memory!.weights / 2);
    expect(maxAbsDiff(ref.video, resident.video)).toBe(0);
    // the result reports this decode's uploads (more groups than 2 slots: slots rewritten), none for resident weights
    expect(resident.weightStream).toBeUndefined();
    const ws = ref.weightStream!;
    expect(ws.uploads).toBeGreaterThan(2);
    expect(ws.uploadedBytes).toBeGreaterThan(0);
    expect(ws.waitMs + ws.copyMs).toBeGreaterThan(0); // the uploads' time is measured
    const idle = dec.gpuBytes;
    for (const at of [0, 1, 5, 9]) {
      const ctl = new AbortController();
      const err = await dec.decode(lat, { ...streamed, signal: ctl.signal, onFrame: (f) => void (f.index === at && ctl.abort()) }).catch((e: unknown) => e);
      expect(codeOf(err)).toBe('cancelled');
      expect(dec.gpuBytes).toBe(idle);
    }
    const again = await dec.decode(lat, streamed);
    expect(maxAbsDiff(again.video, ref.video)).toBe(0);
    // per decode, not since the build: the same decode uploads the same
    expect(again.weightStream!.uploads).toBe(ws.uploads);
    expect(again.weightStream!.uploadedBytes).toBe(ws.uploadedBytes);
    dec.dispose();
    expect(liveArenas.bytes - live0).toBe(0);
    dev.device.destroy();
  });

  it.for([0, 1, 5])('dispose() at frame %i ends the decode with disposed and frees every buffer', async (at, ctx) => {
    const dev = await freshDevice(ctx);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const live0 = liveArenas.bytes;
    const lat = tinyLatents(4, 4, 4);
    const err = await dec.decode(lat, { ...streamed, onFrame: (f) => void (f.index === at && dec.dispose()) }).catch((e: unknown) => e);
    expect(codeOf(err)).toBe('disposed');
    await new Promise((r) => setTimeout(r, 0));
    expect(dec.gpuBytes).toBe(0);
    expect(liveArenas.bytes - live0).toBe(0);
    dev.device.destroy();
  });
});
