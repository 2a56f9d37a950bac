// One worker, one device, one copy of the weights for two callers in a page (src/worker/client.ts
// share(), per-item cancel through the worker's cancelOne). Browser only (Node has no Web Worker):
// - two handles decode the embedded default through one worker: cancelling the first handle's decode by
//   its signal rejects it with 'cancelled' and the second handle's decode, queued behind it, still
//   delivers all 9 frames (a cancel that stopped every decode in the worker, as cancel() did, fails);
// - the worker holds one decoder's GPU bytes, not two (the weights are not loaded twice);
// - disposing one handle leaves the other working; disposing the last ends the worker ('disposed').
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { createDecoder } from '../../src/worker/client';
import { isBrowser } from '../helpers/env';
import { needGpu } from '../helpers/need';

describe.runIf(isBrowser)('decoder worker shared by two callers', () => {
  it('per-item cancel, one device and one copy of the weights, dispose per handle', async (ctx) => {
    await needGpu(ctx);
    const a = await createDecoder(null);
    const b = a.share();
    try {
      const latents = await a.latents(null);
      const stop = new AbortController();
      let framesA = 0,
        framesB = 0;
      const da = a.decode(latents, {}, () => framesA++, stop.signal);
      const db = b.decode(latents, {}, () => framesB++);
      stop.abort();
      const [ra, rb] = await Promise.allSettled([da, db]);
      expect(ra.status).toBe('rejected');
      expect((ra as PromiseRejectedResult).reason).toBeInstanceOf(DecoderError);
      expect(((ra as PromiseRejectedResult).reason as DecoderError).code).toBe('cancelled');
      expect(rb.status).toBe('fulfilled');
      const r = (rb as PromiseFulfilledResult<Awaited<typeof db>>).value;
      expect(r.frames).toBe(9);
      expect(framesB).toBe(9);
      expect(framesA).toBeLessThan(9);
      // one decoder in the worker: its buffers (weights included) once, as planned for one decode
      const s = await b.stats();
      console.info(`worker GPU bytes ${s.gpuBytes}, one decode's planned peak ${r.plannedPeakGpuBytes}; frames of the cancelled decode ${framesA}`);
      expect(s.gpuBytes).toBe(r.plannedPeakGpuBytes);
      a.dispose();
      const again = await b.decode(latents);
      expect(again.frames).toBe(9);
      await expect(a.decode(latents)).rejects.toMatchObject({ code: 'disposed' });
    } finally {
      a.dispose();
      b.dispose();
    }
    await expect(b.plan([16, 3, 8, 8])).rejects.toMatchObject({ code: 'disposed' });
  });
});
