// Backpressure of onFrame: a consumer may return a Promise (a frame being written to a slow disk, piped
// into ffmpeg, posted to the page); at most `limit` frames are handed out and not yet settled. The
// decoder awaits give() before it hands out the next frame (and, on the GPU, before it submits the next
// chunk after the one being emitted), so a slow consumer slows the decode instead of queueing frames
// in memory. A cancel while waiting ends the wait at once (the consumer's promises are left to settle
// on their own); a consumer's rejection ends the decode with that error.
import { DecoderError } from '../gpu/errors';

export class FrameWindow {
  /** the consumer's promises not yet settled (frames handed out and not done with) */
  private readonly open = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;
  /** the largest number of frames outstanding at once (for tests and diagnostics) */
  maxOpen = 0;

  constructor(
    /** at most this many frames handed out and not yet settled (>= 1) */
    private readonly limit: number,
    private readonly signal?: AbortSignal,
  ) {}

  /**
   * Hand one frame to the consumer (`call` runs it now; a synchronous throw propagates). Resolves when
   * fewer than `limit` frames are outstanding, so the next may be handed out; rejects with the
   * consumer's error or 'cancelled'.
   */
  async give(call: () => unknown): Promise<void> {
    this.rethrow();
    const r = call();
    if (r && typeof (r as PromiseLike<unknown>).then === 'function') {
      const p: Promise<void> = Promise.resolve(r as PromiseLike<unknown>).then(
        () => void this.open.delete(p),
        (error: unknown) => {
          this.open.delete(p);
          this.failure ??= { error };
        },
      );
      this.open.add(p);
      this.maxOpen = Math.max(this.maxOpen, this.open.size);
    }
    while (this.open.size >= this.limit) await this.settleOne();
    this.rethrow();
  }

  /** After the last frame: resolves when every frame handed out has settled (rejects as give does). */
  async drain(): Promise<void> {
    while (this.open.size) await this.settleOne();
    this.rethrow();
  }

  /** Wait until one outstanding frame settles, or the signal aborts. */
  private async settleOne(): Promise<void> {
    this.rethrow();
    const s = this.signal;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((r) => {
      onAbort = () => r();
      s?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([...this.open, aborted]);
    } finally {
      s?.removeEventListener('abort', onAbort!);
    }
    this.rethrow();
  }

  private rethrow(): void {
    if (this.signal?.aborted) throw new DecoderError('cancelled', 'decode cancelled (while waiting for the frame consumer)');
    if (this.failure) throw this.failure.error;
  }
}
