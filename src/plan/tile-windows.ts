// Shrinking tile windows (exact tiles): a tile computes its core plus a halo at up block 0's Resample
// (7 latent px: tiling.ts), but deeper levels need less context than that halo carries. At the input of
// up block bi (level bi, scale f = 2^bi latent px) the core stays exact with a margin of M[bi] level px:
//   M[head] = 1 (decoder.head.2 is 3x3), then going up: M[bi] = 2·(ResBlocks of block bi) + (block bi
//   resamples ? ceil((M[bi+1] + 1) / 2) : M[bi+1])  (resample.1: a 3x3 conv at the next level on the
//   nearest-2x upsampled input, which reads row y>>1; the core is aligned to latent px, so even)
// Wan2.1 / Wan2.2: M = [13, 12, 10, 7, 1]; the resample of block 0 needs ceil(13/2) = 7 latent px = the
// halo. So each tile program crops the input of up blocks 1.. to core·f ± M[bi] (clipped to the frame):
// at 8x the window of a 4x4-latent-px core is 48x48 px instead of (4+14)·8 = 144x144. Values inside the
// window are the untiled decode's (what is cut away is the band the tile-edge zero padding corrupted,
// plus unneeded context), so the output stays bit-identical; compute and the tile's cache rings shrink.
// Shapes: rects in level px [y0, y1) x [x0, x1); `pre` is the level-bi tensor before the crop (the
// previous level's window, upsampled 2x where block bi-1 resamples), `win` after it.
import type { DecoderConfig } from '../model/config';
import type { Rect, Tile } from './tiling';

/** Margin (level px) at the input of every up block, and [n] at the head's input. */
export function levelMargins(cfg: DecoderConfig): number[] {
  const n = cfg.upBlocks.length;
  const m = new Array<number>(n + 1);
  m[n] = 1;
  for (let bi = n - 1; bi >= 0; bi--) {
    const b = cfg.upBlocks[bi]!;
    m[bi] = 2 * b.resblocks.length + (b.resample ? Math.ceil((m[bi + 1]! + 1) / 2) : m[bi + 1]!);
  }
  return m;
}

/** Scale of each level (blocks 0..n-1, then the head) relative to the latent frame. */
export function levelScales(cfg: DecoderConfig): number[] {
  const f = [1];
  for (const b of cfg.upBlocks) f.push(f.at(-1)! * (b.resample ? 2 : 1));
  return f;
}

export interface LevelWindow {
  /** the level's tensor before the crop at this block's input (level px, frame coordinates) */
  pre: Rect;
  /** after it (= pre where nothing is cut) */
  win: Rect;
}

const scaled = (r: Rect, f: number): Rect => ({ y0: r.y0 * f, y1: r.y1 * f, x0: r.x0 * f, x1: r.x1 * f });
const inside = (a: Rect, b: Rect) => a.y0 >= b.y0 && a.y1 <= b.y1 && a.x0 >= b.x0 && a.x1 <= b.x1;
export const area = (r: Rect) => (r.y1 - r.y0) * (r.x1 - r.x0);

/**
 * Windows of `tile` (latent h x w frame) at every level 0..n (n = the head's level). Level 0 is the tile's
 * ext. `shrink` false, or a halo too small for the margins (blend tiles, tests of a short halo): every
 * level keeps ext·f (the plain tile).
 */
export function tileWindows(cfg: DecoderConfig, tile: Tile, h: number, w: number, shrink: boolean | number[]): LevelWindow[] {
  // number[]: margins given per level (tests: one margin short of levelMargins must change the output)
  const f = levelScales(cfg),
    m = Array.isArray(shrink) ? shrink : levelMargins(cfg);
  const out: LevelWindow[] = [{ pre: tile.ext, win: tile.ext }];
  for (let L = 1; L < f.length; L++) {
    const prev = out[L - 1]!.win;
    const pre = cfg.upBlocks[L - 1]!.resample ? scaled(prev, 2) : prev;
    const c = scaled(tile.core, f[L]!),
      H = h * f[L]!,
      W = w * f[L]!;
    // even bounds (frames at levels >= 1 are even): h·w stays even, so an f16 ring frame of (c+1)·h·w
    // elements (fused norm: the inverse-RMS row) is a whole number of 4-byte words, as buffer copies need
    // (H200, 7b0cf0f: an odd 8x corner window failed CopyBufferToBuffer validation)
    const lo = (v: number) => Math.max(0, 2 * Math.floor(v / 2)),
      hi = (v: number, n: number) => Math.min(n, 2 * Math.ceil(v / 2));
    const want = { y0: lo(c.y0 - m[L]!), y1: hi(c.y1 + m[L]!, H), x0: lo(c.x0 - m[L]!), x1: hi(c.x1 + m[L]!, W) };
    // the head keeps its block's window (a crop there copies more than the 3x3 head saves)
    out.push({ pre, win: shrink && L < cfg.upBlocks.length && inside(want, pre) ? want : pre });
  }
  // a halo shorter than the margins (blend, or a test's 5 px): the crops would need values the tile
  // never computed exactly; keep the plain tile
  const need0 = Array.isArray(shrink) ? 0 : Math.ceil((m[1]! + 1) / 2);
  const e = tile.ext,
    c = tile.core;
  if (shrink && (c.y0 - e.y0 < Math.min(need0, c.y0) || e.y1 - c.y1 < Math.min(need0, h - c.y1) || c.x0 - e.x0 < Math.min(need0, c.x0) || e.x1 - c.x1 < Math.min(need0, w - c.x1)))
    return tileWindows(cfg, tile, h, w, false);
  return out;
}

/**
 * Computed area of the tiled part over the frame's, weighted by each level's conv work per pixel (3x3x3
 * and 1x1 convs of the ResBlocks, time_conv at the window, resample.1 on the upsampled pre-crop tensor,
 * the head; frames doubled after a time upsampling): the tiled part's extra compute (1 = none).
 */
export function tiledOverhead(cfg: DecoderConfig, tiles: Tile[], h: number, w: number, shrink: boolean | number[]): number {
  const f = levelScales(cfg);
  const n = cfg.upBlocks.length;
  // work per pixel at each level, on the window (win) and on the pre-crop tensor (pre), with frame count
  const onWin = new Array<number>(n + 1).fill(0),
    onPre = new Array<number>(n + 1).fill(0);
  let frames = 1;
  cfg.upBlocks.forEach((b, L) => {
    // block 0's ResBlocks run in the latent-rate part (untiled)
    if (L > 0) for (const rb of b.resblocks) onWin[L]! += frames * (27 * rb.cin * rb.cout + 27 * rb.cout * rb.cout + (rb.shortcut ? rb.cin * rb.cout : 0));
    const rs = b.resample;
    if (!rs) return;
    if (rs.mode === 'upsample3d') {
      onWin[L]! += frames * 3 * rs.cin * 2 * rs.cin;
      frames *= 2;
    }
    onPre[L + 1]! += frames * 9 * rs.cin * rs.cout;
  });
  onWin[n]! += frames * 27 * cfg.head.cin * cfg.head.cout;
  let tiled = 0,
    whole = 0;
  for (let L = 0; L <= n; L++) whole += (onWin[L]! + onPre[L]!) * h * w * f[L]! * f[L]!;
  for (const t of tiles) for (const [L, lw] of tileWindows(cfg, t, h, w, shrink).entries()) tiled += onWin[L]! * area(lw.win) + onPre[L]! * area(lw.pre);
  return tiled / whole;
}
