// Timing summary of a decode: total seconds, ms per frame, time to the first frame, adapter; and a bar
// per chunk (frames that arrive together: 1, then 4 per latent frame with the cache) of the time since
// the previous chunk (the first bar includes weights upload and compiles).
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
  const kv = (k: string, v: string, id: string, wide = false) => h('div', { class: wide ? 'kv wide' : 'kv' }, h('div', { class: 'k' }, k), h('div', { class: 'v', 'data-testid': id }, v));
  const chunks = bursts(t.arrivals);
  el.replaceChildren(
    kv('total', formatSeconds(t.seconds), 'timing-seconds'),
    kv('per frame', t.frames ? `${((1000 * t.seconds) / t.frames).toFixed(0)} ms` : '–', 'timing-ms-per-frame'),
    kv('first frame', formatSeconds(first / 1000), 'timing-first'),
    kv('steady', Number.isFinite(steady) ? `${steady.toFixed(0)} ms/frame` : '–', 'timing-steady'),
    kv('adapter', `${t.adapter} (${t.backend})`, 'timing-adapter', true),
    h(
      'div',
      { class: 'kv wide chart' },
      h('div', { class: 'k' }, 'time per chunk (ms since the previous chunk; frames of a chunk arrive together; the first, orange, includes the weights upload and shader compiles)'),
      chunkChart(chunks),
    ),
  );
}

interface Chunk {
  first: number;
  last: number;
  /** ms since the previous chunk (since the start for the first) */
  ms: number;
}

/** Group arrivals (sorted, ms) into chunks: a frame within 25 ms of the previous one belongs to its chunk. */
export function bursts(arrivals: number[], gapMs = 25): Chunk[] {
  const out: Chunk[] = [];
  let prevEnd = 0;
  arrivals.forEach((a, i) => {
    const cur = out[out.length - 1];
    if (cur && a - arrivals[i - 1]! < gapMs) cur.last = i;
    else {
      if (cur) prevEnd = arrivals[cur.last]!;
      out.push({ first: i, last: i, ms: a - prevEnd });
    }
  });
  return out;
}

function chunkChart(chunks: Chunk[]): SVGElement {
  const W = 560,
    H = 70,
    max = Math.max(1, ...chunks.map((c) => c.ms));
  const bw = W / Math.max(1, chunks.length);
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H + 14}`, role: 'img', 'aria-label': 'time per chunk' });
  chunks.forEach((c, i) => {
    const bh = (H * c.ms) / max;
    const n = c.last - c.first + 1;
    chart.append(
      svg(
        'rect',
        { x: i * bw + 1, y: H - bh, width: Math.max(1, bw - 2), height: bh, fill: i === 0 ? '#e5a84b' : '#4ea1ff' },
        svg('title', {}, `chunk ${i + 1}: frame${n > 1 ? `s ${c.first + 1}-${c.last + 1}` : ` ${c.first + 1}`}, ${c.ms.toFixed(0)} ms`),
      ),
    );
  });
  chart.append(svg('text', { x: 0, y: H + 12 }, `max ${max.toFixed(0)} ms`));
  return chart;
}
