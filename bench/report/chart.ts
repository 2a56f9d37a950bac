// The memory / time / quality chart of a report as a standalone SVG: one point per trade-off matrix
// row and per onnxruntime comparison row; x = peak GPU MiB (counted), y = median ms (log scale),
// colour = PSNR against the exact f32 decode (onnxruntime points in red, labelled with their layout).
import type { Report, Result } from '../lib/types';

const W = 760, H = 420, L = 70, R = 20, T = 30, B = 50;

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

function points(rep: Report): Point[] {
  return rep.results
    .filter((r) => r.status === 'ok' && (r.group === 'matrix' || r.group === 'ort') && r.ms && (r.countedPeakGpuBytes ?? r.peakGpuBytes))
    .map((r) => {
      const q = r.quality ? (r.quality.psnr === Infinity || r.quality.psnr === null ? 'exact' : `${r.quality.psnr.toFixed(1)} dB`) : '';
      return { x: (r.countedPeakGpuBytes ?? r.peakGpuBytes)! / 2 ** 20, y: r.ms!.median, label: `${r.name.split('/').slice(2).join('/')} ${q}`.trim(), colour: colour(r) };
    });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** SVG text, or null when the report has no matrix / onnxruntime rows. */
export function tradeoffChart(rep: Report): string | null {
  const pts = points(rep);
  if (!pts.length) return null;
  const xMax = Math.max(...pts.map((p) => p.x)) * 1.15;
  const yLo = Math.log10(Math.min(...pts.map((p) => p.y)) / 1.5), yHi = Math.log10(Math.max(...pts.map((p) => p.y)) * 1.5);
  const sx = (x: number) => L + (x / xMax) * (W - L - R);
  const sy = (y: number) => H - B - ((Math.log10(y) - yLo) / Math.max(1e-9, yHi - yLo)) * (H - T - B);
  const ticks: string[] = [];
  for (let e = Math.floor(yLo); e <= Math.ceil(yHi); e++)
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (Math.log10(v) < yLo || Math.log10(v) > yHi) continue;
      ticks.push(`<line x1="${L}" x2="${W - R}" y1="${sy(v)}" y2="${sy(v)}" stroke="#eee"/><text x="${L - 6}" y="${sy(v) + 4}" text-anchor="end">${v >= 1000 ? `${v / 1000} s` : `${v} ms`}</text>`);
    }
  for (let i = 0; i <= 5; i++) {
    const v = (xMax / 5) * i;
    ticks.push(`<text x="${sx(v)}" y="${H - B + 16}" text-anchor="middle">${v.toFixed(v < 10 ? 2 : 0)}</text>`);
  }
  const dots = pts.map((p, i) => `<circle cx="${sx(p.x)}" cy="${sy(p.y)}" r="5" fill="${p.colour}"/><text x="${sx(p.x) + 8}" y="${sy(p.y) + 4 + (i % 2 ? 10 : -4)}">${esc(p.label)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${L}" y="18" font-size="13">${esc(`${rep.env.machine}: memory vs time vs PSNR (green exact / >= 45 dB, orange >= 30 dB, red onnxruntime-web)`)}</text>`,
    ...ticks,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">peak GPU memory (MiB, counted)</text>`,
    `<text transform="translate(16 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">decode time (median, log)</text>`,
    ...dots,
    `</svg>`,
  ].join('\n');
}
