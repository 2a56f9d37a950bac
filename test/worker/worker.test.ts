// The Web Worker API (comlink) in the browser: the embedded default decodes in the worker, frames stream
// to the page with their buffers transferred, and errors come back as DecoderError with their code.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { createDecoder } from '../../src/worker/client';
import type { Frame } from '../../src/runtime/gpu-decoder';
import { isBrowser } from '../helpers/env';
import { needGpu } from '../helpers/need';

describe.runIf(isBrowser)('decoder worker', () => {
  it('decodes the embedded default in the worker and streams frames in order', async (ctx) => {
    await needGpu(ctx);
    const dec = await createDecoder(null);
    try {
      expect(dec.model).toMatchObject({ version: '2.1', dim: 16, zDim: 16, source: 'embedded default' });
      const latents = await dec.latents(null);
      const plan = await dec.plan(latents.shape, { rgba: true });
      const frames: Frame[] = [];
      const r = await dec.decode(latents, { rgba: true }, (f) => frames.push(f));
      expect(r.frames).toBe(9);
      expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(frames[0]!.rgba!.length).toBe(64 * 64 * 4);
      expect(r.video!.length).toBe(3 * 9 * 64 * 64);
      expect(r.peakGpuBytes).toBe(plan.plannedPeakGpuBytes);
      // the streamed frames are the video's frames
      expect(Array.from(frames[5]!.rgb.subarray(0, 16))).toEqual(Array.from(r.video!.subarray(5 * 64 * 64, 5 * 64 * 64 + 16)));
      let sum = 0;
      for (const v of r.video!) sum += v * v;
      expect(Math.sqrt(sum / r.video!.length)).toBeGreaterThan(0.01);
    } finally {
      dec.dispose();
    }
  });

  it('loads a torch.save checkpoint from a File by slices (no ArrayBuffer of it) and decodes as the same weights in safetensors bytes', async (ctx) => {
    await needGpu(ctx);
    const get = async (n: string) => new Uint8Array(await (await fetch(new URL(`../fixtures/checkpoints/${n}`, import.meta.url))).arrayBuffer());
    const [pth, st] = await Promise.all([get('full.pth'), get('w.safetensors')]);
    const run = async (w: Uint8Array | Blob, name: string) => {
      const dec = await createDecoder(w, name);
      try {
        const latents = await dec.latents(await get('latents.pt'), 'latents.pt');
        return { model: dec.model, video: (await dec.decode(latents, { latentStats: 'none' })).video! };
      } finally {
        dec.dispose();
      }
    };
    const a = await run(new File([pth], 'full.pth'), 'full.pth');
    const b = await run(st, 'w.safetensors');
    expect(a.model).toMatchObject({ version: '2.1', dim: 8, zDim: 4, source: 'full.pth' });
    expect(a.video.length).toBe(3 * 9 * 32 * 48);
    expect(Array.from(a.video)).toEqual(Array.from(b.video));
  });

  it('loads weights from a URL in the worker (Range requests, or the streamed body) with per-tensor progress, equal to the same bytes', async (ctx) => {
    await needGpu(ctx);
    const url = new URL('../fixtures/checkpoints/full.pth', import.meta.url).href;
    const get = async (n: string) => new Uint8Array(await (await fetch(new URL(`../fixtures/checkpoints/${n}`, import.meta.url))).arrayBuffer());
    const run = async (w: Uint8Array | { url: string }, onWeights?: (p: { tensor: string; bytesDone: number; bytesTotal: number }) => void) => {
      const dec = await createDecoder(w, 'full.pth', { onWeights });
      try {
        const latents = await dec.latents(await get('latents.pt'), 'latents.pt');
        return (await dec.decode(latents, { latentStats: 'none' })).video!;
      } finally {
        dec.dispose();
      }
    };
    const seen: { tensor: string; bytesDone: number; bytesTotal: number }[] = [];
    const a = await run({ url }, (p) => seen.push(p));
    const b = await run(await get('full.pth'));
    expect(Array.from(a)).toEqual(Array.from(b));
    // one call per decoder tensor, bytes rising to the decoder's total (the worker posts them as the upload reads)
    await expect.poll(() => seen.at(-1)?.bytesDone).toBe(seen[0]!.bytesTotal);
    expect(new Set(seen.map((p) => p.tensor)).size).toBe(seen.length);
    expect(seen.every((p, i) => i === 0 || p.bytesDone > seen[i - 1]!.bytesDone)).toBe(true);
  });

  it('rethrows errors from the worker as DecoderError with their code', async (ctx) => {
    await needGpu(ctx);
    const err = await createDecoder(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 'junk.safetensors').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('bad-input');
    expect((err as DecoderError).message).toMatch(/junk\.safetensors/);
    const dec = await createDecoder(null);
    try {
      const bad = await dec.decode({ data: new Float32Array(4 * 2 * 2 * 2), shape: [4, 2, 2, 2] }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(DecoderError);
      expect((bad as DecoderError).message).toMatch(/4 channels.*expects 16/);
    } finally {
      dec.dispose();
    }
  });
});
