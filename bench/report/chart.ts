// The memory / time / quality chart of a report as a standalone SVG: one point per trade-off matrix
// row and per onnxruntime comparison row; x = peak GPU MiB (counted), y = median ms (log scale; for
// onnxruntime the decode runs without session creation),
// colour = PSNR against the exact f32 decode (onnxruntime points in red, labelled with their layout).
import type { Report, Result } from '../lib/types';

const W = 760,
  H = 440,
  L = 70,
  R = 20,
  T = 50,
  B = 50;

interface Point {
  x: number;
  y: number;
  label: string;
  colour: string;
}

function colour(r: Result): string {
  if (r.name.includes('/ort-')) return '#c0392b';
  const p = r.quality?.psnr;
  if (p === undefined) return '#7f8c8d';
  if (p === Infinity || p === null) return '#1e8449';
  return p >= 45 ? '#52be80' : p >= 30 ? '#e67e22' : '#922b21';
}

/** onnxruntime rows: decode time without session creation (runMs), as for our warm decodes. */
function time(r: Result): number {
  const run = r.extra?.runMs as { median?: number } | undefined;
  return run?.median ?? r.ms!.median;
}

function points(rep: Report): Point[] {
  const hasMatrix = rep.results.some((r) => r.group === 'matrix' && r.status === 'ok');
  return rep.results
    .filter((r) => r.status === 'ok' && (r.group === 'matrix' || r.group === 'ort') && r.ms && (r.countedPeakGpuBytes ?? r.peakGpuBytes))
    .filter((r) => !(hasMatrix && r.name.endsWith('/ours')))
    .map((r) => {
      const q = r.quality ? (r.quality.psnr === Infinity || r.quality.psnr === null ? 'exact' : `${r.quality.psnr.toFixed(1)} dB`) : '';
      const label = `${r.group === 'ort' ? r.name.split('/').slice(1).join('/') : r.name.split('/').slice(2).join('/')} ${q}`.trim();
      return { x: (r.countedPeakGpuBytes ?? r.peakGpuBytes)! / 2 ** 20, y: time(r), label, colour: colour(r) };
    });
}

/** A round tick step giving about `n` ticks over [0, max]. */
function niceStep(max: number, n: number): number {
  const raw = max / n,
    p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw)!;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** SVG text, or null when the report has no matrix / onnxruntime rows. */
export function tradeoffChart(rep: Report): string | null {
  const pts = points(rep);
  if (!pts.length) return null;
  const xMax = Math.max(...pts.map((p) => p.x)) * 1.15;
  const yLo = Math.log10(Math.min(...pts.map((p) => p.y)) / 1.5),
    yHi = Math.log10(Math.max(...pts.map((p) => p.y)) * 1.5);
  const sx = (x: number) => L + (x / xMax) * (W - L - R);
  const sy = (y: number) => H - B - ((Math.log10(y) - yLo) / Math.max(1e-9, yHi - yLo)) * (H - T - B);
  const ticks: string[] = [];
  for (let e = Math.floor(yLo); e <= Math.ceil(yHi); e++)
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (Math.log10(v) < yLo || Math.log10(v) > yHi) continue;
      ticks.push(`<line x1="${L}" x2="${W - R}" y1="${sy(v)}" y2="${sy(v)}" stroke="#eee"/><text x="${L - 6}" y="${sy(v) + 4}" text-anchor="end">${v >= 1000 ? `${v / 1000} s` : `${v} ms`}</text>`);
    }
  const step = niceStep(xMax, 6);
  for (let v = 0; v <= xMax; v += step) ticks.push(`<text x="${sx(v)}" y="${H - B + 16}" text-anchor="middle">${+v.toPrecision(6)}</text>`);
  const dots = pts.map((p, i) => {
    const right = sx(p.x) > W * 0.6;
    return `<circle cx="${sx(p.x)}" cy="${sy(p.y)}" r="5" fill="${p.colour}"/><text x="${sx(p.x) + (right ? -8 : 8)}" y="${sy(p.y) + 4 + (i % 2 ? 10 : -4)}" text-anchor="${right ? 'end' : 'start'}">${esc(p.label)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${L}" y="18" font-size="13">${esc(`${rep.env.machine}: memory vs time vs PSNR`)}</text>`,
    `<text x="${L}" y="34" fill="#555">green: exact / >= 45 dB, orange: >= 30 dB, red: onnxruntime-web (run time, no session creation)</text>`,
    ...ticks,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">peak GPU memory (MiB, counted)</text>`,
    `<text transform="translate(16 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">decode time (median, log)</text>`,
    ...dots,
    `</svg>`,
  ].join('\n');
}
