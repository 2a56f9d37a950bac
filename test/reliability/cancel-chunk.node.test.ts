// Cancellation within one chunk (issue 13), at the GPU decoder's scheduling loop, in every order it has:
// whole frames, tile-major tiles and frame-major tiles with offloaded caches (one submission per tile).
// The abort comes asynchronously (a timer scheduled from the frame-1 callback, as Ctrl-C or a Cancel
// button does) and, separately, synchronously inside the callback. Measured: frames delivered after the
// abort and command buffers submitted after it; then the arena holds exactly its plan (as idle), no
// staging buffer is left mapped, and the next decode on the same decoder equals the uncancelled one.
// Why a wrong implementation fails: the old loop delivered the rest of the chunk being emitted (3 frames
// here) and the frames of the run already read back (pipelining) before noticing; a loop that checked
// only between chunks would submit the next tile of an offloaded chunk; a cancel that left the pipelined
// readback mapping would make the next decode's mapAsync fail; a cancel that lost ring or counter state
// would make the next decode differ.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 11 });
const cfg = inferConfig(weights);
const T = 3,
  h = 3,
  w = 16;
const latents = syntheticLatents(4, T, h, w); // 9 frames: chunk 0 gives 1, later chunks 4
const base: PlanOptions = { frames: T, h, w, cache: 'on', precision: 'f32' };
const orders: [string, PlanOptions][] = [
  ['whole frames', base],
  ['tile-major tiles (cpu store)', { ...base, tile: { th: 3, tw: 8, mode: 'exact', order: 'tile-major', store: 'cpu' } }],
  ['frame-major tiles, offloaded caches', { ...base, tile: { th: 3, tw: 8, mode: 'exact', order: 'frame-major' }, cacheOffload: true }],
];

describe('cancel within one chunk', () => {
  for (const [name, opts] of orders)
    it(`${name}: nothing delivered or submitted after the abort; arena as planned; next decode exact`, async (ctx) => {
      const { device } = await needGpu(ctx);
      const p = plan(cfg, opts);
      const dec = await GpuDecoder.create(device, p, weights);
      const q = device.queue;
      const submit = q.submit;
      let submits = 0;
      q.submit = function (this: GPUQueue, cbs: Iterable<GPUCommandBuffer>) {
        submits++;
        return submit.call(this, cbs);
      } as GPUQueue['submit'];
      try {
        const collect = async (signal?: AbortSignal, onFrame?: (i: number) => void) => {
          const frames: Float32Array[] = [];
          await dec.decode(
            latents,
            (f) => {
              frames.push(f.rgb);
              onFrame?.(f.index);
            },
            signal,
          );
          return frames;
        };
        const ref = await collect();
        expect(ref.length).toBe(9);
        for (const mode of ['timer', 'in the callback'] as const) {
          let seen = 0,
            atAbort = -1,
            submitsAtAbort = -1;
          const attempt = () => {
            const ctl = new AbortController();
            ((seen = 0), (atAbort = -1));
            const abort = () => {
              atAbort = seen;
              submitsAtAbort = submits;
              ctl.abort();
            };
            return collect(ctl.signal, (i) => {
              seen++;
              if (i === 1) mode === 'timer' ? setTimeout(abort, 0) : abort();
            }).catch((e: unknown) => e);
          };
          let err = await attempt();
          // a timer can come only after the decode has finished: the readbacks of the last chunks resolved in one
          // turn of the event loop, with no timers phase between them (seen once on the loaded 2-core machine, the
          // whole suite beside it). Such a decode shows nothing about cancelling: it runs again, up to 5 times
          for (let tries = 1; mode === 'timer' && Array.isArray(err) && tries < 5; tries++) err = await attempt();
          expect(err, 'every timer came after its decode had finished').toBeInstanceOf(DecoderError);
          expect((err as DecoderError).code).toBe('cancelled');
          console.log(`${name}, abort ${mode}: ${seen} of 9 frames, ${seen - atAbort} after the abort, ${submits - submitsAtAbort} submissions after it`);
          expect(atAbort).toBeGreaterThan(0);
          expect(seen - atAbort).toBe(0);
          expect(submits - submitsAtAbort).toBe(0);
          expect(dec.arena.bytes.total).toBe(p.memory.total);
        }
        const again = await collect();
        expect(again.length).toBe(9);
        let err = 0;
        again.forEach((f, i) => f.forEach((v, k) => (err = Math.max(err, Math.abs(v - ref[i]![k]!)))));
        expect(err).toBe(0);
      } finally {
        q.submit = submit;
        dec.dispose();
      }
    });
});
