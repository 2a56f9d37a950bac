// Timing summary of a decode: total seconds, ms per frame, time to the first frame, adapter; and a bar
// per chunk (the video frames of one latent frame: 1, then 4 each) of the time since
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
      h(
        'div',
        { class: 'k' },
        'time per chunk (ms since the previous chunk; a chunk is the 1 or 4 video frames of one latent frame; the first, orange, includes the weights upload and shader compiles)',
      ),
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

/**
 * Group arrivals (frame order, ms) into chunks by where the decoder makes them, never by arrival gaps (on a
 * slow adapter the frames of one chunk can arrive tens of ms apart): latent frame 0 gives video frame 0,
 * latent frame t > 0 gives video frames 4t-3 .. 4t (both Wan VAEs upsample time by 4, causally).
 */
export function bursts(arrivals: number[]): Chunk[] {
  const out: Chunk[] = [];
  arrivals.forEach((a, i) => {
    const chunk = Math.ceil(i / 4);
    const cur = out[chunk];
    if (cur) {
      cur.last = i;
      cur.ms = a - (chunk ? arrivals[out[chunk - 1]!.last]! : 0);
    } else out.push({ first: i, last: i, ms: a - (chunk ? arrivals[i - 1]! : 0) });
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
