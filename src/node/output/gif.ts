// Animated GIF of a decoded video (gifenc): one 256-colour palette for the whole video, taken from up to
// 8 evenly spaced frames (a palette per frame makes colours flicker between frames), looping forever.
import { applyPalette, GIFEncoder, quantize } from 'gifenc';
import { frameRgba, sheetFrames, type Video } from './frames';

/** Encode `v` at `fps` frames per second (GIF delays are in 1/100 s, so 16 fps plays at 6 cs = 16.7 fps). */
export function encodeGif(v: Video, fps: number, onFrame?: (done: number) => void): Uint8Array {
  const sample = sheetFrames(v.frames, 8);
  const px = v.width * v.height * 4;
  const pool = new Uint8Array(px * sample.length);
  sample.forEach((f, i) => pool.set(frameRgba(v, f), i * px));
  const palette = quantize(pool, 256);
  const gif = GIFEncoder();
  for (let f = 0; f < v.frames; f++) {
    const index = applyPalette(frameRgba(v, f), palette);
    gif.writeFrame(index, v.width, v.height, { palette, delay: 1000 / fps, repeat: 0 });
    onFrame?.(f + 1);
  }
  gif.finish();
  return gif.bytes();
}
