#!/usr/bin/env node
// The held-out table of the trained default model THROUGH THE PROJECT'S WEBGPU DECODER (issue 12).
//
//   python3 models/train/heldout.py --out /tmp/heldout          # clips + latents (PyTorch, CPU is fine)
//   node scripts/heldout-webgpu.mjs --dir /tmp/heldout --out bench/results/heldout-webgpu-DATE/heldout.json
//
// For each clip of DIR/index.json: `wan-vae decode --weights models/wan21-d32-decoder.safetensors
// --latents DIR/NAME.latents.npy --source DIR/NAME.source.npy --json` (one process per clip, the CLI's own
// plan and defaults), then the PSNR/SSIM per clip and per set (photo clips, unseen photograph, procedural,
// all 24 validation clips = photo + procedural) next to PyTorch's figure for the same clip (train.py's
// validation rows in --torch-report, the float32 decode of the same f16 weights; for an evalset.py index, its clips'
// psnrTorch, and --torch-report is not read). Prints a markdown table.
// Options: --cli PATH (a built dist/cli.js; default the repository's), --only a,b, --timeout S (per clip),
// --resume PREV.json (rows already decoded by an earlier run are kept; one without a PyTorch figure takes the index's),
// --keep DIR (each decode kept as DIR/NAME.decode.npy).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, v, i, all) => (v.startsWith('--') ? [...acc, [v.slice(2), all[i + 1]]] : acc), []));
const fail = (m) => {
  console.error(`heldout-webgpu: ${m}`);
  process.exit(2);
};
if (!args.dir) fail('--dir DIR (made by models/train/heldout.py) is required');
const dir = resolve(args.dir);
const cli = resolve(args.cli ?? join(root, 'dist/cli.js'));
const weights = resolve(args.weights ?? join(root, 'models/wan21-d32-decoder.safetensors'));
const torchReport = resolve(args['torch-report'] ?? join(root, 'models/training/stage4.json'));
const perClip = Number(args.timeout ?? 600);
let index;
const indexPath = resolve(args.index ?? join(dir, 'index.json'));
try {
  index = JSON.parse(readFileSync(indexPath, 'utf8'));
} catch (e) {
  fail(`${indexPath}: ${e.message}`);
}
const only = args.only ? new Set(args.only.split(',')) : null;
// --resume PREV.json: clips decoded by an earlier run (a report of this script) are taken from it, not decoded again
const done = new Map(
  args.resume
    ? JSON.parse(readFileSync(resolve(args.resume), 'utf8'))
        .rows.filter((r) => r.psnrWebgpu !== undefined)
        .map((r) => [r.name, r])
    : [],
);

// PyTorch's figure per clip: train.py `validate` rows, in the order heldout.py names them
const torchRows = index.sets ? null : JSON.parse(readFileSync(torchReport, 'utf8')).validation?.rows;
if (!torchRows && !index.sets) fail(`${torchReport}: no validation.rows`);
const torchPsnr = (name) => {
  if (!torchRows) return null;
  const m = /^val-(\d+)$/.exec(name) ?? /^chelsea-(\d+)$/.exec(name);
  if (!m) return null;
  const row = name.startsWith('val-') ? torchRows.clips[Number(m[1])] : torchRows.photo[Number(m[1])];
  return row?.psnr ?? null;
};

const tmp = mkdtempSync(join(tmpdir(), 'heldout-'));
if (args.keep) mkdirSync(resolve(args.keep), { recursive: true });
const runner = join(tmp, 'run.mjs');
writeFileSync(runner, `const { main } = await import(${JSON.stringify('file://' + cli)});\nprocess.exitCode = await main(process.argv.slice(2));\n`);
const rows = [];
for (const c of index.clips) {
  if (only && !only.has(c.name)) continue;
  if (done.has(c.name)) {
    // a kept row without PyTorch's figure takes it from this index (figures added to the index after that run)
    const kept = done.get(c.name);
    rows.push(typeof kept.psnrTorch === 'number' ? kept : { ...kept, psnrTorch: c.psnrTorch ?? torchPsnr(c.name) });
    continue;
  }
  const t0 = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      runner,
      'decode',
      '--weights',
      weights,
      '--latents',
      join(dir, `${c.name}.latents.npy`),
      '--source',
      join(dir, `${c.name}.source.npy`),
      '--out',
      args.keep ? join(resolve(args.keep), `${c.name}.decode.npy`) : join(tmp, 'v.npy'),
      '--json',
      '--progress',
      'off',
      ...(args['dawn-flags'] ? ['--dawn-flags', args['dawn-flags']] : []),
    ],
    { encoding: 'utf8', timeout: perClip * 1000, maxBuffer: 1 << 24 },
  );
  const last = r.stdout?.trim().split('\n').at(-1) ?? '';
  let j = null;
  try {
    j = JSON.parse(last);
  } catch {
    /* reported below */
  }
  if (r.status !== 0 || !j || typeof j.psnrVsSource !== 'number') {
    console.error(`${c.name}: FAILED (exit ${r.status}${r.signal ? `, ${r.signal}` : ''}): ${(r.stderr ?? '').trim().split('\n').at(-1)}`);
    rows.push({ ...c, error: (r.stderr ?? '').trim().split('\n').at(-1) ?? `exit ${r.status}` });
    continue;
  }
  const row = {
    ...c,
    psnrWebgpu: j.psnrVsSource,
    ssimWebgpu: j.ssimVsSource,
    psnrTorch: c.psnrTorch ?? torchPsnr(c.name),
    seconds: j.seconds,
    wallSeconds: (Date.now() - t0) / 1000,
    adapter: j.adapter,
    precision: j.options?.precision,
    peakGpuBytes: j.peakGpuBytes,
  };
  rows.push(row);
  console.log(
    `${c.name.padEnd(10)} ${c.set.padEnd(12)} ${c.source.padEnd(12)} WebGPU ${row.psnrWebgpu.toFixed(2)} dB SSIM ${row.ssimWebgpu.toFixed(4)}  PyTorch ${row.psnrTorch?.toFixed(2) ?? '-'} dB  (${row.seconds.toFixed(1)} s)`,
  );
}
rmSync(tmp, { recursive: true, force: true });

const ok = rows.filter((r) => r.psnrWebgpu !== undefined);
const stats = (rs, key) => {
  const v = rs.map((r) => r[key]).filter((x) => typeof x === 'number');
  return v.length ? { n: v.length, mean: +(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3), min: +Math.min(...v).toFixed(3), max: +Math.max(...v).toFixed(3) } : null;
};
// index.sets ([[label, set or '*'], ...], evalset.py) names the sets of other clip lists; else heldout.py's sets
const sets = index.sets
  ? index.sets.map(([label, set]) => [label, set === '*' ? () => true : (r) => r.set === set])
  : [
      ['photo clips (unseen camera moves over the training photographs)', (r) => r.set === 'photo-clip'],
      ['the unseen photograph chelsea', (r) => r.set === 'unseen-photo'],
      ['procedural scenes', (r) => r.set === 'procedural'],
      ['all 24 validation clips (photo + procedural)', (r) => r.set !== 'unseen-photo'],
      ['all 32 held-out clips', () => true],
    ];
const summary = sets.map(([label, f]) => {
  const rs = ok.filter(f);
  const d = rs.filter((r) => typeof r.psnrTorch === 'number').map((r) => Math.abs(r.psnrWebgpu - r.psnrTorch));
  return { set: label, webgpu: stats(rs, 'psnrWebgpu'), ssim: stats(rs, 'ssimWebgpu'), torch: stats(rs, 'psnrTorch'), maxAbsDiffDb: d.length ? +Math.max(...d).toFixed(3) : null };
});
const report = {
  date: new Date().toISOString(),
  weights: weights.replace(root + '/', ''),
  torchReport: index.sets ? null : torchReport.replace(root + '/', ''), // an evalset.py index carries its own figures
  clipFrames: index.frames,
  clipSize: index.size,
  seed: index.seed,
  encoder: index.device ? `${index.device}, torch ${index.torch}` : null, // where the latents were made (an index without it: not recorded)
  failed: rows.length - ok.length,
  summary,
  rows,
};
if (args.out) {
  mkdirSync(dirname(resolve(args.out)), { recursive: true });
  writeFileSync(resolve(args.out), JSON.stringify(report, null, 1) + '\n');
}
console.log('\n| held-out set | clips | WebGPU PSNR mean | min | max | WebGPU SSIM mean | PyTorch PSNR mean | max \\|WebGPU - PyTorch\\| |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const s of summary)
  if (s.webgpu)
    console.log(
      `| ${s.set} | ${s.webgpu.n} | ${s.webgpu.mean.toFixed(2)} dB | ${s.webgpu.min.toFixed(2)} | ${s.webgpu.max.toFixed(2)} | ${s.ssim.mean.toFixed(4)} | ${s.torch ? s.torch.mean.toFixed(2) + ' dB' : '-'} | ${s.maxAbsDiffDb ?? '-'} dB |`,
    );
process.exitCode = rows.length === ok.length ? 0 : 1;
