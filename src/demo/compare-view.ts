// The compare view: A (pinned) and B (the latest decode) side by side at time-aligned frames, the
// difference heat map, PSNR and SSIM per frame as a chart and a table, a note explaining the alignment,
// and, for decodes of a trained-model sample, PSNR and SSIM of A and of B against the sample's source clip.
import { againstSource, alignFrames, diffHeatmap, frameSsim, maxAbsDiff, psnr, SSIM_MAX_PIXELS, type SourceClip } from './compare';
import { SSIM_WINDOW } from '../model/quality';
import { byTestId, h, svg } from './dom';
import { formatDb } from './format';
import { drawRgba } from './player';
import type { DecodeRecord } from './record';

interface Pair {
  a: number;
  b: number;
  psnr: number;
  ssim: number;
  maxAbs: number;
}

export class CompareView {
  private a: DecodeRecord | null = null;
  private b: DecodeRecord | null = null;
  private pairs: Pair[] = [];
  private scale = 0;
  private ssimOn = true;
  private readonly root: HTMLElement;
  private readonly labels: HTMLElement;
  private readonly scrub: HTMLInputElement;
  private readonly sourceLine: HTMLElement;
  /** the source clip of the sample each decode came from (decodes of a trained-model sample only) */
  private readonly sources = new WeakMap<DecodeRecord, SourceClip>();

  constructor() {
    this.root = byTestId('compare');
    this.labels = byTestId('compare-labels');
    this.scrub = byTestId<HTMLInputElement>('compare-scrub');
    this.scrub.addEventListener('input', () => this.showPair(Number(this.scrub.value)));
    this.sourceLine = h('p', { class: 'info', 'data-testid': 'compare-source', hidden: '' });
    byTestId('compare-note').after(this.sourceLine);
  }

  /** Marks `r` as a decode of a sample whose source clip is `src` (before setA / setB). */
  tagSource(r: DecodeRecord, src: SourceClip): void {
    this.sources.set(r, src);
  }

  get pinned(): DecodeRecord | null {
    return this.a;
  }

  setA(r: DecodeRecord | null): void {
    this.a = r;
    if (r && this.b === r) this.b = null;
    this.update();
  }

  setB(r: DecodeRecord | null): void {
    this.b = r === this.a ? null : r;
    this.update();
  }

  private update(): void {
    this.labels.textContent = this.a
      ? `A: ${this.a.label} · B: ${this.b?.label ?? 'decode again (change an option first) to compare'}`
      : this.b
        ? `Nothing pinned yet: pin the latest decode (${this.b.label.split(' ')[0]}) as A to compare the next one with it.`
        : 'Nothing to compare yet: decode, pin the result as A, then decode again.';
    const { a, b } = this;
    this.pairs = [];
    this.sourceLine.hidden = true;
    if (!a || !b) {
      this.root.hidden = true;
      return;
    }
    this.root.hidden = false;
    const note = byTestId('compare-note');
    if (a.store.height !== b.store.height || a.store.width !== b.store.width) {
      note.textContent = `A is ${a.store.width}×${a.store.height}, B is ${b.store.width}×${b.store.height}: compare needs two decodes of the same latents.`;
      this.clearCharts();
      return;
    }
    const nA = a.store.total,
      nB = b.store.total;
    // SSIM costs ~100 operations a pixel on the main thread: left out ('–') for long or large decodes
    // (and for frames smaller than its 11x11 window)
    this.ssimOn = Math.max(nA, nB) * a.store.height * a.store.width <= SSIM_MAX_PIXELS && Math.min(a.store.height, a.store.width) >= SSIM_WINDOW;
    for (const p of alignFrames(nA, nB)) {
      const fa = a.store.get(p.a),
        fb = b.store.get(p.b);
      if (!fa || !fb) continue;
      this.pairs.push({ ...p, psnr: psnr(fa.rgb, fb.rgb), ssim: this.ssimOn ? frameSsim(fa.rgb, fb.rgb, a.store.height, a.store.width) : NaN, maxAbs: maxAbsDiff(fa.rgb, fb.rgb) });
    }
    this.renderSource();
    this.scale = Math.max(0, ...this.pairs.map((p) => p.maxAbs));
    note.textContent =
      nA === nB
        ? `Both have ${nA} frames: frame i of A is compared with frame i of B. PSNR over [-1, 1] (peak-to-peak 2).`
        : `A has ${nA} frames, B has ${nB} (cache off gives one frame per latent frame, cache on 1 + 4(T−1)). ` +
          `Each frame of the shorter one is compared with the frame of the other at the same time position, ` +
          `round(i·(${Math.max(nA, nB)}−1)/(${Math.min(nA, nB)}−1)): latent frame t ↔ output frame 4t. PSNR over [-1, 1] (peak-to-peak 2).`;
    if (this.pairs.length === 0) {
      note.textContent += ' No matching frames were decoded (cancelled?).';
      this.clearCharts();
      return;
    }
    this.scrub.max = String(this.pairs.length - 1);
    this.scrub.value = '0';
    this.renderChart();
    this.renderTable();
    this.showPair(0);
  }

  /** PSNR / SSIM of A and B against their sample's source clip, where they have one of this size. */
  private renderSource(): void {
    const parts: string[] = [];
    for (const [name, r] of [
      ['A', this.a],
      ['B', this.b],
    ] as const) {
      const src = r && this.sources.get(r);
      if (!r || !src || src.height !== r.store.height || src.width !== r.store.width) continue;
      const q = againstSource((i) => r.store.get(i)?.rgb, r.store.total, src, { ssim: this.ssimOn });
      if (q) parts.push(`${name}: ${formatDb(q.psnr)} PSNR${this.ssimOn ? `, SSIM ${q.ssim.toFixed(4)}` : ''} (${q.frames} frames)`);
    }
    const src = (this.a && this.sources.get(this.a)) ?? (this.b && this.sources.get(this.b));
    this.sourceLine.hidden = parts.length === 0;
    this.sourceLine.textContent = parts.length
      ? `Against the source clip of ${src!.name} (the original video): ${parts.join(' · ')}. ${this.ssimOn ? 'SSIM: luma, 11×11 Gaussian window, mean over frames.' : `SSIM left out (above ${SSIM_MAX_PIXELS / 1e6} M pixels, or frames under ${SSIM_WINDOW}×${SSIM_WINDOW}).`}`
      : '';
  }

  private clearCharts(): void {
    byTestId('psnr-chart').replaceChildren();
    byTestId('psnr-table').replaceChildren();
  }

  private showPair(k: number): void {
    const p = this.pairs[k];
    if (!p || !this.a || !this.b) return;
    const fa = this.a.store.get(p.a)!,
      fb = this.b.store.get(p.b)!;
    const { height, width } = this.a.store;
    drawRgba(byTestId<HTMLCanvasElement>('compare-a'), fa.rgba, width, height);
    drawRgba(byTestId<HTMLCanvasElement>('compare-b'), fb.rgba, width, height);
    drawRgba(byTestId<HTMLCanvasElement>('compare-diff'), diffHeatmap(fa.rgb, fb.rgb, height, width, this.scale), width, height);
    byTestId('compare-a').nextElementSibling!.textContent = `A frame ${p.a + 1}`;
    byTestId('compare-b').nextElementSibling!.textContent = `B frame ${p.b + 1}`;
    byTestId('compare-diff-caption').textContent = this.scale > 0 ? `|A−B|, white = ${this.scale.toPrecision(3)}` : '|A−B| = 0';
    byTestId('psnr-table')
      .querySelectorAll('tr[data-pair]')
      .forEach((tr) => tr.classList.toggle('current', tr.getAttribute('data-pair') === String(k)));
  }

  private renderTable(): void {
    // PSNR and SSIM over the same frames, all of them: PSNR from the mean squared error of every compared
    // frame together (identical frames add 0, so none is left out), SSIM the mean of the frames' SSIM
    const n = this.pairs.length;
    const mse = this.pairs.reduce((t, p) => t + (Number.isFinite(p.psnr) ? 4 / 10 ** (p.psnr / 10) : 0), 0) / Math.max(1, n);
    const pooled = mse === 0 ? Infinity : 10 * Math.log10(4 / mse);
    byTestId('psnr-table').replaceChildren(
      h('thead', {}, h('tr', {}, h('th', {}, 'A frame'), h('th', {}, 'B frame'), h('th', {}, 'PSNR'), h('th', {}, 'SSIM'), h('th', {}, 'max |A−B|'))),
      h(
        'tbody',
        {},
        ...this.pairs.map((p, k) => {
          const tr = h(
            'tr',
            { 'data-pair': String(k) },
            h('td', {}, String(p.a + 1)),
            h('td', {}, String(p.b + 1)),
            h('td', {}, formatDb(p.psnr)),
            h('td', {}, Number.isNaN(p.ssim) ? '–' : p.ssim.toFixed(4)),
            h('td', {}, p.maxAbs.toExponential(2)),
          );
          tr.addEventListener('click', () => {
            this.scrub.value = String(k);
            this.showPair(k);
          });
          return tr;
        }),
        h(
          'tr',
          {},
          h('td', { colspan: '2', 'data-testid': 'compare-all' }, `all ${n} frames`),
          h('td', { 'data-testid': 'psnr-mean' }, Number.isFinite(pooled) ? formatDb(pooled) : '∞ (identical)'),
          h('td', { 'data-testid': 'ssim-mean' }, this.ssimOn ? (this.pairs.reduce((t, p) => t + p.ssim, 0) / n).toFixed(4) : '–'),
          h('td', {}, this.scale.toExponential(2)),
        ),
      ),
    );
  }

  private renderChart(): void {
    const W = 360,
      H = 80;
    const vals = this.pairs.map((p) => (Number.isFinite(p.psnr) ? p.psnr : NaN));
    const finite = vals.filter((v) => !Number.isNaN(v));
    const lo = finite.length ? Math.floor(Math.min(...finite) / 10) * 10 : 0;
    const hi = finite.length ? Math.max(lo + 10, Math.ceil(Math.max(...finite) / 10) * 10) : 100;
    const bw = W / this.pairs.length;
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H + 14}`, role: 'img', 'aria-label': 'PSNR per frame' });
    vals.forEach((v, i) => {
      const bh = Number.isNaN(v) ? H : (H * (v - lo)) / (hi - lo || 1);
      chart.append(
        svg(
          'rect',
          { x: i * bw + 1, y: H - bh, width: Math.max(1, bw - 2), height: Math.max(1, bh), fill: Number.isNaN(v) ? '#4cc38a' : '#b48cff' },
          svg('title', {}, `pair ${i + 1}: ${formatDb(this.pairs[i]!.psnr)}`),
        ),
      );
    });
    chart.append(svg('text', { x: 0, y: H + 12 }, `PSNR per frame, axis ${lo}–${hi} dB${finite.length < vals.length ? ' (green: identical)' : ''}`));
    byTestId('psnr-chart').replaceChildren(chart);
  }
}
