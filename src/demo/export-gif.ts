// Animated GIF export in the page (gifenc, no WebCodecs needed: plays in every browser and image viewer):
// one 256-colour palette from up to 8 evenly spaced frames, nearest-neighbour upscaling, looping.
import { applyPalette, GIFEncoder, quantize } from 'gifenc';

function upscale(rgba: Uint8ClampedArray, width: number, height: number, s: number): Uint8ClampedArray {
  if (s === 1) return rgba;
  const out = new Uint8ClampedArray(width * s * height * s * 4);
  const src = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
  const dst = new Uint32Array(out.buffer);
  for (let y = 0; y < height * s; y++) for (let x = 0; x < width * s; x++) dst[y * width * s + x] = src[Math.floor(y / s) * width + Math.floor(x / s)]!;
  return out;
}

export async function exportGif(frames: Uint8ClampedArray[], width: number, height: number, o: { fps: number; scale: number; onProgress?: (n: number) => void }): Promise<Blob> {
  const W = width * o.scale,
    H = height * o.scale;
  const k = Math.min(8, frames.length);
  const sample = Array.from({ length: k }, (_, i) => frames[k === 1 ? 0 : Math.round((i * (frames.length - 1)) / (k - 1))]!);
  const pool = new Uint8ClampedArray(width * height * 4 * k);
  sample.forEach((f, i) => pool.set(f, i * width * height * 4));
  const palette = quantize(pool, 256);
  const gif = GIFEncoder();
  for (let i = 0; i < frames.length; i++) {
    gif.writeFrame(applyPalette(upscale(frames[i]!, width, height, o.scale), palette), W, H, { palette, delay: 1000 / o.fps, repeat: 0 });
    o.onProgress?.(i + 1);
    if (i % 4 === 3) await new Promise((r) => setTimeout(r, 0)); // let the page repaint the status
  }
  gif.finish();
  return new Blob([gif.bytes().slice().buffer as ArrayBuffer], { type: 'image/gif' });
}
