// Node side: writes a report as <out>/<machine>-<date>[-quick].json, .md and .svg (the trade-off
// chart), compares it with the machine's baseline and optionally merges it into that baseline
// (rows replaced by key, others kept: quick and full rows share one file per machine).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Report } from '../lib/types';
import { compareWithBaseline, type BaselineComparison } from './baseline';
import { tradeoffChart } from './chart';
import { markdown } from './markdown';

export interface WriteOptions {
  outDir: string;
  /** baseline file (default <baselineDir>/<machine>.json); null: no comparison */
  baseline: string | null;
  updateBaseline: boolean;
}

export interface Written {
  json: string;
  md: string;
  svg: string | null;
  comparison: BaselineComparison | null;
  baselineWritten: string | null;
}

export function reportStem(rep: Report): string {
  return `${rep.env.machine}-${rep.startedAt.slice(0, 10)}${rep.quick ? '-quick' : ''}${rep.tag ? `-${rep.tag}` : ''}`;
}

export const json = (v: unknown): string => JSON.stringify(v, (_k, x) => (x === Infinity ? 'Infinity' : x), 1);

function readReport(path: string): Report {
  return JSON.parse(readFileSync(path, 'utf8'), (_k, x) => (x === 'Infinity' ? Infinity : x)) as Report;
}

export function writeReport(rep: Report, o: WriteOptions): Written {
  mkdirSync(o.outDir, { recursive: true });
  const stem = join(o.outDir, reportStem(rep));
  const chart = tradeoffChart(rep);
  const svg = chart ? `${stem}.svg` : null;
  if (svg) writeFileSync(svg, chart!);
  let comparison: BaselineComparison | null = null;
  if (o.baseline && existsSync(o.baseline)) comparison = compareWithBaseline(rep, readReport(o.baseline), o.baseline);
  writeFileSync(`${stem}.json`, json({ ...rep, baseline: comparison }));
  writeFileSync(`${stem}.md`, markdown(rep, svg ? basename(svg) : null, comparison));
  let baselineWritten: string | null = null;
  if (o.updateBaseline && o.baseline) {
    const prev = existsSync(o.baseline) ? readReport(o.baseline) : null;
    const keys = new Set(rep.results.map((r) => r.key));
    const merged: Report = { ...rep, results: [...(prev?.results.filter((r) => !keys.has(r.key)) ?? []), ...rep.results] };
    writeFileSync(o.baseline, json(merged));
    baselineWritten = o.baseline;
  }
  return { json: `${stem}.json`, md: `${stem}.md`, svg, comparison, baselineWritten };
}

/** Report JSON as stored by writeReport (Infinity restored). */
export { readReport };

/** Reports of split runs (--only) of one machine as one: results concatenated, env of the first. */
export function mergeReports(reps: Report[]): Report {
  const first = reps[0]!;
  if (reps.length === 1) return first;
  return {
    ...first,
    tag: undefined,
    args: reps.flatMap((r) => r.args.concat(';')),
    seconds: reps.reduce((a, r) => a + r.seconds, 0),
    results: reps.flatMap((r) => r.results),
  };
}
