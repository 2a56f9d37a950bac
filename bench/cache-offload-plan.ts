// Offloaded caches at real sizes, planned (no GPU): per tiling, GPU bytes, CPU bytes and bus bytes per
// output frame of tile-major (GPU store / CPU store), frame-major with every tile's caches resident and
// frame-major with the idle tiles' caches parked in CPU memory; at 81 frames and at 1,000 latent frames.
// The planner is exact for GPU bytes (tests: allocated = planned); the bus time uses the expected-time model's writeBuffer rate (EXPECTED_RATES.busBytes).
// Usage: node node_modules/.cache/raw-build.mjs bench/cache-offload-plan.ts node_modules/.cache/cop.mjs && node node_modules/.cache/cop.mjs > bench/results/cache-offload-plan-DATE.md
import { inferConfig } from '../src/model/config';
import { OFFICIAL, syntheticWeights } from '../src/model/synthetic';
import { EXPECTED_RATES } from '../src/plan/expected-time';
import { plan, type PlanOptions } from '../src/plan/planner';

const mib = (n: number) => (n / 2 ** 20).toFixed(0);
const out = [
  `# Offloaded caches, planned (${new Date().toISOString().slice(0, 10)}, \`bench/cache-offload-plan.ts\`)`,
  '',
  `Exact tiles, norm fused. GPU = planned peak (MiB); CPU = what the decoder keeps (MiB: store + parked caches + frames being assembled; the written video not counted); bus = MiB per output frame of the levers (store, caches); time = the levers' bus bytes at ${EXPECTED_RATES.busBytes / 1e9} GB/s (writeBuffer, H200, 2026-12-01).`,
  '',
];
for (const [v, H, W, grids] of [
  [
    '2.1',
    480,
    832,
    [
      [30, 52],
      [20, 35],
      [15, 26],
    ],
  ],
  [
    '2.2',
    704,
    1280,
    [
      [22, 40],
      [15, 27],
      [11, 20],
    ],
  ],
] as const) {
  const cfg = inferConfig(syntheticWeights(OFFICIAL[v], { values: false }));
  const h = H / cfg.scale,
    w = W / cfg.scale;
  for (const T of [((v === '2.1' ? 81 : 121 - 1) / 4 + 1) | 0, 1000]) {
    const frames = 1 + 4 * (T - 1);
    out.push(`## Wan${v} ${H}x${W}, ${frames} frames (${T} latents)`, '', '| storage | tiles | order | GPU | CPU | bus / frame | lever bus time |', '|---|---:|---|---:|---:|---:|---:|');
    for (const precision of ['f32', 'f16'] as const)
      for (const [th, tw] of grids) {
        const row = (label: string, o: Partial<PlanOptions>) => {
          const p = plan(cfg, { frames: T, h, w, cache: 'on', precision, norm: 'fused', ...o });
          const lever = p.bus.store + p.bus.cache;
          out.push(
            `| ${precision} | ${p.tiles!.length} | ${label} | ${mib(p.memory.total)} | ${mib(p.host.total)} | ${(lever / p.framesOut / 2 ** 20).toFixed(1)} | ${(lever / EXPECTED_RATES.busBytes).toFixed(1)} s |`,
          );
        };
        const tile = { th, tw, mode: 'exact' } as const;
        row('tile-major, GPU store', { tile: { ...tile, order: 'tile-major', store: 'gpu' } });
        row('tile-major, CPU store', { tile: { ...tile, order: 'tile-major', store: 'cpu' } });
        row('frame-major, caches resident', { tile: { ...tile, order: 'frame-major' } });
        row('frame-major, caches offloaded', { tile: { ...tile, order: 'frame-major' }, cacheOffload: true });
      }
    out.push('');
  }
}
console.log(out.join('\n'));
