// Backpressure of onFrame (src/decode/frame-window.ts), on the GPU path and the CPU reference: a consumer
// that returns a Promise holds the decode back, so at most `framesInFlight` frames are handed out and not
// yet settled; the frames and the collected video are the same bytes as a decode without a consumer; a
// cancel while the decode waits on a consumer that never settles ends it at once ('cancelled', no frame
// after it) and the next decode is exact; a consumer's rejection ends the decode with that error.
// No timed assertions: the test counts the frames outstanding at each handout.
// Why a wrong implementation fails: a decoder that ignores the returned Promise hands out a chunk's 4
// frames back to back (4 outstanding > 2) and resolves before the consumer settled the last frames; a
// window that waited only between chunks lets 4 out; a cancel that waited for the consumer hangs (the test
// times out); a consumer error swallowed lets the decode resolve.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { DecoderError } from '../../src/gpu/errors';
import type { Frame } from '../../src/runtime/assembler';
import type { DecodeOptions } from '../../src/options/decode-options';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { freshDevice } from './device';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 16, seed: 5 });
const latents = { data: syntheticLatents(16, 3, 4, 4), shape: [16, 3, 4, 4] as [number, number, number, number] }; // 9 frames of 32x32: chunks of 1, 4, 4
const base: DecodeOptions = { latentStats: 'none' };

/** A slow consumer: frames settle one after the other, each on a later macrotask; counts what is outstanding. */
function slowConsumer() {
  const s = { open: 0, maxOpen: 0, handed: [] as number[], settled: 0, frames: [] as Float32Array[] };
  let queue = Promise.resolve();
  const onFrame = (f: Frame) => {
    s.handed.push(f.index);
    s.frames[f.index] = f.rgb.slice();
    s.maxOpen = Math.max(s.maxOpen, ++s.open);
    queue = queue
      .then(() => new Promise<void>((r) => setTimeout(r, 2)))
      .then(() => {
        s.open--;
        s.settled++;
      });
    return queue;
  };
  return { s, onFrame };
}

const same = (a: Float32Array, b: Float32Array) => a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

for (const backend of ['webgpu', 'cpu'] as const)
  describe(`onFrame backpressure (${backend})`, () => {
    const make = async (ctx: Parameters<typeof freshDevice>[0]) => (backend === 'webgpu' ? new WanVaeDecoder(weights, await freshDevice(ctx)) : new WanVaeDecoder(weights));
    const opts: DecodeOptions = { ...base, backend };

    it('a slow consumer: at most framesInFlight frames outstanding, every frame settled before decode resolves, same bytes', async (ctx) => {
      const dec = await make(ctx);
      try {
        const ref = await dec.decode(latents, opts);
        expect(ref.frames).toBe(9);
        for (const n of [2]) {
          const { s, onFrame } = slowConsumer();
          const r = await dec.decode(latents, { ...opts, framesInFlight: n, onFrame });
          expect(s.maxOpen, `framesInFlight ${n}`).toBe(n); // never more; and the window is used, not one frame at a time
          expect(s.settled).toBe(9); // the decode resolved after the consumer settled every frame
          expect(s.handed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
          expect(same(r.video, ref.video)).toBe(true);
          const H = 32,
            W = 32;
          s.frames.forEach((f, i) => {
            for (let c = 0; c < 3; c++) expect(same(f.subarray(c * H * W, (c + 1) * H * W), ref.video.subarray((c * 9 + i) * H * W, (c * 9 + i + 1) * H * W)), `frame ${i}`).toBe(true);
          });
        }
        // the default window (4): bounded too
        const { s, onFrame } = slowConsumer();
        await dec.decode(latents, { ...opts, collect: false, onFrame });
        expect(s.maxOpen).toBeLessThanOrEqual(4);
        expect(s.settled).toBe(9);
      } finally {
        dec.dispose();
      }
    });

    it('cancel while waiting on a consumer that never settles: cancelled at once, nothing more handed out, next decode exact', async (ctx) => {
      const dec = await make(ctx);
      try {
        const ref = await dec.decode(latents, opts);
        const ctl = new AbortController();
        const handed: number[] = [];
        let atAbort = -1;
        const err = await dec
          .decode(latents, {
            ...opts,
            framesInFlight: 2,
            signal: ctl.signal,
            onFrame: (f) => {
              handed.push(f.index);
              if (handed.length === 2) setTimeout(() => ((atAbort = handed.length), ctl.abort()), 0);
              return new Promise<void>(() => undefined); // never settles
            },
          })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DecoderError);
        expect((err as DecoderError).code).toBe('cancelled');
        expect(handed).toEqual([0, 1]); // the window held the decode at 2 until the cancel
        expect(atAbort).toBe(2);
        const again = await dec.decode(latents, opts);
        expect(same(again.video, ref.video)).toBe(true);
      } finally {
        dec.dispose();
      }
    });

    it("a consumer's rejection ends the decode with that error; the decoder stays usable", async (ctx) => {
      const dec = await make(ctx);
      try {
        const boom = new Error('disk full (injected)');
        const handed: number[] = [];
        const err = await dec
          .decode(latents, { ...opts, framesInFlight: 2, onFrame: (f) => (handed.push(f.index), f.index === 1 ? Promise.reject(boom) : Promise.resolve()) })
          .catch((e: unknown) => e);
        expect(err).toBe(boom);
        expect(Math.max(...handed)).toBeLessThan(8); // stopped well before the end
        expect((await dec.decode(latents, opts)).frames).toBe(9);
      } finally {
        dec.dispose();
      }
    });
  });
