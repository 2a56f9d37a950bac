// CPU memory in the plan (Plan.host) and fitPlan's CPU budget (issue 13: "where tile-major's CPU store
// grows with the length, the planner says so and --budget counts it").
// - tile-major's host bytes grow per latent frame by exactly one chunk's store entries ('cpu' store) plus
//   the 4 frames of a chunk being assembled (tile-major completes every frame with its last tile); whole
//   frames and frame-major (resident or offloaded caches) are constant in the video length;
// - fitPlan never returns a plan above the CPU budget: a long video whose tile-major plan fits the GPU but
//   not the CPU budget gets frame-major tiles with offloaded caches ('auto' order), and the same request
//   with room in CPU memory keeps tile-major (fewer bytes over the bus);
// - with nothing under both budgets the error names the CPU memory the GPU-fitting plans need;
// - the 16 GB laptop: Wan2.1 480x832, 1,000 latent frames (3,997 frames), --budget 1536 and 8 GiB of CPU.
// Why a wrong implementation fails: a planner that left the assembled frames or the store out of
// Plan.host gives growth 0 or the wrong growth; a fitPlan that ignored cpuBudget returns tile-major plans
// of 150+ MiB of host memory here; one whose finest-grid fail-fast counted CPU memory finds nothing.
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { fitPlan, type FitRequest } from '../../src/plan/auto';
import { plan, type PlanOptions } from '../../src/plan/planner';

const M = 2 ** 20;
const cfg = inferConfig(syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 1 }, { values: false }));
const roomy = { maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 30 };
const auto: Omit<FitRequest, 'budget' | 'cpuBudget'> = { limits: roomy, precisions: ['f32'], tile: 'auto', tileOrder: 'auto', stores: ['gpu', 'cpu'], cacheOffloads: ['off', 'on'] };

describe('CPU memory of a plan', () => {
  it('grows per latent frame in tile-major order only, by a chunk of store entries and of frames', () => {
    const at = (frames: number, o: Partial<PlanOptions>) => plan(cfg, { frames, h: 16, w: 32, cache: 'on', precision: 'f32', ...o });
    const tile = { th: 16, tw: 16, mode: 'exact' } as const;
    const cases: [string, Partial<PlanOptions>, boolean][] = [
      ['whole frames', {}, false],
      ['tile-major, gpu store', { tile: { ...tile, order: 'tile-major' } }, true],
      ['tile-major, cpu store', { tile: { ...tile, order: 'tile-major', store: 'cpu' } }, true],
      ['frame-major', { tile: { ...tile, order: 'frame-major' } }, false],
      ['frame-major, offloaded caches', { tile: { ...tile, order: 'frame-major' }, cacheOffload: true }, false],
    ];
    for (const [name, o, grows] of cases) {
      const a = at(50, o),
        b = at(51, o);
      const frame = a.height * a.width * 12; // rgb f32
      const perLatent = b.host.total - a.host.total;
      const expected = grows ? 4 * frame + (a.storeWhere === 'cpu' ? a.storeEntryBytes * a.storePerChunk : 0) : 0;
      expect(perLatent, name).toBe(expected);
      expect(a.host.total, name).toBe(a.host.store + a.host.cache + a.host.weights + a.host.frames);
    }
  });
});

describe('fitPlan with a CPU budget', () => {
  const base = { frames: 100, h: 16, w: 32, cache: 'on' } as const;

  it('a long video: tile-major fits the GPU but not the CPU budget -> frame-major with offloaded caches', () => {
    const f = fitPlan(cfg, base, { ...auto, budget: 60 * M, cpuBudget: 100 * M });
    expect(f.plan.opts.tile?.order).toBe('frame-major');
    expect(f.plan.opts.cacheOffload).toBe(true);
    expect(f.plan.memory.total).toBeLessThanOrEqual(60 * M);
    expect(f.plan.host.total).toBeLessThanOrEqual(100 * M);
    expect(f.reason).toMatch(/frame-major.*tile caches parked in CPU memory/);
    // with room in CPU memory the same request keeps tile-major (its store costs less bus than parked caches)
    const roomyCpu = fitPlan(cfg, base, { ...auto, budget: 60 * M, cpuBudget: 1000 * M });
    expect(roomyCpu.plan.opts.tile?.order).toBe('tile-major');
    expect(roomyCpu.plan.host.total).toBeGreaterThan(100 * M);
  });

  it('nothing under both budgets: the error names the CPU memory of the plans that fit the GPU', () => {
    const err = (() => {
      try {
        // 46 MiB: tile-major with the CPU store fits the GPU (43.6 MiB with shrinking tile windows) but keeps
        // 161 MiB of CPU memory; frame-major with offloaded caches needs 47.9 MiB of GPU memory
        fitPlan(cfg, base, { ...auto, tile: { th: 16, tw: 16 }, budget: 46 * M, cpuBudget: 100 * M });
      } catch (e) {
        return String(e);
      }
      return 'no error';
    })();
    expect(err).toMatch(/CPU budget 100 MiB/);
    expect(err).toMatch(/plans that fit the GPU need at least 1\d\d MiB of CPU memory \(tile-major: the store and every frame wait for the last tile/);
  });

  it('the 16 GB laptop: Wan2.1 480x832, 1,000 latent frames, --budget 1536 and 8 GiB of CPU memory', () => {
    const wan = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
    const req: FitRequest = { ...auto, limits: { maxStorageBufferBindingSize: 128 * M, maxBufferSize: 2 ** 40 }, budget: 1536 * M, cpuBudget: 8192 * M };
    const f = fitPlan(wan, { frames: 1000, h: 60, w: 104, cache: 'on' }, req);
    // tile-major would keep 3,997 frames of 480x832 (18 GiB) and the store (9 GiB) in CPU memory
    const tm = plan(wan, { ...f.plan.opts, tile: { ...f.plan.opts.tile!, order: 'tile-major', store: 'cpu' }, cacheOffload: false });
    console.log(`480x832 x 1000 latents: ${f.reason}; tile-major would keep ${(tm.host.total / 2 ** 30).toFixed(1)} GiB in CPU memory`);
    expect(tm.host.total).toBeGreaterThan(16 * 2 ** 30);
    expect(f.plan.opts.tile?.order).toBe('frame-major');
    expect(f.plan.memory.total).toBeLessThanOrEqual(1536 * M);
    expect(f.plan.host.total).toBeLessThanOrEqual(8192 * M);
  });
  it('a single output frame over the CPU budget is refused at once, naming the frame and both sizes', () => {
    // every plan assembles >= 1 frame of 12 B/px in CPU memory (host.frames); without the early check the
    // search walks every tiling (minutes at 100k px); a check off by the 8x scale or the 12 B would let the
    // 128x256 px frame (384 KiB) below through at 0.3 MiB, or refuse it at 1 MiB
    const base = { frames: 1, h: 16, w: 32, cache: 'on' } as const;
    expect(() => fitPlan(cfg, base, { ...auto, cpuBudget: 0.3 * M })).toThrow(/one output frame of 128x256 px takes 0 MiB.*over the CPU budget of 0 MiB/);
    expect(fitPlan(cfg, base, { ...auto, cpuBudget: 1 * M }).plan.host.frames).toBe(128 * 256 * 12);
  });
});
