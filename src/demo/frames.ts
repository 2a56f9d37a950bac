// The frames of one decode as the page keeps them: the exact [3, H, W] floats (for compare and PSNR)
// and RGBA8 for display and export, plus when each arrived (for the progress ETA and the timing chart).

export interface StoredFrame {
  index: number;
  rgb: Float32Array;
  rgba: Uint8ClampedArray;
  /** ms since the decode started */
  at: number;
}

/** [3, H, W] in [-1, 1] to RGBA8, the same mapping as the decoder's (x + 1) · 127.5, rounded. */
export function rgbToRgba(rgb: Float32Array, height: number, width: number): Uint8ClampedArray {
  const n = height * width;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    out[4 * i] = Math.round((rgb[i]! + 1) * 127.5);
    out[4 * i + 1] = Math.round((rgb[n + i]! + 1) * 127.5);
    out[4 * i + 2] = Math.round((rgb[2 * n + i]! + 1) * 127.5);
    out[4 * i + 3] = 255;
  }
  return out;
}

export class FrameStore {
  private readonly frames: StoredFrame[] = [];
  private received = 0;

  constructor(
    /** frames the decode will produce (from the plan) */
    readonly total: number,
    readonly height: number,
    readonly width: number,
  ) {}

  add(f: { index: number; rgb: Float32Array; rgba?: Uint8ClampedArray }, at: number): StoredFrame {
    const rgba = f.rgba ?? rgbToRgba(f.rgb, this.height, this.width);
    const stored: StoredFrame = { index: f.index, rgb: f.rgb, rgba, at };
    if (!this.frames[f.index]) this.received++;
    this.frames[f.index] = stored;
    return stored;
  }

  get(i: number): StoredFrame | undefined {
    return this.frames[i];
  }

  /** frames received so far */
  get count(): number {
    return this.received;
  }

  get complete(): boolean {
    return this.received === this.total;
  }

  /** arrival times in frame order (ms since start), for frames received */
  arrivals(): number[] {
    return this.frames.filter(Boolean).map((f) => f.at);
  }
}
