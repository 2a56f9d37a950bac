// Long runs (issue 13), Node + Dawn: 100 decodes in a row (two shapes in turn, so every decode frees the
// previous plan's buffers and allocates its own) keep the live GPU bytes and the JS heap (after a forced
// GC) flat; a long video streams in constant GPU memory: the peak of a 50-latent decode (197 frames)
// equals that of a 2-latent one, frames arrive one by one and nothing is collected (collect: false).
// WAN_VAE_LONG_LATENTS=1000 runs the 1,000-latent (3,997-frame) decode of the README instead.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { liveArenas } from '../../src/runtime/arena';
import { freshDevice, tinyLatents, tinyWeights } from './device';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mib = (n: number) => `${(n / 2 ** 20).toFixed(2)} MiB`;

describe('long runs', () => {
  it('100 decodes in a row keep GPU bytes and the JS heap flat', async (ctx) => {
    const dev = await freshDevice(ctx);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const ls = [tinyLatents(1, 2, 2), tinyLatents(2, 2, 2)];
    const at: Record<number, { gpu: number; buffers: number; heap: number; rss: number }> = {};
    const t0 = performance.now();
    for (let i = 1; i <= 100; i++) {
      const r = await dec.decode(ls[i % 2]!, { onFrame: () => undefined });
      expect(r.peakGpuBytes).toBe(r.plannedPeakGpuBytes);
      if (i === 10 || i === 100) at[i] = { gpu: liveArenas.bytes, buffers: liveArenas.buffers, heap: heap(), rss: process.memoryUsage().rss };
    }
    const a = at[10]!,
      b = at[100]!;
    console.log(
      `100 decodes in ${((performance.now() - t0) / 1000).toFixed(1)} s; after 10 / 100: GPU ${a.gpu} / ${b.gpu} B in ${a.buffers} / ${b.buffers} buffers, ` +
        `JS heap ${mib(a.heap)} / ${mib(b.heap)}, RSS ${mib(a.rss)} / ${mib(b.rss)} (native memory: reported, not asserted)`,
    );
    expect(b.gpu).toBe(a.gpu);
    expect(b.buffers).toBe(a.buffers);
    expect(b.heap - a.heap).toBeLessThan(2 * 2 ** 20);
    dec.dispose();
    expect(liveArenas.bytes).toBe(0);
    dev.device.destroy();
  });

  const T = Number(process.env.WAN_VAE_LONG_LATENTS ?? 50);
  it('a long video streams in constant GPU memory (frame by frame, nothing collected)', { timeout: 120_000 + T * 2_000 }, async (ctx) => {
    const dev = await freshDevice(ctx);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const short = await dec.decode(tinyLatents(2, 1, 1), { collect: false });
    let frames = 0,
      last = -1;
    const h0 = heap(),
      rss0 = process.memoryUsage().rss;
    let rssMax = rss0;
    const t0 = performance.now();
    const r = await dec.decode(tinyLatents(T, 1, 1), {
      collect: false,
      onFrame: (f) => {
        expect(f.index).toBe(last + 1);
        last = f.index;
        frames++;
        if (frames % 64 === 0) rssMax = Math.max(rssMax, process.memoryUsage().rss);
        if (process.env.WAN_VAE_LONG_TRACE && frames % 400 === 1)
          console.log(`frame ${f.index}: RSS ${mib(process.memoryUsage().rss)}, external ${mib(process.memoryUsage().external)}, heap ${mib(process.memoryUsage().heapUsed)}`);
      },
    });
    const s = (performance.now() - t0) / 1000;
    const h1 = heap();
    console.log(
      `${T} latents -> ${r.frames} frames of ${r.height}x${r.width} in ${s.toFixed(1)} s: peak GPU ${r.peakGpuBytes} B (2 latents: ${short.peakGpuBytes} B), JS heap ${mib(h0)} -> ${mib(h1)}, RSS ${mib(rss0)} at the start, at most ${mib(rssMax)} during it`,
    );
    expect(frames).toBe(1 + 4 * (T - 1));
    expect(r.video.length).toBe(0);
    expect(r.peakGpuBytes).toBe(short.peakGpuBytes);
    expect(h1 - h0).toBeLessThan(2 * 2 ** 20);
    dec.dispose();
    dev.device.destroy();
  });
});
