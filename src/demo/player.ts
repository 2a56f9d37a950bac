// The frame canvas and its player: shows frames live while decoding, then play / pause / scrub / step.
import type { FrameStore } from './frames';

export interface PlayerControls {
  canvas: HTMLCanvasElement;
  play: HTMLButtonElement;
  back: HTMLButtonElement;
  forward: HTMLButtonElement;
  scrub: HTMLInputElement;
  label: HTMLElement;
  fps: HTMLInputElement;
}

/** Draw RGBA8 pixels onto a canvas sized to the frame. */
export function drawRgba(canvas: HTMLCanvasElement, rgba: Uint8ClampedArray, width: number, height: number): void {
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('demo: no 2d canvas context');
  ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba), width, height), 0, 0);
}

export class Player {
  private store: FrameStore | null = null;
  private current = 0;
  private timer: number | null = null;
  /** called whenever the shown frame changes */
  onShow: (index: number) => void = () => {};

  constructor(private readonly c: PlayerControls) {
    c.play.addEventListener('click', () => (this.timer === null ? this.play() : this.pause()));
    c.back.addEventListener('click', () => this.step(-1));
    c.forward.addEventListener('click', () => this.step(1));
    c.scrub.addEventListener('input', () => {
      this.pause();
      this.show(Number(c.scrub.value));
    });
    this.setEnabled(false);
    // keyboard: ← / → step, space plays or pauses (not while typing in a field)
    window.addEventListener('keydown', (e) => {
      const target = e.target as HTMLElement | null;
      if (c.play.disabled || e.altKey || e.ctrlKey || e.metaKey || target?.closest('input, select, textarea')) return;
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') this.step(e.key === 'ArrowLeft' ? -1 : 1);
      else if (e.key === ' ' && !target?.closest('button, label')) {
        if (this.timer === null) this.play();
        else this.pause();
      } else return;
      e.preventDefault();
    });
  }

  /** The frame shown now. */
  get index(): number {
    return this.current;
  }

  /** Live mode: a decode is running; frames are shown as they arrive and the controls are off. */
  startLive(store: FrameStore): void {
    this.pause();
    this.store = store;
    this.current = 0;
    this.setEnabled(false);
    this.c.scrub.max = String(Math.max(0, store.total - 1));
    this.c.scrub.value = '0';
    this.label();
  }

  /** A frame arrived during the decode. */
  live(index: number): void {
    this.show(index);
  }

  /** The decode ended; the player works over whatever frames arrived. */
  finish(): void {
    this.setEnabled(!!this.store && this.store.count > 0);
    this.label();
  }

  show(index: number): void {
    const s = this.store;
    if (!s) return;
    const i = Math.max(0, Math.min(s.total - 1, index));
    const f = s.get(i);
    if (!f) return;
    this.current = i;
    drawRgba(this.c.canvas, f.rgba, s.width, s.height);
    this.c.scrub.value = String(i);
    this.label();
    this.onShow(i);
  }

  step(d: number): void {
    this.pause();
    if (!this.store) return;
    this.show((this.current + d + this.store.total) % this.store.total);
  }

  play(): void {
    if (!this.store || this.timer !== null) return;
    const fps = Math.max(1, Math.min(60, Number(this.c.fps.value) || 16));
    this.timer = window.setInterval(() => {
      const s = this.store;
      if (!s) return;
      let next = (this.current + 1) % s.total;
      while (!s.get(next) && next !== this.current) next = (next + 1) % s.total;
      this.show(next);
    }, 1000 / fps);
    this.c.play.textContent = 'Pause';
  }

  pause(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
    this.c.play.textContent = 'Play';
  }

  /** frames per second chosen for playback and export */
  get fps(): number {
    return Math.max(1, Math.min(60, Number(this.c.fps.value) || 16));
  }

  private label(): void {
    const s = this.store;
    // a frame number only when that frame exists (not before the first one, nor after a failed decode)
    const shown = !!s && !!s.get(this.current);
    this.c.label.textContent = s ? `frame ${shown ? this.current + 1 : '–'} / ${s.total}` : 'frame – / –';
    this.c.canvas.setAttribute('aria-label', shown ? `decoded frame ${this.current + 1} of ${s!.total}` : 'decoded frame (none yet)');
  }

  private setEnabled(on: boolean): void {
    for (const el of [this.c.play, this.c.back, this.c.forward, this.c.scrub]) el.disabled = !on;
  }
}
