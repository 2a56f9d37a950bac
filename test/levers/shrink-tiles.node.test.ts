// Shrinking tile windows (src/plan/tile-windows.ts): exact tiles crop each up block's input to the context
// that level still needs (margins M = [13, 12, 10, 7, 1] level px for Wan2.1 / Wan2.2). Checked here:
// - the margins follow from the layer list (a changed conv count would change them);
// - the decode with shrinking windows equals the untiled decode (max |err| 0 measured) and the planned
//   tile rings are smaller than without (so the crops really happen), peak = planned. Shrinking is the
//   default for exact tiles, so test/golden/tiling.test.ts checks both orders and both versions too;
// - the margins are tight: one level px short at 8x (7 -> 6) or two at 2x (12 -> 10; windows have even
//   bounds, so one short at 2x rounds back) changes the output (measured 1.1e-2 at 8x where the exact
//   windows give 0), so a margin rule that cut too much fails here, and one that kept too much would not
//   shrink the rings;
// - f16 storage with fused norms (odd windows failed a ring copy's 4-byte alignment: reproduced here
//   with the rounding removed, 'destination offset (71442) is not a multiple of 4 bytes').
// The latent is 22x21 with 8x7 cores: the middle tile's windows do not touch the frame edge at any level.
// Wan2.2 (its DupUp3D shortcut reads the cropped block input); node project only (lavapipe; ~30 s).
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { plan, type TileOption } from '../../src/plan/planner';
import { levelMargins } from '../../src/plan/tile-windows';
import { compare } from '../helpers/compare';
import { needGpu } from '../helpers/need';

it('margins per level follow from the layer list (official Wan2.1 and Wan2.2)', () => {
  for (const v of ['2.1', '2.2'] as const) expect(levelMargins(inferConfig(syntheticWeights(OFFICIAL[v], { values: false })))).toEqual([13, 12, 10, 7, 1]);
});

describe.each(['2.2'] as const)('shrinking tile windows, generated Wan%s decoder (dim 4), 2x22x21 latent', (v) => {
  it('equal the untiled decode (f32, f16 fused); a margin short at 8x or 2x does not', async (ctx) => {
    const gpu = await needGpu(ctx);
    const z = 8;
    const weights = syntheticWeights({ version: v, dim: 4, zDim: z, seed: 5 });
    const dec = new WanVaeDecoder(weights, gpu);
    const shape = [z, 2, 22, 21] as [number, number, number, number];
    const lat = { data: syntheticLatents(...shape), shape };
    const tile = (o: Partial<TileOption> = {}): TileOption => ({ th: 8, tw: 7, mode: 'exact', order: 'tile-major', ...o });
    try {
      const ref = await dec.decode(lat, { latentStats: 'none' });
      // planned: the shrinking windows hold smaller tile rings than the tile's ext at every level
      const cfg = inferConfig(weights);
      const base = { frames: 2, h: 22, w: 21, cache: 'on' as const, precision: 'f32' as const };
      const [shrunk, plain] = [true, false].map((shrink) => plan(cfg, { ...base, tile: tile({ shrink }) }));
      console.log(`Wan${v}: tile cache ${shrunk!.memory.cache} B shrinking vs ${plain!.memory.cache} B plain; compute x${shrunk!.tileOverhead.toFixed(2)} vs x${plain!.tileOverhead.toFixed(2)}`);
      expect(shrunk!.memory.cache).toBeLessThan(0.8 * plain!.memory.cache);
      expect(shrunk!.tileOverhead).toBeLessThan(plain!.tileOverhead);
      const r = await dec.decode(lat, { latentStats: 'none', tile: tile() });
      const c = compare(r.video, ref.video);
      console.log(`Wan${v} shrinking: max|err| ${c.maxAbs.toExponential(2)} vs untiled, peak ${r.peakGpuBytes} B = planned ${r.plannedPeakGpuBytes}`);
      expect(c.maxAbs).toBeLessThanOrEqual(1e-5);
      expect(r.peakGpuBytes).toBe(r.plannedPeakGpuBytes);
      // f16 storage with fused norms: a ring frame is (c+1)·h·w halves; with an odd window (a clipped corner
      // at 8x: core·8 + 7) it was an odd number of halves and the ring copy failed validation (H200,
      // 7b0cf0f); windows have even bounds now. Against the untiled f16 decode with fused norms.
      if (await dec.hasF16()) {
        const o = { latentStats: 'none', precision: 'f16', norm: 'fused' } as const;
        const [a, b] = [await dec.decode(lat, o), await dec.decode(lat, { ...o, tile: tile() })];
        const e = compare(b.video, a.video);
        console.log(`Wan${v} f16 fused shrinking: max|err| ${e.maxAbs.toExponential(2)} vs untiled f16`);
        expect(e.maxAbs).toBeLessThanOrEqual(1e-5);
      }
      for (const short of [
        [13, 12, 10, 6, 1],
        [13, 10, 10, 7, 1],
      ]) {
        const c = compare((await dec.decode(lat, { latentStats: 'none', tile: tile({ shrink: short }) })).video, ref.video);
        console.log(`Wan${v} margins ${short}: max|err| ${c.maxAbs.toExponential(2)} (not exact, as expected)`);
        expect(c.maxAbs).toBeGreaterThan(1e-7);
      }
    } finally {
      dec.dispose();
    }
  });
});
