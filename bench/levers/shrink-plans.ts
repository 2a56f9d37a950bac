// The plans of the README's "shrinking tile windows" table (2026-12-01, c4e0032): fitPlan's choice for Wan2.2
// 704x1280x121 under 1 GiB and Wan2.1 480x832x81 under 512 MiB (f16 storage; every norm, store and stream
// choice; 2 GiB bindings as on the H200), with and without tensor cores, and each plan with plain tiles
// (shrink false: the tile's ext at every level, as before) at the same grid for comparison. Expected times
// by src/plan/expected-time.ts (H200 rates); the search time of each fit on this machine.
// Run: node --import tsx --import ./bench/levers/register-wgsl.mjs bench/levers/shrink-plans.ts
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { fitPlan, type FitRequest } from '../../src/plan/auto';
import { expectedSeconds } from '../../src/plan/expected-time';
import { plan } from '../../src/plan/planner';
import type { WeightsPrecision } from '../../src/model/quantize';

const MiB = 2 ** 20;
const rows: [string, '2.1' | '2.2', [number, number, number], number, WeightsPrecision[], ('off' | 'on')[], boolean][] = [
  ['Wan2.2 704x1280x121, 1 GiB, int8, tensor cores', '2.2', [31, 44, 80], 1024, ['int8'], ['off', 'on'], true],
  ['Wan2.2 704x1280x121, 1 GiB, int8, portable', '2.2', [31, 44, 80], 1024, ['int8'], ['off', 'on'], false],
  ['Wan2.2 704x1280x121, 1 GiB, int8 resident, portable', '2.2', [31, 44, 80], 1024, ['int8'], ['off'], false],
  ['Wan2.2 704x1280x121, 1 GiB, f16 or int8 weights, tensor cores', '2.2', [31, 44, 80], 1024, ['f16', 'int8'], ['off', 'on'], true],
  ['Wan2.1 480x832x81, 512 MiB, f16 or int8 weights, tensor cores', '2.1', [21, 60, 104], 512, ['f16', 'int8'], ['off', 'on'], true],
  ['Wan2.1 480x832x81, 512 MiB, int8, tensor cores', '2.1', [21, 60, 104], 512, ['int8'], ['off', 'on'], true],
];
for (const [name, v, [frames, h, w], budget, weightsPrecisions, weightsStreams, tensorCores] of rows) {
  const cfg = inferConfig(syntheticWeights(OFFICIAL[v], { values: false }));
  const req: FitRequest = {
    budget: budget * MiB,
    cpuBudget: 64 * 2 ** 30,
    limits: { maxStorageBufferBindingSize: 2 ** 31 - 4, maxBufferSize: 2 ** 40 },
    precisions: ['f16'],
    weightsPrecisions,
    tile: 'auto',
    tileOrder: 'auto',
    stores: ['gpu', 'cpu'],
    norms: ['full', 'chunked', 'fused'],
    weightsStreams,
    cacheOffloads: ['off', 'on'],
  };
  const t0 = performance.now();
  const fit = fitPlan(cfg, { frames, h, w, cache: 'on', tensorCores }, req);
  const ms = performance.now() - t0;
  const e = expectedSeconds(fit.plan);
  const plain = plan(cfg, { ...fit.plan.opts, tile: fit.plan.opts.tile && { ...fit.plan.opts.tile, shrink: false } });
  console.log(
    `${name}: ${fit.reason}\n  ${(fit.plan.memory.total / MiB).toFixed(0)} MiB (plain tiles ${(plain.memory.total / MiB).toFixed(0)} MiB), tiled-part compute x${fit.plan.tileOverhead.toFixed(2)} (plain x${plain.tileOverhead.toFixed(2)}), weights over the bus ${(fit.plan.bus.weights / 1e9).toFixed(0)} GB, expected ${e.total.toFixed(1)} s (compute ${e.compute.toFixed(1)} + bus ${e.bus.toFixed(1)}); search ${ms.toFixed(0)} ms`,
  );
}
