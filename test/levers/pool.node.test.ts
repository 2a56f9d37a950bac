// The Node decoder pool (src/node/pool.ts): one decoder per adapter, decodes queued and dispatched to
// the free one. Members: two Dawn instances of lavapipe (CI), or WAN_VAE_POOL_ADAPTERS=SwiftShader,llvmpipe
// for two different adapters (SwiftShader: Chromium's Vulkan ICD, which scripts/setup.sh installs; its
// ICD is added to VK_ICD_FILENAMES for this file; its pipelines take ~20 s to compile, too slow for CI).
// - listAdapters() names lavapipe, and SwiftShader where its ICD is there (a parser that returned nothing fails);
// - five decodes queued on a pool of two run on both members, each with its own frames through its own
//   onFrame (progress per item); items 0 and 1 (the same latents, started together, so on different
//   members) are equal (lavapipe twice: bit for bit; SwiftShader: within 1e-5, another compiler's f32
//   rounding) and items 2 and 4 (other latents) differ from them; a pool that sent every item to one
//   member, mixed the items' frames or lost one fails;
// - an item cancelled while queued rejects with 'cancelled' at once and the others finish; after
//   dispose() a decode rejects with 'disposed'.
// Node only. The generated dim-4 model at 6x6 latent px keeps this to seconds.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { DecoderPool, listAdapters } from '../../src/node/pool';
import { compare } from '../helpers/compare';
import { cannotRun, needGpu } from '../helpers/need';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 4 });
const latents = (seed: number) => ({ data: syntheticLatents(4, 2, 6, 6, seed), shape: [4, 2, 6, 6] as [number, number, number, number] });

describe('decoder pool, one decoder per adapter', () => {
  it('two adapters: queued decodes run on both, each item its own frames, cancel while queued, dispose', async (ctx) => {
    await needGpu(ctx);
    if (!existsSync(SWIFTSHADER_ICD)) cannotRun(ctx, `SwiftShader's Vulkan ICD (${SWIFTSHADER_ICD}, from Debian's chromium) is missing`);
    const icds = process.env.VK_ICD_FILENAMES;
    process.env.VK_ICD_FILENAMES = [icds, SWIFTSHADER_ICD].filter(Boolean).join(':');
    const use = process.env.WAN_VAE_POOL_ADAPTERS?.split(',') ?? ['llvmpipe', 'llvmpipe'];
    let pool: DecoderPool | null = null;
    try {
      const names = await listAdapters();
      console.info(`adapters: ${names.join(', ')}`);
      expect(names.some((n) => /llvmpipe/i.test(n))).toBe(true);
      expect(names.some((n) => /swiftshader/i.test(n))).toBe(true);
      pool = await DecoderPool.create(weights, { adapters: use, allowSameAdapter: true }); // lavapipe twice: two instances of one adapter
      expect(pool.size).toBe(2);
      const seedOf = [10, 10, 12, 13, 14];
      const cancel = new AbortController();
      const frames = [0, 0, 0, 0, 0];
      const jobs = [0, 1, 2, 3, 4].map((i) => pool!.decode(latents(seedOf[i]!), { latentStats: 'none', signal: i === 3 ? cancel.signal : undefined, onFrame: () => frames[i]!++ }));
      expect(pool.pending).toBe(5);
      cancel.abort(); // item 3 is still queued (two run, three wait)
      const got = await Promise.allSettled(jobs);
      const err = (got[3] as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(DecoderError);
      expect((err as DecoderError).code).toBe('cancelled');
      expect(frames[3]).toBe(0);
      const done = got.flatMap((g, i) => (g.status === 'fulfilled' ? [[i, g.value] as const] : []));
      expect(done.map(([i]) => i)).toEqual([0, 1, 2, 4]);
      expect(new Set(done.map(([, r]) => r.member)).size).toBe(2);
      const res = new Map(done);
      const same = compare(res.get(1)!.video, res.get(0)!.video);
      expect(res.get(0)!.member).not.toBe(res.get(1)!.member);
      expect(same.maxAbs).toBeLessThanOrEqual(use[0] === use[1] ? 0 : 1e-5);
      for (const i of [2, 4]) expect(compare(res.get(i)!.video, res.get(0)!.video).maxAbs).toBeGreaterThan(1e-3);
      for (const [i, r] of done) {
        console.info(`item ${i} on member ${r.member} (${r.memberName}): ${r.frames} frames in ${r.seconds.toFixed(2)} s`);
        expect(frames[i]).toBe(r.frames);
      }
      console.info(`items 0 and 1 (same latents, members ${res.get(0)!.member} and ${res.get(1)!.member}): max |err| ${same.maxAbs.toExponential(2)}`);
      pool.dispose();
      await expect(pool.decode(latents(1))).rejects.toMatchObject({ code: 'disposed' });
    } finally {
      pool?.dispose();
      if (icds === undefined) delete process.env.VK_ICD_FILENAMES;
      else process.env.VK_ICD_FILENAMES = icds;
    }
  });
});
