// Full-size decoders: the official Wan2.1 (dim 96, z 16) and Wan2.2 (dim 256, z 48) architectures with
// real shapes and key names and generated weights, on a small latent: WebGPU against the CPU reference.
// Wan2.2's 555 M parameters (2.2 GB f32) run in the node project only.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { compare } from '../helpers/compare';
import { isBrowser } from '../helpers/env';
import { needGpu } from '../helpers/need';

const CASES = [
  { v: '2.1', shape: [16, 1, 2, 3], browser: true },
  { v: '2.2', shape: [48, 1, 1, 2], browser: false },
] as const;

describe.each(CASES)('full-size Wan$v decoder', ({ v, shape, browser }) => {
  it.skipIf(isBrowser && !browser)(`decodes a [${shape}] latent on WebGPU like the CPU reference (1e-3)`, async (ctx) => {
    const gpu = await needGpu(ctx);
    const weights = syntheticWeights({ ...OFFICIAL[v], seed: 11 });
    const latents = { data: syntheticLatents(shape[0], shape[1], shape[2], shape[3]), shape: [...shape] as [number, number, number, number] };
    const dec = new WanVaeDecoder(weights, gpu);
    try {
      expect([dec.cfg.dim, dec.cfg.zDim]).toEqual([OFFICIAL[v].dim, OFFICIAL[v].zDim]);
      const g = await dec.decode(latents);
      const c = await dec.decode(latents, { backend: 'cpu' });
      const cmp = compare(g.video, c.video);
      let sd = 0;
      for (const x of c.video) sd += x * x;
      console.log(
        `full-size Wan${v} [${shape}] -> [3, ${g.frames}, ${g.height}, ${g.width}]: max|err| ${cmp.maxAbs.toExponential(2)}, PSNR ${cmp.psnr.toFixed(1)} dB, rms ${Math.sqrt(sd / c.video.length).toFixed(3)}; gpu ${g.seconds.toFixed(1)} s, cpu ${c.seconds.toFixed(1)} s, peak ${(g.peakGpuBytes! / 2 ** 20).toFixed(0)} MiB`,
      );
      expect(g.peakGpuBytes).toBe(g.plannedPeakGpuBytes);
      expect(cmp.maxAbs).toBeLessThanOrEqual(1e-3);
      expect(Math.sqrt(sd / c.video.length)).toBeGreaterThan(0.01); // not a blank video
    } finally {
      dec.dispose();
    }
  });
});
