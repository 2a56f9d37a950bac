// Comparison of a report with a baseline report of the same machine (bench/baselines/<machine>.json):
// rows are matched by `key` (name + params, so quick and full runs never mix); time (median ms) or
// peak GPU bytes more than 10% above the baseline is a regression.
import type { Report, Result } from '../lib/types';

export const REGRESSION = 0.1;

export interface Delta {
  name: string;
  metric: 'median ms' | 'peak bytes';
  base: number;
  current: number;
  /** current / base */
  ratio: number;
  regression: boolean;
}

export interface BaselineComparison {
  baseline: string;
  baselineCommit: string;
  baselineDate: string;
  compared: number;
  deltas: Delta[];
  regressions: Delta[];
}

function peak(r: Result): number | undefined {
  return r.countedPeakGpuBytes ?? r.peakGpuBytes;
}

export function compareWithBaseline(cur: Report, base: Report, source: string): BaselineComparison {
  const byKey = new Map(base.results.filter((r) => r.status === 'ok').map((r) => [r.key, r]));
  const deltas: Delta[] = [];
  let compared = 0;
  for (const r of cur.results) {
    const b = byKey.get(r.key);
    if (!b || r.status !== 'ok') continue;
    compared++;
    const add = (metric: Delta['metric'], bv: number | undefined, cv: number | undefined) => {
      if (!(bv! > 0) || !(cv! > 0)) return;
      const ratio = cv! / bv!;
      deltas.push({ name: r.name, metric, base: bv!, current: cv!, ratio, regression: ratio > 1 + REGRESSION });
    };
    add('median ms', b.ms?.median, r.ms?.median);
    add('peak bytes', peak(b), peak(r));
  }
  return { baseline: source, baselineCommit: base.env.commit, baselineDate: base.startedAt, compared, deltas, regressions: deltas.filter((d) => d.regression) };
}
