// Host side of bench/run.mjs: parses the arguments, then runs the suite in headless Chromium
// (host/browser.ts) or in Node (host/node.ts), and writes the report files (report/write.ts).
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, type BenchArgs } from '../lib/args';
import type { Report } from '../lib/types';
import { mergeReports, readReport, writeReport } from '../report/write';
import { runBrowser, serveOnly } from './browser';
import { gitCommit, repoRoot } from './git';
import { runNode } from './node';

function write(rep: Report, a: BenchArgs): number {
  const baseline = a.noBaseline ? null : resolve(a.baseline ?? join(repoRoot, 'bench', 'baselines', `${rep.env.machine}.json`));
  const w = writeReport(rep, { outDir: resolve(a.out ?? join(repoRoot, 'bench', 'results')), baseline, updateBaseline: a.updateBaseline });
  console.log(`[bench] wrote ${w.json}, ${w.md}${w.svg ? `, ${w.svg}` : ''}${w.baselineWritten ? `; baseline ${w.baselineWritten}` : ''}`);
  if (w.comparison) {
    console.log(`[bench] baseline ${w.comparison.baseline}: ${w.comparison.compared} rows compared, ${w.comparison.regressions.length} regressions > 10%`);
    for (const d of w.comparison.regressions) console.log(`[bench] REGRESSION ${d.name} ${d.metric}: ${d.base.toFixed(3)} -> ${d.current.toFixed(3)} (+${((d.ratio - 1) * 100).toFixed(1)}%)`);
  }
  const failed = rep.results.filter((r) => r.status === 'failed');
  console.log(`[bench] ${rep.results.length} rows, ${failed.length} failed, ${rep.seconds.toFixed(1)} s`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  let a: BenchArgs;
  try {
    a = parseArgs(argv);
  } catch (e) {
    console.error(`bench: ${(e as Error).message}`);
    return 2;
  }
  if (a.report) return write(mergeReports(a.report.split(',').map((f) => readReport(resolve(f)))), a);
  if (a.node) return runNode(a);
  if (a.serve) return serveOnly();
  const load0 = loadavg()[0]!;
  const rep = await runBrowser(a, a.commit ?? gitCommit());
  rep.tag = a.tag;
  rep.env.hostLoad = [load0, loadavg()[0]!];
  return write(rep, a);
}
