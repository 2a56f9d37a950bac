// Progress of a CLI decode on stderr: the phase (compile: device, weights upload and pipeline compilation
// until the first frame; decode; write), frames done, elapsed time and an ETA. On a terminal one line is
// redrawn in place ('\r'); otherwise (forced with --progress on) a line per update, at most one a second.

export type Phase = 'compile' | 'decode' | 'write';

export interface ProgressSink {
  write(s: string): void;
  /** a terminal: redraw one line in place */
  tty: boolean;
  /** columns of the terminal (the line is cut to fit) */
  columns?: number;
}

function secs(s: number): string {
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - 60 * m)} s`;
}

export class Progress {
  private phase: Phase = 'compile';
  private readonly start: number;
  /** time and frames done when the first chunk of frames arrived (the rate is measured after it) */
  private first: { t: number; done: number } | null = null;
  private lastDraw = -Infinity;
  private drawn = false;
  private doneFrames = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly sink: ProgressSink,
    private readonly total: number,
    private readonly now: () => number = () => performance.now() / 1000,
  ) {
    this.start = now();
    this.draw('compile', 0, true);
    // keep the clock moving on a terminal while nothing arrives (the first decode compiles for long)
    if (sink.tty) this.timer = setInterval(() => this.phase !== 'write' && this.draw(this.phase, this.doneFrames, false), 1000).unref();
  }

  /** Seconds left, from the rate after the first chunk (the first one carries the compile); null before two chunks. */
  eta(done: number, t = this.now()): number | null {
    if (!this.first || done <= this.first.done) return null;
    return ((t - this.first.t) / (done - this.first.done)) * (this.total - done);
  }

  /** `done` frames decoded so far. */
  frames(done: number): void {
    const t = this.now();
    this.phase = 'decode';
    if (!this.first) this.first = { t, done };
    this.doneFrames = done;
    this.draw('decode', done, done === this.total);
  }

  /** The writer's progress (frames encoded of the total). */
  writing(done: number, total: number): void {
    this.phase = 'write';
    this.draw('write', done, done === total || done === 0, total);
  }

  /** The line for the current state (exported for tests through `line`). */
  line(phase: Phase, done: number, total = this.total, t = this.now()): string {
    const all = secs(t - this.start);
    if (phase === 'compile') return `[compile] device, weights, pipelines ... ${all}`;
    if (phase === 'write') return `[write] frame ${done}/${total} ... ${all}`;
    const eta = this.eta(done, t);
    const pct = Math.round((100 * done) / this.total);
    return `[decode] frame ${done}/${this.total} (${pct}%) ${all}${done === this.total ? '' : eta === null ? ', ETA after the next chunk' : `, ETA ${secs(eta)}`}`;
  }

  private draw(phase: Phase, done: number, force: boolean, total?: number): void {
    const t = this.now();
    if (!force && t - this.lastDraw < (this.sink.tty ? 0.1 : 1)) return;
    this.lastDraw = t;
    let s = this.line(phase, done, total, t);
    if (this.sink.tty) {
      if (this.sink.columns) s = s.slice(0, this.sink.columns - 1);
      this.sink.write(`\r\x1b[2K${s}`);
      this.drawn = true;
    } else this.sink.write(`${s}\n`);
  }

  /** End the progress line (a terminal gets its newline; nothing else is printed). */
  done(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.sink.tty && this.drawn) this.sink.write('\n');
    this.drawn = false;
  }
}
