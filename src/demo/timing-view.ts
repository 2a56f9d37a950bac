// Timing summary of a decode: total seconds, ms per frame, time to the first frame, adapter; and a bar
// per frame of the time since the previous one (the first bar includes weights upload and compiles).
import { h, svg } from './dom';
import { formatSeconds } from './format';

export interface Timing {
  seconds: number;
  frames: number;
  adapter: string;
  backend: string;
  /** arrival of each frame, ms since the decode started */
  arrivals: number[];
}

export function renderTiming(el: HTMLElement, t: Timing): void {
  const first = t.arrivals[0] ?? NaN;
  const steady = t.arrivals.length > 1 ? (t.arrivals[t.arrivals.length - 1]! - first) / (t.arrivals.length - 1) : NaN;
  const kv = (k: string, v: string, id: string, wide = false) =>
    h('div', { class: wide ? 'kv wide' : 'kv' }, h('div', { class: 'k' }, k), h('div', { class: 'v', 'data-testid': id }, v));
  const gaps = t.arrivals.map((a, i) => a - (i === 0 ? 0 : t.arrivals[i - 1]!));
  el.replaceChildren(
    kv('total', formatSeconds(t.seconds), 'timing-seconds'),
    kv('per frame', t.frames ? `${((1000 * t.seconds) / t.frames).toFixed(0)} ms` : '–', 'timing-ms-per-frame'),
    kv('first frame', formatSeconds(first / 1000), 'timing-first'),
    kv('steady', Number.isFinite(steady) ? `${steady.toFixed(0)} ms/frame` : '–', 'timing-steady'),
    kv('adapter', `${t.adapter} (${t.backend})`, 'timing-adapter', true),
    h('div', { class: 'kv wide chart' }, h('div', { class: 'k' }, 'time per frame (ms since the previous frame)'), gapChart(gaps)),
  );
}

function gapChart(gaps: number[]): SVGElement {
  const W = 560, H = 70, max = Math.max(1, ...gaps);
  const bw = W / Math.max(1, gaps.length);
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H + 14}`, role: 'img', 'aria-label': 'time per frame' });
  gaps.forEach((g, i) => {
    const bh = (H * g) / max;
    chart.append(svg('rect', { x: i * bw + 1, y: H - bh, width: Math.max(1, bw - 2), height: bh, fill: i === 0 ? '#e5a84b' : '#4ea1ff' }, svg('title', {}, `frame ${i + 1}: ${g.toFixed(0)} ms`)));
  });
  chart.append(svg('text', { x: 0, y: H + 12 }, `max ${max.toFixed(0)} ms`));
  return chart;
}
