// One upload of the weights per device (src/runtime/arena.ts release/adopt, GpuDecoder.releaseWeights,
// decode/gpu-session.ts): a WanVaeDecoder that re-plans (another latent size) keeps the weight buffers
// on the GPU and the new GPU decoder adopts them instead of uploading again:
// - the second decode creates no weight buffer (a decoder that uploaded again, as before, fails) and its
//   frames equal a fresh decoder's bit for bit (a buffer adopted under the wrong key fails);
// - another packing (int8 weights) uploads again and equals a fresh int8 decode;
// - peak = planned in each decode, and after dispose the live GPU bytes are back where they started
//   (released buffers not adopted are destroyed, none leaks).
// Node only (Dawn + lavapipe); the generated dim-4 model at 6x6 / 6x8 latent px.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { liveArenas } from '../../src/runtime/arena';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 4 });
const lat = (h: number, w: number) => ({ data: syntheticLatents(4, 2, h, w, 3), shape: [4, 2, h, w] as [number, number, number, number] });
const isWeight = (label: string) => /\.(weight|bias|gamma)$/.test(label);

describe('weights uploaded once per device', () => {
  it('a re-plan adopts the weight buffers; another packing uploads; frames = fresh decoders; nothing leaks', async (ctx) => {
    const gpu = await needGpu(ctx);
    const before = liveArenas.bytes;
    const created: string[] = [];
    const orig = gpu.device.createBuffer.bind(gpu.device);
    gpu.device.createBuffer = (d: GPUBufferDescriptor) => (created.push(d.label ?? ''), orig(d));
    const fresh = async (l: ReturnType<typeof lat>, o = {}) => {
      const f = new WanVaeDecoder(weights, gpu);
      try {
        return await f.decode(l, { latentStats: 'none', ...o });
      } finally {
        f.dispose();
      }
    };
    const dec = new WanVaeDecoder(weights, gpu);
    try {
      const count = async (l: ReturnType<typeof lat>, o = {}) => {
        created.length = 0;
        const r = await dec.decode(l, { latentStats: 'none', ...o });
        return { r, weights: created.filter(isWeight).length };
      };
      const a = await count(lat(6, 6));
      const b = await count(lat(6, 8));
      const c = await count(lat(6, 8), { weightsPrecision: 'int8' });
      console.info(`weight buffers created: first plan ${a.weights}, re-plan ${b.weights}, int8 re-plan ${c.weights}`);
      expect(a.weights).toBeGreaterThan(10);
      expect(b.weights).toBe(0);
      expect(c.weights).toBeGreaterThan(10);
      for (const x of [a, b, c]) expect(x.r.peakGpuBytes).toBe(x.r.plannedPeakGpuBytes);
      const wantB = await fresh(lat(6, 8));
      const wantC = await fresh(lat(6, 8), { weightsPrecision: 'int8' });
      expect(Buffer.from(b.r.video.buffer).equals(Buffer.from(wantB.video.buffer))).toBe(true);
      expect(Buffer.from(c.r.video.buffer).equals(Buffer.from(wantC.video.buffer))).toBe(true);
    } finally {
      dec.dispose();
      gpu.device.createBuffer = orig;
    }
    expect(liveArenas.bytes).toBe(before);
  });
});
