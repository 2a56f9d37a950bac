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
  /** when the first chunk of frames and the latest complete chunk arrived (the rate is measured between them) */
  private first: number | null = null;
  private last = { t: 0, chunks: 0 };
  private lastDraw = -Infinity;
  private drawn = false;
  private doneFrames = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly sink: ProgressSink,
    private readonly total: number,
    /** frames per chunk after the first (which has one): 4 with the cache (1 + 4(T-1) frames), 1 without */
    private readonly perChunk: number,
    private readonly now: () => number = () => performance.now() / 1000,
    /** what happens before the first frame */
    private readonly startLabel = '[compile] device, weights, pipelines',
  ) {
    this.start = now();
    this.draw('compile', 0, true);
    // keep the clock moving on a terminal while nothing arrives (the first decode compiles for long)
    if (sink.tty) this.timer = setInterval(() => this.phase !== 'write' && this.draw(this.phase, this.doneFrames, false), 1000).unref();
  }

  /** Complete chunks among `done` frames (frames of a chunk arrive one after the other, at once). */
  private chunks(done: number): number {
    return done < 1 ? 0 : 1 + Math.floor((done - 1) / this.perChunk);
  }

  /** Seconds left, from the time per chunk after the first (which carries the compile); null before two chunks. */
  eta(): number | null {
    if (this.first === null || this.last.chunks < 2) return null;
    const perChunk = (this.last.t - this.first) / (this.last.chunks - 1);
    return Math.max(0, perChunk * (this.chunks(this.total) - this.last.chunks) - (this.now() - this.last.t));
  }

  /** `done` frames decoded so far. */
  frames(done: number): void {
    const t = this.now();
    this.phase = 'decode';
    this.first ??= t;
    const chunks = this.chunks(done);
    if (chunks > this.last.chunks && (done - 1) % this.perChunk === 0) this.last = { t, chunks };
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
    if (phase === 'compile') return `${this.startLabel} ... ${all}`;
    if (phase === 'write') return `[write] frame ${done}/${total} ... ${all}`;
    const eta = this.eta();
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
