#!/usr/bin/env node
// The planner half of the trade-off table (issue 3): planned peak GPU bytes of every memory lever alone,
// at real sizes, from `wan-vae plan --json` (pure TypeScript, no GPU). Bindings up to 4 GiB (a desktop
// GPU's limit; WebGPU's default 128 MiB forces tiles at these sizes) and a device with tensor cores (the
// CLI's `--tensor-cores on`, as the H200: f16 plans count their operand copy, int8 ones their f16 scratch),
// with the expected time of src/plan/expected-time.ts. Writes bench/results/plan-table.md.
// Usage: node bench/plan-table.mjs   (needs dist/cli.js: npm run build:cli)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** [vae, size, frames, tile core for the tile rows, budgets in MiB (f32 row, f16-allowed row, f16 + int8-weights-allowed row)] */
const SIZES = [
  ['2.1', '480x832', 81, '30x26', [1536, 768, 512]],
  ['2.1', '720x1280', 81, '45x40', [1536, 768, 640]],
  ['2.2', '704x1280', 121, '22x40', [4096, 2048, 1024]],
];
/** [label, flags]: the reference first, then one lever at a time */
const levers = (tile, [b32, b16, b8]) => [
  ['exact f32 (reference)', []],
  ['cache off', ['--cache', 'off']],
  ['f16 storage', ['--precision', 'f16']],
  ['f16 weights (f32 storage)', ['--weights-precision', 'f16']],
  ['int8 weights (f32 storage)', ['--weights-precision', 'int8']],
  ['int8 weights, f16 storage', ['--precision', 'f16', '--weights-precision', 'int8']],
  ['norm chunked (64 Ki px)', ['--norm', 'chunked']],
  ['norm fused', ['--norm', 'fused']],
  [`exact tiles ${tile}, tile-major`, ['--tile', tile, '--tile-store', 'gpu']],
  [`exact tiles ${tile}, store in CPU memory`, ['--tile', tile, '--tile-store', 'cpu']],
  [`exact tiles ${tile}, frame-major`, ['--tile', tile, '--tile-order', 'frame-major']],
  [`blend tiles ${tile} (halo 2)`, ['--tile', tile, '--tile-mode', 'blend', '--tile-store', 'gpu']],
  [`budget ${b32} MiB, f32`, ['--budget', String(b32), '--tile', 'auto']],
  [`budget ${b16} MiB, f16 allowed`, ['--budget', String(b16), '--tile', 'auto', '--precision', 'auto']],
  [`budget ${b8} MiB, f16 and int8 weights allowed`, ['--budget', String(b8), '--tile', 'auto', '--precision', 'auto', '--weights-precision', 'auto']],
];
const mib = (b) => (b / 2 ** 20).toFixed(0);
const lines = [`# Planned peak GPU memory by lever (${new Date().toISOString().slice(0, 10)}, \`node bench/plan-table.mjs\`)`, ''];
lines.push(
  'Exact rows decode the same frames as the reference; blend and f16 are approximate (quality: the bench `tradeoffs` group); cache off gives T frames instead of 1 + 4(T-1) (Wan2.1 only). Planned for a device with tensor cores (`--tensor-cores on`: f16 storage runs conv3d-mma); expected seconds: src/plan/expected-time.ts (H200 rates).',
  '',
);
for (const [vae, size, frames, tile, budgets] of SIZES) {
  lines.push(
    `## Wan${vae} ${size} x ${frames} frames`,
    '',
    '| lever | planned MiB | weights | cache | activations | store (GPU) | host store | tiles | compute x | conv | expected s | choice |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const [label, flags] of levers(tile, budgets)) {
    const args = ['bin/wan-vae.mjs', 'plan', '--vae', vae, '--size', size, '--frames', String(frames), '--limit-binding', '4096', '--json'];
    if (!flags.includes('--tile')) args.push('--tile', 'none');
    // one lever at a time: norm full unless the row is about norms or a budget (which may pick any)
    if (!flags.includes('--norm') && !flags.includes('--budget')) args.push('--norm', 'full');
    try {
      const j = JSON.parse(execFileSync('node', [...args, ...flags], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
      const b = j.breakdown;
      lines.push(
        `| ${label} | ${mib(j.plannedPeakGpuBytes)} | ${mib(b.weights)} | ${mib(b.cache)} | ${mib(b.activations)} | ${mib(b.store)} | ${mib(j.hostStoreBytes)} | ${j.tiles || '-'} | ${j.tileComputeOverhead.toFixed(2)} | ${j.options.tensorCores ? 'tensor cores' : 'portable'} | ${j.expectedSeconds.total.toFixed(1)} | ${j.plan} |`,
      );
    } catch (e) {
      const msg = String(e.stderr || e.message)
        .trim()
        .split('\n')
        .pop();
      lines.push(`| ${label} | - | - | - | - | - | - | - | - | - | - | ${msg.replace(/\|/g, '/')} |`);
    }
  }
  lines.push('');
}
const out = join(root, 'bench/results/plan-table.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, lines.join('\n'));
console.log(lines.join('\n'));
