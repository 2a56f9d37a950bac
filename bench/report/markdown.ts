// The markdown summary of a report: environment, one table per scenario group, failures with their
// text, the trade-off chart (an SVG beside the .md) and the baseline comparison.
import type { Report, Result, Spread } from '../lib/types';
import type { BaselineComparison } from './baseline';

const f = (v: number | undefined | null, d = 2) => (v === undefined || v === null || Number.isNaN(v) ? '-' : v.toFixed(d));
const ms = (v: number | undefined | null) => (v === undefined || v === null || Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const mib = (b: number | undefined) => (b ? (b / 2 ** 20).toFixed(b < 2 ** 24 ? 2 : 0) : '-');
const psnr = (r: Result) => (!r.quality ? '-' : r.quality.psnr === Infinity || r.quality.psnr === null ? 'exact' : `${r.quality.psnr.toFixed(1)} dB`);
const dbCell = (v: number | undefined) => (v === undefined ? '-' : v === Infinity ? 'exact' : `${v.toFixed(2)} dB`);
const ssimCell = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(4));
const err = (r: Result) => (r.quality ? r.quality.maxAbs.toExponential(2) : '-');
const sp = (s: Spread | undefined) => (s ? `${ms(s.median)} (${ms(s.p10)}-${ms(s.p90)})` : '-');
const x = (r: Result, k: string) => r.extra?.[k];

function table(head: string[], rows: (string | number)[][]): string[] {
  if (!rows.length) return [];
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`), ''];
}

const ok = (rep: Report, g: string[]) => rep.results.filter((r) => r.status === 'ok' && g.includes(r.group));

function header(rep: Report): string[] {
  const e = rep.env;
  return [
    `# Benchmark: ${e.machine} (${rep.quick ? 'quick' : 'full'})`,
    '',
    `- Date ${rep.startedAt}, ${rep.seconds.toFixed(0)} s, commit \`${e.commit}\`, args \`${rep.args.join(' ') || '(none)'}\``,
    `- Runtime ${e.runtime}, ${e.engine}${e.flags.length ? `, flags \`${e.flags.join(' ')}\`` : ''}`,
    ...(e.hostLoad ? [`- Host 1-min load average ${e.hostLoad.map((l) => l.toFixed(1)).join(' -> ')} (other work on a CPU machine slows CPU adapters)`] : []),
    `- Adapter ${[e.adapter.vendor, e.adapter.architecture, e.adapter.device, e.adapter.description].filter(Boolean).join(' / ')}${e.adapter.isFallbackAdapter ? ' (fallback adapter)' : ''}; subgroups ${e.adapter.subgroupMinSize ?? '?'}-${e.adapter.subgroupMaxSize ?? '?'}`,
    `- Device features: ${e.deviceFeatures.join(', ') || 'none'}; adapter features: ${e.adapterFeatures.join(', ')}`,
    `- Limits: ${Object.entries(e.limits)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `- Timing: ${e.timestampNote}. Kernel rows: GPU pass time (timestamp-query) or wall to onSubmittedWorkDone, as labelled. Decode rows: wall time of decode() with every readback (what a caller waits for); "GPU busy" sums timestamp-query pass times of one more decode.`,
    '',
  ];
}

function kernelsTable(rep: Report): string[] {
  const rows = ok(rep, ['conv3d', 'rms-norm', 'attention']).map((r) => [r.name, sp(r.ms), r.ms?.n ?? '-', f(r.gflops, r.gflops! < 10 ? 3 : 1), f(r.gbps, 2), r.timing ?? '-']);
  return rows.length ? ['## Kernels (median of the runs after warmup, p10-p90)', '', ...table(['kernel / shape / storage', 'ms', 'runs', 'GFLOP/s', 'GB/s', 'timing'], rows)] : [];
}

function decodeTable(rep: Report): string[] {
  const rows = ok(rep, ['decode']).map((r) => [
    r.name,
    `${x(r, 'size')} x ${x(r, 'frames')}`,
    sp(r.ms),
    sp(x(r, 'msPerLatentFrame') as Spread | undefined),
    x(r, 'gpuBusyMs') === undefined ? '-' : `${ms(x(r, 'gpuBusyMs') as number)} of ${ms(x(r, 'gpuBusyWallMs') as number)}`,
    ms(x(r, 'coldMs') as number),
    f(r.gflops, r.gflops! < 10 ? 3 : 1),
    mib(r.peakGpuBytes),
    mib(r.plannedPeakGpuBytes),
    mib(r.countedPeakGpuBytes),
    err(r),
  ]);
  return rows.length
    ? [
        '## End-to-end decode (generated weights, f32, cache on)',
        '',
        ...table(
          ['scenario', 'video', 'warm ms (p10-p90)', 'ms / latent frame', 'GPU busy of wall ms', 'cold ms', 'GFLOP/s', 'peak MiB (arena)', 'planned MiB', 'counted MiB', 'max err vs CPU'],
          rows,
        ),
      ]
    : [];
}

/** The trade-off table: one lever changed at a time from the exact f32 decode (the first row). */
function tradeoffTable(rep: Report): string[] {
  const rows = rep.results
    .filter((r) => r.group === 'tradeoffs')
    .map((r) =>
      r.status === 'ok'
        ? [
            r.name.replace(/^tradeoffs\//, ''),
            mib(r.plannedPeakGpuBytes),
            mib(r.peakGpuBytes),
            sp(r.ms),
            `${x(r, 'frames')}`,
            err(r),
            psnr(r),
            ssimCell(r.quality?.ssim),
            dbCell(r.quality?.psnrVsSource),
            ssimCell(r.quality?.ssimVsSource),
            r.quality?.against ?? '-',
          ]
        : [r.name.replace(/^tradeoffs\//, ''), '-', '-', '-', '-', '-', '-', '-', '-', '-', `${r.status}: ${String(r.error).replace(/\|/g, '/').slice(0, 200)}`],
    );
  if (!rows.length) return [];
  return [
    '## Trade-offs: each memory lever alone against the exact f32 decode (first row of each model)',
    '',
    'Trained-model rows (`trained-SAMPLE`: models/, Wan2.1 dim 32, a shipped sample) also compare with the original video: PSNR and SSIM vs source (SSIM: luma per frame, 11x11 Gaussian window, src/model/quality.ts; cache off at the source frames its frames stand for, 4k).',
    '',
    ...table(['model / options', 'planned MiB', 'arena peak MiB', 'warm ms (p10-p90)', 'frames', 'max err', 'PSNR', 'SSIM', 'PSNR vs source', 'SSIM vs source', 'against (max err, PSNR, SSIM)'], rows),
  ];
}

function matrixTable(rep: Report, chart: string | null): string[] {
  const rows = rep.results
    .filter((r) => r.group === 'matrix')
    .map((r) =>
      r.status === 'ok'
        ? [r.name, mib(r.plannedPeakGpuBytes), mib(r.peakGpuBytes), mib(r.countedPeakGpuBytes), sp(r.ms), err(r), psnr(r), r.quality?.against ?? '-']
        : [r.name, '-', '-', '-', '-', '-', '-', `${r.status}: ${r.error}`],
    );
  if (!rows.length) return [];
  return [
    '## Trade-off matrix (memory / time / quality vs the exact f32 decode of the same frames)',
    '',
    ...(chart ? [`![memory vs time vs PSNR](${chart})`, ''] : []),
    ...table(['options', 'planned MiB', 'arena peak MiB', 'counted MiB', 'ms (p10-p90)', 'max err', 'PSNR', 'against'], rows),
  ];
}

function coldTable(rep: Report): string[] {
  const keys = ['importMs', 'deviceMs', 'weightsMs', 'uploadMs', 'compileMs', 'firstFrameMs', 'totalMs', 'warmFirstFrameMs'];
  const rows = ok(rep, ['cold']).map((r) => [r.name, ...keys.map((k) => ms(x(r, k) as number))]);
  return rows.length
    ? [
        '## Cold start (wall ms; import = worker/process start to suite start)',
        '',
        ...table(['scenario', 'import', 'device', 'weights', 'upload', 'compile', 'first frame', 'total', 'warm first frame'], rows),
      ]
    : [];
}

function ortTable(rep: Report): string[] {
  const rows = rep.results
    .filter((r) => r.group === 'ort')
    .map((r) =>
      r.status !== 'ok'
        ? [r.name, '-', '-', '-', '-', '-', '-', '-', `**${r.status}**: ${String(r.error).replace(/\|/g, '/').replace(/\n/g, ' ').slice(0, 600)}`]
        : [
            r.name,
            sp(r.ms),
            sp(x(r, 'runMs') as Spread | undefined),
            ms(x(r, 'coldMs') as number),
            f(r.gflops, 3),
            mib(r.countedPeakGpuBytes),
            err(r),
            f(x(r, 'timeRatioVsOurs') as number, 1),
            r.name.endsWith('/ours') ? 'ours' : `peak x${f(x(r, 'peakRatioVsOurs') as number, 2)}; create ${x(r, 'createMs')}; model ${x(r, 'modelMiB')} MiB`,
          ],
    );
  return rows.length
    ? [
        '## onnxruntime-web (WebGPU EP, same device, weights, latents; ONNX chunk graphs from bench/onnx)',
        '',
        ...table(['row', 'warm ms (p10-p90)', 'run ms (no session creation)', 'cold ms', 'GFLOP/s', 'counted peak MiB', 'max err vs ours', 'time x ours', 'notes'], rows),
      ]
    : [];
}

function failures(rep: Report): string[] {
  const bad = rep.results.filter((r) => r.status !== 'ok' && r.group !== 'ort' && r.group !== 'matrix' && r.group !== 'tradeoffs');
  return bad.length ? ['## Failed or skipped', '', ...bad.map((r) => `- \`${r.name}\` ${r.status}: ${r.error}`), ''] : [];
}

function baselineSection(c: BaselineComparison | null): string[] {
  if (!c) return ['## Baseline', '', 'No baseline for this machine (`--update-baseline` writes one).', ''];
  const rows = c.deltas
    .filter((d) => d.regression || d.ratio < 0.9)
    .map((d) => [
      d.name,
      d.metric,
      d.metric === 'peak bytes' ? mib(d.base) : ms(d.base),
      d.metric === 'peak bytes' ? mib(d.current) : ms(d.current),
      `${((d.ratio - 1) * 100).toFixed(1)}%`,
      d.regression ? '**REGRESSION**' : 'better',
    ]);
  return [
    `## Baseline ${c.baseline} (commit \`${c.baselineCommit}\`, ${c.baselineDate})`,
    '',
    `${c.compared} rows compared, ${c.regressions.length} regressions (> 10% slower or larger).`,
    '',
    ...table(['row', 'metric', 'baseline', 'now', 'change', ''], rows),
  ];
}

export function markdown(rep: Report, chartFile: string | null, base: BaselineComparison | null): string {
  return [
    ...header(rep),
    ...coldTable(rep),
    ...kernelsTable(rep),
    ...decodeTable(rep),
    ...matrixTable(rep, chartFile),
    ...tradeoffTable(rep),
    ...ortTable(rep),
    ...failures(rep),
    ...baselineSection(base),
  ].join('\n');
}
