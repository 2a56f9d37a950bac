// Progress bar with frames done / total and an ETA from the rate since the first frame (the first
// frame also pays for shader compiles and weight upload, so it is not used for the rate).
import { formatBytes, formatSeconds } from './format';
import type { WeightsRead } from '../worker/protocol';

/**
 * The weights line of the model card, fed by the worker's per-tensor progress (the API's WeightsProgress):
 * bytes of the file's decoder tensors read and in all, the tensor just read. The reads happen as the first
 * decode uploads the weights; `data-bytes` holds the bytes done. Returns the callback for createDecoder.
 */
export function showWeightsRead(line: HTMLElement): (p: WeightsRead) => void {
  line.hidden = true;
  line.textContent = '';
  return (p) => {
    line.hidden = false;
    line.dataset.bytes = String(p.bytesDone);
    line.dataset.total = String(p.bytesTotal);
    const pct = p.bytesTotal ? Math.floor((100 * p.bytesDone) / p.bytesTotal) : 100;
    line.textContent =
      p.bytesDone >= p.bytesTotal
        ? `Weights read: ${formatBytes(p.bytesTotal)} of decoder tensors, uploaded to the GPU.`
        : `Reading weights: ${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)} (${pct}%) · ${p.tensor}`;
  };
}

export class Progress {
  private total = 0;
  private startedAt = 0;
  private firstAt: number | null = null;

  private readonly bar: HTMLElement;

  /** `box`: the progress element (holds a .bar child); `text`: the line under it. */
  constructor(
    private readonly box: HTMLElement,
    private readonly text: HTMLElement,
  ) {
    this.bar = box.querySelector<HTMLElement>('.bar') ?? box;
    box.setAttribute('role', 'progressbar');
  }

  start(total: number): void {
    this.total = total;
    this.startedAt = performance.now();
    this.firstAt = null;
    this.render(0, `0 / ${total} frames · preparing (weights upload, shader compiles)…`);
  }

  /** `done` frames received. */
  frame(done: number): void {
    const now = performance.now();
    if (this.firstAt === null) this.firstAt = now;
    let eta = 'ETA after the next frame';
    if (done >= 2) {
      const perFrame = (now - this.firstAt) / (done - 1);
      eta = done === this.total ? 'finishing' : `ETA ${formatSeconds((perFrame * (this.total - done)) / 1000)} (${perFrame.toFixed(0)} ms/frame)`;
    }
    const elapsed = formatSeconds((now - this.startedAt) / 1000);
    this.render(done, `${done} / ${this.total} frames · ${elapsed} elapsed · ${eta}`);
  }

  end(done: number, text: string): void {
    this.render(done, `${done} / ${this.total} frames · ${text}`);
  }

  private render(done: number, text: string): void {
    this.bar.style.width = `${this.total ? (100 * done) / this.total : 0}%`;
    this.text.textContent = text;
    this.box.setAttribute('aria-valuenow', String(done));
    this.box.setAttribute('aria-valuemax', String(this.total));
  }
}
