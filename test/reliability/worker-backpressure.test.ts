// Backpressure across the worker boundary (browser project): the page's onFrame may return a Promise;
// the worker's credit for a frame is the reply of the page's callback (comlink awaits the Promise), so
// the worker hands out at most `framesInFlight` frames the page has not settled. A cancel from the page
// while its consumer holds frames (and never settles them) ends the decode; a consumer's rejection comes
// back to the page as its own error. Frames are counted, not timed.
// Why a wrong implementation fails: a worker that posts frames without waiting for their reply puts a
// chunk's 4 frames in the page's queue at once (4 open > 2, the consumer settles one every 20 ms); a
// worker that awaits every frame's reply on cancel hangs on a consumer that never settles (the test times
// out); an error the relay swallowed would make the decode resolve, an error re-wrapped would not be `boom`.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { syntheticLatents } from '../../src/model/synthetic';
import type { Latents } from '../../src/model/latents';
import type { Frame } from '../../src/runtime/gpu-decoder';
import { createDecoder } from '../../src/worker/client';
import { isBrowser } from '../helpers/env';
import { needGpu } from '../helpers/need';
import { maxAbsDiff } from './device';

const lat = (T: number, h: number, w: number): Latents => ({ data: syntheticLatents(16, T, h, w), shape: [16, T, h, w] });

describe.runIf(isBrowser)('decoder worker: onFrame backpressure', () => {
  it('a slow page consumer: at most framesInFlight frames open; cancel while it holds frames; its rejection comes back', async (ctx) => {
    await needGpu(ctx);
    const dec = await createDecoder(null);
    try {
      const l = lat(3, 2, 2); // 9 frames of 16x16
      const ref = await dec.decode(l);
      // slow: one frame settled every 20 ms, one after the other
      let open = 0,
        maxOpen = 0,
        settled = 0;
      let queue = Promise.resolve();
      const r = await dec.decode(l, { framesInFlight: 2 }, (f: Frame) => {
        maxOpen = Math.max(maxOpen, ++open);
        void f;
        queue = queue.then(() => new Promise<void>((res) => setTimeout(res, 20))).then(() => void (open--, settled++));
        return queue;
      });
      expect(maxOpen).toBe(2);
      expect(settled).toBe(9);
      expect(maxAbsDiff(r.video!, ref.video!)).toBe(0);

      // cancel() while the consumer holds two frames it never settles
      const handed: number[] = [];
      let cancelled: Promise<void> | null = null;
      const err = await dec
        .decode(l, { framesInFlight: 2 }, (f: Frame) => {
          handed.push(f.index);
          if (handed.length === 2) setTimeout(() => (cancelled = dec.cancel()), 0);
          return new Promise<void>(() => undefined);
        })
        .catch((e: unknown) => e);
      await cancelled;
      expect(err instanceof DecoderError && err.code).toBe('cancelled');
      expect(handed.length).toBeLessThan(9);

      // the consumer's own error
      const boom = new Error('the page could not store frame 1 (injected)');
      const bad = await dec.decode(l, { framesInFlight: 2 }, (f: Frame) => (f.index === 1 ? Promise.reject(boom) : undefined)).catch((e: unknown) => e);
      expect(bad).toBe(boom);
      const again = await dec.decode(l);
      expect(maxAbsDiff(again.video!, ref.video!)).toBe(0);
    } finally {
      dec.dispose();
    }
  });
});
