// A small GIF reader for the tests (what gifenc writes: GIF89a, global and local colour tables, LZW
// image data in sub-blocks, no interlace): each image's colour table and its decoded palette indices.
// Independent of gifenc (a GIF that does not decode, or decodes to other indices, fails the tests).

export interface GifImage {
  width: number;
  height: number;
  /** the colour table in force for this image (local, else global), [r, g, b] per entry */
  palette: number[][];
  /** one palette index per pixel, row-major */
  indices: Uint8Array;
  /** the graphic control extension's delay, in 1/100 s */
  delay: number;
}

/** LZW decode of GIF image data (variable code size from minCodeSize + 1 up to 12 bits, LSB first). */
function lzw(minCodeSize: number, data: Uint8Array, pixels: number): Uint8Array {
  const clear = 1 << minCodeSize,
    eoi = clear + 1;
  const out = new Uint8Array(pixels);
  let n = 0;
  let dict: number[][] = [];
  let size = minCodeSize + 1;
  const reset = () => {
    dict = Array.from({ length: clear }, (_, i) => [i]);
    dict.push([], []); // clear, end of information
    size = minCodeSize + 1;
  };
  reset();
  let prev: number[] | null = null;
  let bit = 0;
  const read = () => {
    let v = 0;
    for (let i = 0; i < size; i++, bit++) {
      const byte = data[bit >> 3];
      if (byte === undefined) throw new Error('GIF: image data ends before the end-of-information code');
      v |= ((byte >> (bit & 7)) & 1) << i;
    }
    return v;
  };
  for (;;) {
    const code = read();
    if (code === clear) {
      reset();
      prev = null;
      continue;
    }
    if (code === eoi) break;
    let entry: number[];
    if (code < dict.length) entry = dict[code]!;
    else if (code === dict.length && prev) entry = [...prev, prev[0]!];
    else throw new Error(`GIF: LZW code ${code} is outside the table (${dict.length} entries)`);
    for (const v of entry) {
      if (n >= pixels) throw new Error(`GIF: more than ${pixels} pixels in an image`);
      out[n++] = v;
    }
    if (prev && dict.length < 4096) dict.push([...prev, entry[0]!]);
    prev = entry;
    if (dict.length === 1 << size && size < 12) size++;
  }
  if (n !== pixels) throw new Error(`GIF: an image has ${n} pixels, expected ${pixels}`);
  return out;
}

/** Every image of a GIF file, with the logical screen size. */
export function decodeGif(b: Uint8Array): { width: number; height: number; images: GifImage[] } {
  const sig = String.fromCharCode(...b.subarray(0, 6));
  if (sig !== 'GIF89a' && sig !== 'GIF87a') throw new Error(`GIF: bad signature '${sig}'`);
  const width = b[6]! | (b[7]! << 8),
    height = b[8]! | (b[9]! << 8);
  const table = (at: number, flags: number) => Array.from({ length: 2 ** ((flags & 7) + 1) }, (_, i) => [b[at + 3 * i]!, b[at + 3 * i + 1]!, b[at + 3 * i + 2]!]);
  let o = 13;
  let global: number[][] | null = null;
  if (b[10]! & 0x80) {
    global = table(o, b[10]!);
    o += 3 * global.length;
  }
  const blocks = () => {
    const parts: number[] = [];
    while (b[o]) {
      parts.push(...b.subarray(o + 1, o + 1 + b[o]!));
      o += b[o]! + 1;
    }
    o++;
    return new Uint8Array(parts);
  };
  const images: GifImage[] = [];
  let delay = 0;
  for (;;) {
    const k = b[o++];
    if (k === 0x3b) break;
    if (k === 0x21) {
      const label = b[o++];
      if (label === 0xf9) delay = b[o + 2]! | (b[o + 3]! << 8);
      blocks();
    } else if (k === 0x2c) {
      const w = b[o + 4]! | (b[o + 5]! << 8),
        h = b[o + 6]! | (b[o + 7]! << 8),
        flags = b[o + 8]!;
      if (flags & 0x40) throw new Error('GIF: interlaced images are not read here');
      o += 9;
      let palette = global;
      if (flags & 0x80) {
        palette = table(o, flags);
        o += 3 * palette.length;
      }
      if (!palette) throw new Error('GIF: an image without a colour table');
      const min = b[o++]!;
      images.push({ width: w, height: h, palette, indices: lzw(min, blocks(), w * h), delay });
    } else throw new Error(`GIF: unexpected block 0x${k?.toString(16)} at ${o - 1}`);
  }
  return { width, height, images };
}
