// GPU memory by owner over a decode, as an SVG stacked bar chart: the planner's prediction next to what
// the arena allocated. The arena allocates every buffer once, before the first frame, and nothing per
// frame, so the measured bar is the resident memory during the whole decode.
import { h, svg } from './dom';
import { formatBytes } from './format';
import { OWNERS, OWNER_COLOR, OWNER_HELP } from './owners';

export interface MemoryBars {
  planned: Record<string, number> | null;
  measured: Record<string, number> | null;
  /** arena peak (measured) */
  peak?: number;
}

const W = 560,
  LABEL = 78,
  BAR = 22,
  GAP = 12,
  TOP = 6;

export function renderMemoryChart(el: HTMLElement, m: MemoryBars, note = ''): void {
  const bars = [
    { name: 'planned', bytes: m.planned },
    { name: 'measured', bytes: m.measured },
  ].filter((b): b is { name: string; bytes: Record<string, number> } => b.bytes !== null);
  if (bars.length === 0) {
    el.replaceChildren(h('p', { class: 'muted' }, note || 'No GPU memory to show.'));
    return;
  }
  const total = (b: Record<string, number>) => OWNERS.reduce((a, o) => a + (b[o] ?? 0), 0);
  const max = Math.max(1, ...bars.map((b) => total(b.bytes)));
  const height = TOP + bars.length * (BAR + GAP) + 4;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${height}`, role: 'img', 'aria-label': 'GPU memory by owner' });
  bars.forEach((b, row) => {
    const y = TOP + row * (BAR + GAP);
    chart.append(svg('text', { x: 0, y: y + BAR / 2 + 4 }, b.name));
    let x = LABEL;
    for (const o of OWNERS) {
      const bytes = b.bytes[o] ?? 0;
      const w = ((W - LABEL - 70) * bytes) / max;
      if (w > 0) chart.append(svg('rect', { x, y, width: Math.max(w, 0.5), height: BAR, fill: OWNER_COLOR[o] }, svg('title', {}, `${o}: ${formatBytes(bytes)} (${OWNER_HELP[o]})`)));
      x += w;
    }
    chart.append(svg('text', { x: x + 6, y: y + BAR / 2 + 4 }, formatBytes(total(b.bytes))));
  });
  const legend = h(
    'div',
    { class: 'hint' },
    // swatch and name in one unbreakable span: a wrapped legend never leaves a colour at the end of a line
    ...OWNERS.flatMap((o) => [h('span', { style: 'white-space:nowrap' }, h('span', { style: `display:inline-block;width:9px;height:9px;margin:0 4px 0 8px;background:${OWNER_COLOR[o]}` }), o), ' ']),
  );
  const caption = h(
    'div',
    { class: 'hint' },
    m.measured
      ? `Measured by the arena: ${formatBytes(m.peak ?? total(m.measured))} peak, allocated once before the first frame and constant for the whole decode (nothing is allocated per frame).`
      : note,
  );
  el.replaceChildren(chart, legend, caption);
}
