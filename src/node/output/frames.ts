// A decoded video [3, F, H, W] f32 in [-1, 1] as RGBA8 frames, and the contact sheet of a few of them.

export interface Video {
  /** [3, frames, height, width], clamped to [-1, 1] */
  video: Float32Array;
  frames: number;
  height: number;
  width: number;
}

/** Frame `f` of `v` as [3, H, W] f32 (what the decoder's onFrame delivers as `rgb`). */
export function frameRgb(v: Video, f: number): Float32Array {
  const n = v.height * v.width;
  const out = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++) out.set(v.video.subarray((c * v.frames + f) * n, (c * v.frames + f + 1) * n), c * n);
  return out;
}

/** A frame [3, n] f32 in [-1, 1] as RGBA8 (round((v·0.5 + 0.5)·255), as the GPU output kernel writes it). */
export function rgbaOf(rgb: Float32Array, n: number): Uint8Array {
  const out = new Uint8Array(4 * n);
  for (let c = 0; c < 3; c++)
    for (let i = 0; i < n; i++) {
      const x = Math.min(1, Math.max(-1, rgb[c * n + i]!));
      out[4 * i + c] = Math.round((x * 0.5 + 0.5) * 255);
    }
  for (let i = 0; i < n; i++) out[4 * i + 3] = 255;
  return out;
}

/** Frame `f` as RGBA8. */
export function frameRgba(v: Video, f: number): Uint8Array {
  return rgbaOf(frameRgb(v, f), v.height * v.width);
}

/** Up to `max` frame indices spread evenly over [0, frames), first and last included. */
export function sheetFrames(frames: number, max = 16): number[] {
  if (frames <= max) return Array.from({ length: frames }, (_, i) => i);
  return Array.from({ length: max }, (_, i) => Math.round((i * (frames - 1)) / (max - 1)));
}

export interface Sheet {
  rgba: Uint8Array;
  width: number;
  height: number;
  /** the frame indices shown, row by row */
  frames: number[];
  cols: number;
}

/** A grid of frames (at most 16, evenly spaced), `gap` dark pixels between cells. */
export function contactSheet(v: Video, gap = 4): Sheet {
  const frames = sheetFrames(v.frames);
  const cols = Math.ceil(Math.sqrt(frames.length));
  const rows = Math.ceil(frames.length / cols);
  const width = cols * v.width + (cols - 1) * gap,
    height = rows * v.height + (rows - 1) * gap;
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255; // opaque black background
  frames.forEach((f, k) => {
    const img = frameRgba(v, f);
    const x0 = (k % cols) * (v.width + gap),
      y0 = Math.floor(k / cols) * (v.height + gap);
    for (let y = 0; y < v.height; y++) rgba.set(img.subarray(y * v.width * 4, (y + 1) * v.width * 4), ((y0 + y) * width + x0) * 4);
  });
  return { rgba, width, height, frames, cols };
}
