// The export buttons: video (WebCodecs through mediabunny, falling back to PNG frames with a message when
// this browser cannot encode), PNG of the frame shown, PNG of every frame.
import { byTestId } from './dom';
import { download } from './download';
import { exportGif } from './export-gif';
import { downloadPngs, pngBlob, pngName } from './export-png';
import { ExportUnavailable, exportVideo, type Container } from './export-video';
import { formatBytes } from './format';
import { errorText } from './messages';
import type { DecodeRecord } from './record';

export interface ExportContext {
  record: () => DecodeRecord | null;
  /** index of the frame on screen */
  shown: () => number;
  fps: () => number;
  /** base of file names, e.g. wan-vae-3 */
  baseName: () => string;
  onError: (what: string, e: unknown) => void;
}

export class ExportPanel {
  private readonly video = byTestId<HTMLButtonElement>('export');
  private readonly pngCurrent = byTestId<HTMLButtonElement>('export-png-current');
  private readonly pngAll = byTestId<HTMLButtonElement>('export-png-all');
  private readonly status = byTestId('export-status');
  private busy = false;

  constructor(private readonly ctx: ExportContext) {
    this.video.addEventListener('click', () => void this.run(() => this.exportVideo()));
    this.pngCurrent.addEventListener('click', () => void this.run(() => this.exportCurrentPng()));
    this.pngAll.addEventListener('click', () => void this.run(() => this.exportAllPngs()));
    this.enable(false);
  }

  enable(on: boolean): void {
    for (const b of [this.video, this.pngCurrent, this.pngAll]) b.disabled = !on || this.busy;
  }

  private say(text: string, state: 'busy' | 'done' | 'fallback' | 'error', bytes?: number): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
    if (bytes !== undefined) this.status.dataset.bytes = String(bytes);
    else delete this.status.dataset.bytes;
  }

  private async run(job: () => Promise<void>): Promise<void> {
    if (this.busy || !this.ctx.record()) return;
    this.busy = true;
    this.enable(false);
    try {
      await job();
    } catch (e) {
      this.say(`Export failed: ${errorText(e)}`, 'error');
      this.ctx.onError('Export', e);
    } finally {
      this.busy = false;
      this.enable(true);
    }
  }

  private frames(r: DecodeRecord): { index: number; rgba: Uint8ClampedArray }[] {
    const out: { index: number; rgba: Uint8ClampedArray }[] = [];
    for (let i = 0; i < r.store.total; i++) {
      const f = r.store.get(i);
      if (f) out.push(f);
    }
    return out;
  }

  private async exportVideo(): Promise<void> {
    const r = this.ctx.record()!;
    const frames = this.frames(r);
    const format = byTestId<HTMLSelectElement>('export-format').value;
    const scale = Number(byTestId<HTMLSelectElement>('export-scale').value) || 1;
    if (format === 'gif') {
      const blob = await exportGif(
        frames.map((f) => f.rgba),
        r.store.width,
        r.store.height,
        { fps: this.ctx.fps(), scale, onProgress: (n) => this.say(`Encoding GIF frame ${n} / ${frames.length}…`, 'busy') },
      );
      const name = `${this.ctx.baseName()}.gif`;
      download(blob, name);
      this.say(`Saved ${name}: animated GIF, ${r.store.width * scale}×${r.store.height * scale}, ${frames.length} frames at ${this.ctx.fps()} fps, ${formatBytes(blob.size)}.`, 'done', blob.size);
      return;
    }
    const container = format as Container;
    this.say(`Encoding ${frames.length} frames…`, 'busy');
    try {
      const v = await exportVideo(
        frames.map((f) => f.rgba),
        r.store.width,
        r.store.height,
        { fps: this.ctx.fps(), scale, container, onProgress: (n) => this.say(`Encoding frame ${n} / ${frames.length}…`, 'busy') },
      );
      const name = `${this.ctx.baseName()}.${v.extension.replace(/^\./, '')}`;
      download(v.blob, name);
      this.say(
        `Saved ${name}: ${v.codec.toUpperCase()}, ${r.store.width * scale}×${r.store.height * scale}, ${frames.length} frames at ${this.ctx.fps()} fps, ${formatBytes(v.blob.size)}.`,
        'done',
        v.blob.size,
      );
    } catch (e) {
      if (!(e instanceof ExportUnavailable)) throw e;
      this.say(`Video export is not available here (${e.message}). Falling back to PNG frames…`, 'fallback');
      await downloadPngs(frames, r.store.width, r.store.height, this.ctx.baseName());
      this.say(`Video export is not available here (${e.message}). Saved ${frames.length} PNG frames instead.`, 'fallback');
    }
  }

  private async exportCurrentPng(): Promise<void> {
    const r = this.ctx.record()!;
    const f = r.store.get(this.ctx.shown());
    if (!f) throw new Error('no frame on screen');
    const blob = await pngBlob(f.rgba, r.store.width, r.store.height);
    const name = pngName(this.ctx.baseName(), f.index);
    download(blob, name);
    this.say(`Saved ${name} (${formatBytes(blob.size)}).`, 'done', blob.size);
  }

  private async exportAllPngs(): Promise<void> {
    const r = this.ctx.record()!;
    const frames = this.frames(r);
    await downloadPngs(frames, r.store.width, r.store.height, this.ctx.baseName(), (n) => this.say(`Saving PNG ${n} / ${frames.length}…`, 'busy'));
    this.say(`Saved ${frames.length} PNG frames (one file per frame).`, 'done');
  }
}
