// Spatial tiles (design §6). The latent-rate part (conv1, middle block with attention, up block 0's
// ResBlocks) runs on the whole latent frame; everything from up block 0's Resample on runs per tile on
// the tile's core plus a halo of latent pixels, clipped at the frame edge, and keeps the core.
//
// Halo for an exact core (worked out from the layer list, and checked by test/golden/tiling.test.ts:
// 7 pixels give the untiled frames exactly, 5 do not): from up block 0's Resample on, the spatial 3x3
// convs are 7 at 2x (resample.1 of block 0 + 6 in the ResBlocks of block 1), 7 at 4x and 8 at 8x
// (resample of block 2, 6 ResBlock convs, head):
// 7/2 + 7/4 + 8/8 = 6.25 latent pixels of context per side; nearest 2x upsampling maps output row y to
// input row y>>1, so a latent-aligned core needs ceil(6.25) = 7. time_conv, norms, DupUp3D and
// unpatchify are pointwise in space. Zero padding at a tile's clipped edge is the frame's own padding.
import { DecoderError } from '../gpu/errors';

export interface Rect {
  y0: number;
  y1: number;
  x0: number;
  x1: number;
}

export interface Tile {
  index: number;
  /** kept region, latent pixels */
  core: Rect;
  /** computed region = core + halo, clipped to the frame, latent pixels */
  ext: Rect;
  /** written region, latent pixels: the core (exact) or core + overlap (blend) */
  out: Rect;
}

const EXACT_HALO = 7;

export interface TilingOptions {
  /** tile core size in latent pixels */
  th: number;
  tw: number;
  mode: 'exact' | 'blend';
  /** halo in latent pixels (default: 7 exact; 2 blend) */
  halo?: number;
  /** blend: overlap written by each tile beyond its core, latent pixels (default = halo) */
  overlap?: number;
}

function split(n: number, size: number): [number, number][] {
  const k = Math.ceil(n / size);
  // equal-ish bands: sizes differ by at most 1
  return Array.from({ length: k }, (_, i) => [Math.floor((i * n) / k), Math.floor(((i + 1) * n) / k)]);
}

/** The tile grid of an h x w latent frame. */
export function makeTiles(h: number, w: number, o: TilingOptions): Tile[] {
  if (!(o.th >= 1 && o.tw >= 1)) throw new DecoderError('bad-input', `tile core must be at least 1x1 latent pixels, got ${o.th}x${o.tw}`);
  const halo = o.halo ?? (o.mode === 'exact' ? EXACT_HALO : 2);
  const overlap = o.mode === 'blend' ? Math.min(o.overlap ?? halo, halo) : 0;
  const tiles: Tile[] = [];
  for (const [y0, y1] of split(h, o.th))
    for (const [x0, x1] of split(w, o.tw)) {
      const clip = (r: Rect, d: number): Rect => ({ y0: Math.max(0, r.y0 - d), y1: Math.min(h, r.y1 + d), x0: Math.max(0, r.x0 - d), x1: Math.min(w, r.x1 + d) });
      const core = { y0, y1, x0, x1 };
      tiles.push({ index: tiles.length, core, ext: clip(core, halo), out: clip(core, overlap) });
    }
  return tiles;
}

/** Area of all computed tiles / frame area: the extra compute of the tiled part. */
export function tileOverhead(tiles: Tile[], h: number, w: number): number {
  return tiles.reduce((a, t) => a + (t.ext.y1 - t.ext.y0) * (t.ext.x1 - t.ext.x0), 0) / (h * w);
}
