// Animated GIF of a decoded video (gifenc): one 256-colour palette for the whole video, taken from up to
// 8 evenly spaced frames (a palette per frame makes colours flicker between frames), looping forever.
// encodeGif: from a whole video in memory. openGifSpill: the same bytes from frames streamed in any order
// without holding the video: each frame's RGBA goes to a spill file beside the output as it arrives (only
// the <= 8 palette frames stay in memory); at the end the palette is made, the frames are read back one at
// a time, encoded and appended to the GIF file.
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { applyPalette, GIFEncoder, quantize, type Encoder, type Palette } from 'gifenc';
import { frameRgba, sheetFrames, type Video } from './frames';

/** Frames per second as gifenc's delay (GIF delays are in 1/100 s, so 16 fps plays at 6 cs = 16.7 fps). */
function frameOpts(palette: Palette, fps: number, first: boolean) {
  return { palette, delay: 1000 / fps, repeat: 0, first };
}

/** The palette of a video from its palette frames' RGBA, concatenated in index order. */
function paletteOf(pool: Uint8Array): Palette {
  return quantize(pool, 256);
}

/** Encode `v` at `fps` frames per second. */
export function encodeGif(v: Video, fps: number, onFrame?: (done: number) => void): Uint8Array {
  const sample = sheetFrames(v.frames, 8);
  const px = v.width * v.height * 4;
  const pool = new Uint8Array(px * sample.length);
  sample.forEach((f, i) => pool.set(frameRgba(v, f), i * px));
  const palette = paletteOf(pool);
  const gif = GIFEncoder({ auto: false });
  gif.writeHeader();
  for (let f = 0; f < v.frames; f++) {
    gif.writeFrame(applyPalette(frameRgba(v, f), palette), v.width, v.height, frameOpts(palette, fps, f === 0));
    onFrame?.(f + 1);
  }
  gif.finish();
  return gif.bytes();
}

/** A GIF written from frames as they arrive (any order, each once); see the file comment. */
export interface GifSpill {
  /** frame `index` as RGBA8 (H·W·4 bytes): to the spill file, and kept when it is a palette frame */
  frame(index: number, rgba: Uint8Array): void;
  /** all frames given: write the GIF to `fd` (opened by the caller), frame by frame; removes the spill file */
  encode(fd: number, onFrame?: (done: number) => void): void;
  /** remove the spill file (a failed or cancelled decode) */
  abort(): void;
}

/** Open the spill file `spill` (created, truncated) for a video of `frames` frames of `width`x`height`. */
export function openGifSpill(spill: string, size: { frames: number; height: number; width: number }, fps: number): GifSpill {
  const { frames, height: H, width: W } = size;
  const px = W * H * 4;
  const sample = sheetFrames(frames, 8);
  const slot = new Map(sample.map((f, k) => [f, k]));
  const pool = new Uint8Array(px * sample.length);
  let fd: number | undefined = openSync(spill, 'w+');
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    rmSync(spill, { force: true });
  };
  return {
    frame(index, rgba) {
      const k = slot.get(index);
      if (k !== undefined) pool.set(rgba, k * px);
      for (let o = 0; o < px;) o += writeSync(fd!, rgba, o, px - o, index * px + o);
    },
    encode(out, onFrame) {
      try {
        const palette = paletteOf(pool);
        const gif = GIFEncoder({ auto: false });
        const flush = (e: Encoder) => {
          const b = e.bytesView();
          for (let o = 0; o < b.length;) o += writeSync(out, b, o, b.length - o);
          e.stream.reset(); // the GIF never lies whole in memory: each frame's bytes go to the file
        };
        gif.writeHeader();
        const rgba = new Uint8Array(px);
        for (let f = 0; f < frames; f++) {
          for (let o = 0; o < px;) {
            const r = readSync(fd!, rgba, o, px - o, f * px + o);
            if (r === 0) throw new Error(`the spill file ${spill} ends inside frame ${f}`);
            o += r;
          }
          gif.writeFrame(applyPalette(rgba, palette), W, H, frameOpts(palette, fps, f === 0));
          flush(gif);
          onFrame?.(f + 1);
        }
        gif.finish();
        flush(gif);
      } finally {
        close();
      }
    },
    abort: close,
  };
}
