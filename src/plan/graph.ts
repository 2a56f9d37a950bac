// The decoder as linear step lists ("programs") for ONE latent chunk, frame by frame at every level
// (design §2): the 2 or 4 frames of a chunk are pushed one at a time through the higher levels, depth
// first, so each level holds one frame. Steps are labelled with their vae.py module paths.
// Chunk kinds: 'first' (chunk 0: time_conv skipped = vae.py 'Rep', 1 frame out), 'steady' (every later
// chunk) and 'nocache' (the official feat_cache=None loop: like 'first' with no causal history).
// Values are SSA tensors (VTensor) that the planner assigns to physical slots by liveness. Causal history
// lives in rings of 2 frames, one per cached conv (and per tile), named by `ring` keys.
//
// Spatial tiling (tiling.ts): 'frame-major' puts the latent-rate part and every tile in one program per
// chunk (each tile keeps its own rings, frames stream per chunk); 'tile-major' splits it into a 'latent'
// program that stores the latent-rate output of every chunk, and one program per tile that crops from
// that store, so only one tile's rings exist at a time (frames complete with the last tile).
import type { ConvForm, WinoPlan } from './conv-form';
import type { DecoderConfig, DupUpCfg, ResBlockCfg, UpBlockCfg } from '../model/config';
import type { Tile } from './tiling';
import { tileWindows, type LevelWindow } from './tile-windows';

export type ChunkKind = 'first' | 'steady' | 'nocache';

/**
 * Where RMS_norm (+ SiLU) results live (design §5): 'full' a separate tensor (as PyTorch); 'chunked' the
 * norm overwrites its input, `chunk` pixels per dispatch, where the input is not needed afterwards (the
 * planner aliases them; else a separate tensor as 'full'); 'fused' only a per-pixel inverse RMS is written
 * (one extra row of the input tensor) and the next conv applies x·inv·gamma (+ SiLU) while loading.
 */
/** --norm-chunk default (the option's default, src/options/schema.ts) */
export { DEFAULT_NORM_CHUNK } from '../options/schema';

export interface NormMode {
  mode: 'full' | 'chunked' | 'fused';
  /** pixels per dispatch in 'chunked' mode */
  chunk: number;
}

/** A value of a program: `elems` Elem values. `io` tensors are host-written, not slot-assigned. */
export interface VTensor {
  id: number;
  name: string;
  elems: number;
  io?: 'latent';
}

/** A tensor plus an element offset (frame s of a 2-frame time_conv output). */
export interface View {
  t: VTensor;
  off: number;
}

export interface ConvStep {
  kind: 'conv';
  label: string;
  /** weight key prefix: `${wkey}.weight`, `${wkey}.bias` */
  wkey: string;
  cin: number;
  cout: number;
  kt: 1 | 3;
  ks: 1 | 3;
  up: 0 | 1;
  /** output spatial size */
  h: number;
  w: number;
  x: View;
  y: View;
  res?: View;
  /** ring holding frames t-2, t-1 of this conv's input (undefined: zero history); the conv pushes x into it */
  ring?: string;
  /** elements of one ring frame (= of x, with its inverse-RMS row when `norm` is set) */
  ringFrame: number;
  /**
   * --norm fused: RMS_norm (gamma `gkey`) + optional SiLU applied to x while loading; x carries inv in row cin,
   * or (`inPack`, tensor cores: conv-form.ts assignStatsInPack) the conv's pack computes it (no statistics step)
   */
  norm?: { gkey: string; silu: boolean; inPack?: boolean };
  /** set by the planner (conv-form.ts assignConvForms): the kernel family of this conv */
  form?: ConvForm;
  /** set by the planner with form 'winograd' (--conv): the non-fused Winograd conv's tile side and band (kernels/winograd.ts) */
  wino?: WinoPlan;
  /** set by the planner with form 'mma' (conv-form.ts upPhases): the upsample Conv2d as its four output phases' 2x2 convs */
  phases?: boolean;
}

/**
 * RMS_norm (+ SiLU) of x into y, `chunk` pixels per dispatch. `stats`: only the inverse RMS is written, into
 * row c of x itself (y = x; --norm fused). `inplace`: the planner may give y the slot of x when x dies here.
 */
export interface NormStep {
  kind: 'norm';
  label: string;
  gkey: string;
  c: number;
  hw: number;
  silu: boolean;
  x: View;
  y: View;
  stats: boolean;
  chunk: number;
  inplace: boolean;
}
export interface AttnStep {
  kind: 'attn';
  label: string;
  c: number;
  n: number;
  qkv: View;
  o: View;
  /**
   * tensor cores with a measured shape that splits the keys (plan/attention-form.ts): the ranges, the partial
   * outputs [ranges][C][N] and their softmax statistics [ranges][2][N] f32 (kernels/attention-combine.ts)
   */
  split?: { ranges: number; part: View; ml: View };
  /** tensor cores with a measured shape that reads qkv in tile order (plan/attention-form.ts): the copy, [3C][N] elements */
  packed?: View;
}
export interface DupAddStep {
  kind: 'dupadd';
  label: string;
  d: DupUpCfg;
  a: number;
  h: number;
  w: number;
  x: View;
  y: View;
}
/** Copy x into the latent store at (chunk, which) (tile-major). */
export interface StoreStep {
  kind: 'store';
  label: string;
  x: View;
  elems: number;
  which: number;
}
/** A window of a [c, srcH, srcW] frame, from a live tensor or from the store at (chunk, which). */
export interface CropStep {
  kind: 'crop';
  label: string;
  c: number;
  srcH: number;
  srcW: number;
  y0: number;
  x0: number;
  h: number;
  w: number;
  x: View | { store: number };
  y: View;
}

/** Output region: the window [cy, cy+oh) x [cx, cx+ow) of the tile's output, placed at (dy, dx) in the frame. */
export interface Region {
  cy: number;
  cx: number;
  oh: number;
  ow: number;
  dy: number;
  dx: number;
  /** blend ramps (output pixels) on the interior sides, 0 = hard edge */
  ramp: { top: number; bottom: number; left: number; right: number };
}

export interface OutputStep {
  kind: 'output';
  label: string;
  h: number;
  w: number;
  x: View;
  /** frame index within the chunk */
  frame: number;
  region: Region;
  /** element offsets of the region in the program's rgb / rgba output buffers */
  rgbOff: number;
  rgbaOff: number;
}

export type Step = ConvStep | NormStep | AttnStep | DupAddStep | StoreStep | CropStep | OutputStep;

export interface Program {
  /** 'full' (untiled or frame-major), 'latent' or 'tile <j>' (tile-major) */
  name: string;
  kind: ChunkKind;
  steps: Step[];
  tensors: VTensor[];
  /** the de-normalised latent frame [z, h, w], written by the host (null for tile programs) */
  latent: VTensor | null;
  /** frames per chunk this program writes to */
  framesOut: number;
  /** rgb floats / rgba words its output steps write */
  outElems: number;
  outRgbaElems: number;
  /** frame-major tiling: index of the first step of each tile (the steps before tileStarts[0] are the latent-rate part) */
  tileStarts?: number[];
}

export interface TilePlan {
  order: 'frame-major' | 'tile-major';
  tiles: Tile[];
  /** blend ramps: overlap in latent pixels (0 exact) */
  overlap: number;
  /** exact tiles: crop each up block's input to the context its level still needs (tile-windows.ts); default true; number[]: margins per level */
  shrink?: boolean | number[];
}

/** Spatial size of each level: level 0 = h x w, each up block's resample doubles. */
function levelSizes(cfg: DecoderConfig, h: number, w: number): { h: number; w: number }[] {
  const sizes = [{ h, w }];
  for (const b of cfg.upBlocks) {
    const last = sizes[sizes.length - 1]!;
    sizes.push(b.resample ? { h: last.h * 2, w: last.w * 2 } : last);
  }
  return sizes;
}

/** A conv input: a tensor, plus the norm the conv applies while loading it (--norm fused). */
interface Normed {
  x: View;
  norm?: { gkey: string; silu: boolean };
}

class Builder {
  readonly sizes: { h: number; w: number }[];
  constructor(
    readonly cfg: DecoderConfig,
    readonly prog: Program,
    h: number,
    w: number,
    /** prefix of ring keys: '' untiled, 't<j>.' per tile (frame-major), 'tile.' (tile-major) */
    readonly ringPrefix: string,
    readonly norm: NormMode,
    /** output region of this tile in latent pixels (relative to the frame) and the tile origin */
    readonly out: { region: Omit<Region, 'oh' | 'ow' | 'cy' | 'cx' | 'dy' | 'dx'> & { y0: number; x0: number; y1: number; x1: number }; originY: number; originX: number },
    /** a tile's window at every level (tile-windows.ts): up block bi's input is cropped from pre to win */
    readonly windows?: LevelWindow[],
  ) {
    this.sizes = windows ? windows.map((l) => ({ h: l.win.y1 - l.win.y0, w: l.win.x1 - l.win.x0 })) : levelSizes(cfg, h, w);
  }

  /** Level L's tensor as the previous level hands it over (before a crop): 2x the previous window where it resamples. */
  preSize(L: number): { h: number; w: number } {
    const p = this.sizes[L - 1]!;
    return this.cfg.upBlocks[L - 1]!.resample ? { h: 2 * p.h, w: 2 * p.w } : p;
  }

  t(name: string, elems: number): VTensor {
    const v = { id: this.prog.tensors.length, name, elems };
    this.prog.tensors.push(v);
    return v;
  }

  conv(label: string, a: Omit<ConvStep, 'kind' | 'label' | 'wkey' | 'ringFrame'> & { wkey?: string }): void {
    const hwIn = a.up ? (a.h / 2) * (a.w / 2) : a.h * a.w;
    this.prog.steps.push({ kind: 'conv', label, wkey: a.wkey ?? label, ringFrame: (a.cin + (a.norm ? 1 : 0)) * hwIn, ...a });
  }

  /** 3x3x3 causal conv with its ring (none in 'nocache'). */
  cconv(label: string, slot: number, cin: number, cout: number, L: number, x: Normed, y: View, res?: View): void {
    const { h, w } = this.sizes[L]!;
    const ring = this.prog.kind === 'nocache' ? undefined : `${this.ringPrefix}s${slot}`;
    this.conv(label, { cin, cout, kt: 3, ks: 3, up: 0, h, w, x: x.x, norm: x.norm, y, res, ring });
  }

  /**
   * RMS_norm `label` (+ SiLU) of x [c, hw] for the conv that reads it: a normalised tensor `name`
   * ('full', 'chunked'), or the inverse RMS written into row c of x and the norm handed to the conv ('fused').
   */
  normFor(label: string, gkey: string, c: number, hw: number, silu: boolean, x: View, name: string): Normed {
    const step = { kind: 'norm', label, gkey, c, hw, silu, x, chunk: hw, stats: false, inplace: false } as const;
    if (this.norm.mode === 'fused') {
      if (x.off) throw new Error(`${label}: a fused norm needs its input at offset 0`);
      x.t.elems = Math.max(x.t.elems, (c + 1) * hw);
      this.prog.steps.push({ ...step, y: x, stats: true });
      return { x, norm: { gkey, silu } };
    }
    const y = { t: this.t(name, c * hw), off: 0 };
    const chunked = this.norm.mode === 'chunked';
    this.prog.steps.push({ ...step, y, inplace: chunked, chunk: chunked ? Math.min(hw, this.norm.chunk) : hw });
    return { x: y };
  }

  /**
   * ResidualBlock; returns a new output tensor. The planner may still give it the residual's slot when
   * the residual dies at the last conv (step-kinds.ts `inPlace`): conv3d HAS_RES=2 then reads the
   * residual through its output binding, since WebGPU forbids binding one buffer as both the read-only
   * residual and the writable output of a dispatch.
   */
  resBlock(rb: ResBlockCfg, L: number, x: View): View {
    const { h, w } = this.sizes[L]!;
    const hw = h * w;
    let sc = x;
    if (rb.shortcut) {
      sc = { t: this.t(`${rb.path}.shortcut:out`, rb.cout * hw), off: 0 };
      this.conv(`${rb.path}.shortcut`, { cin: rb.cin, cout: rb.cout, kt: 1, ks: 1, up: 0, h, w, x, y: sc });
    }
    const n0 = this.normFor(`${rb.path}.residual.0`, `${rb.path}.residual.0.gamma`, rb.cin, hw, true, x, `${rb.path}.residual.1:out`);
    const m = { t: this.t(`${rb.path}.residual.2:out`, rb.cout * hw), off: 0 };
    this.cconv(`${rb.path}.residual.2`, rb.slots[0], rb.cin, rb.cout, L, n0, m);
    const n1 = this.normFor(`${rb.path}.residual.3`, `${rb.path}.residual.3.gamma`, rb.cout, hw, true, m, `${rb.path}.residual.4:out`);
    const out = { t: this.t(`${rb.path}:out`, rb.cout * hw), off: 0 };
    this.cconv(`${rb.path}.residual.6`, rb.slots[1], rb.cout, rb.cout, L, n1, out, sc);
    return out;
  }

  attention(x: View): View {
    const a = this.cfg.middle.attn;
    const { h, w } = this.sizes[0]!;
    const n = h * w;
    const u = this.normFor(`${a.path}.norm`, `${a.path}.norm.gamma`, a.c, n, false, x, `${a.path}.norm:out`);
    const qkv = { t: this.t(`${a.path}.to_qkv:out`, 3 * a.c * n), off: 0 };
    this.conv(`${a.path}.to_qkv`, { cin: a.c, cout: 3 * a.c, kt: 1, ks: 1, up: 0, h, w, x: u.x, norm: u.norm, y: qkv });
    const o = { t: this.t(`${a.path}.attn:out`, a.c * n), off: 0 };
    this.prog.steps.push({ kind: 'attn', label: `${a.path}.attn`, c: a.c, n, qkv, o });
    const y = { t: this.t(`${a.path}:out`, a.c * n), off: 0 };
    this.conv(`${a.path}.proj`, { cin: a.c, cout: a.c, kt: 1, ks: 1, up: 0, h, w, x: o, y, res: x });
    return y;
  }

  /** conv2, conv1 and the middle block on the latent frame; returns the middle block's output. */
  latentHead(latent: VTensor): View {
    const cfg = this.cfg;
    const { h, w } = this.sizes[0]!;
    const hw = h * w;
    const z = { t: this.t('conv2:out', cfg.zDim * hw), off: 0 };
    this.conv('conv2', { cin: cfg.zDim, cout: cfg.zDim, kt: 1, ks: 1, up: 0, h, w, x: { t: latent, off: 0 }, y: z });
    const x = { t: this.t('decoder.conv1:out', cfg.midDim * hw), off: 0 };
    this.cconv('decoder.conv1', 0, cfg.zDim, cfg.midDim, 0, { x: z }, x);
    const m0 = this.resBlock(cfg.middle.res0, 0, x);
    const m1 = this.attention(m0);
    return this.resBlock(cfg.middle.res1, 0, m1);
  }

  /** The ResBlocks of up block `bi` at level bi. */
  resBlocks(bi: number, x: View): View {
    for (const rb of this.cfg.upBlocks[bi]!.resblocks) x = this.resBlock(rb, bi, x);
    return x;
  }

  /** Up block `bi` on one frame x, then recursion into the next level for each produced frame. */
  upBlock(bi: number, x: View): void {
    const blk = this.cfg.upBlocks[bi];
    if (!blk) return this.head(x);
    const lw = this.windows?.[bi];
    if (lw && bi > 0 && (lw.win.y0 !== lw.pre.y0 || lw.win.x0 !== lw.pre.x0 || lw.win.y1 !== lw.pre.y1 || lw.win.x1 !== lw.pre.x1)) {
      // shrinking window: only the context this level still needs (tile-windows.ts); x is [cin, pre]
      const pre = this.preSize(bi),
        { h, w } = this.sizes[bi]!;
      const c = blk.resblocks[0]?.cin ?? blk.resample!.cin;
      const y = { t: this.t(`${this.cfg.upBlocks[bi - 1]!.resample?.path ?? `block ${bi}`}:window`, c * h * w), off: 0 };
      this.prog.steps.push({ kind: 'crop', label: `up block ${bi} window`, c, srcH: pre.h, srcW: pre.w, y0: lw.win.y0 - lw.pre.y0, x0: lw.win.x0 - lw.pre.x0, h, w, x, y });
      x = y;
    }
    const y = this.resBlocks(bi, x);
    if (!blk.resample) return this.upBlock(bi + 1, y);
    this.resample(blk, y, x);
  }

  /** Resample of `blk` (at level blk.index) on x, with the DupUp3D shortcut of the block input (Wan2.2). */
  resample(blk: UpBlockCfg, x: View, blockInput: View): void {
    const rs = blk.resample!;
    const L = blk.index;
    const { h, w } = this.sizes[L]!;
    const hw = h * w;
    let frames: View[] = [x];
    if (rs.mode === 'upsample3d' && this.prog.kind === 'steady') {
      // time_conv: [2C, h, w] = the two interleaved frames back to back (out[k, 2τ+s] = tc[s·C + k])
      const tc = this.t(`${rs.path}.time_conv:out`, 2 * rs.cin * hw);
      this.conv(`${rs.path}.time_conv`, { cin: rs.cin, cout: 2 * rs.cin, kt: 3, ks: 1, up: 0, h, w, x, y: { t: tc, off: 0 }, ring: `${this.ringPrefix}s${rs.slot}` });
      frames = [
        { t: tc, off: 0 },
        { t: tc, off: rs.cin * hw },
      ];
    }
    // the next level as this one hands it over (a shrinking window crops it at the next block's input)
    const next = { h: 2 * h, w: 2 * w };
    frames.forEach((f, s) => {
      const y = { t: this.t(`${rs.path}.resample.1:out`, rs.cout * next.h * next.w), off: 0 };
      this.conv(`${rs.path}.resample.1`, { cin: rs.cin, cout: rs.cout, kt: 1, ks: 3, up: 1, h: next.h, w: next.w, x: f, y });
      if (blk.dupUp) {
        // first chunk: DupUp3D drops its first ft-1 frames, so the one main frame pairs with sub-frame ft-1
        const a = frames.length === 1 ? blk.dupUp.ft - 1 : s;
        const label = `${rs.path.replace(/\.upsamples\.\d+$/, '')}.avg_shortcut`;
        this.prog.steps.push({ kind: 'dupadd', label, d: blk.dupUp, a, h: next.h, w: next.w, x: blockInput, y });
      }
      this.upBlock(blk.index + 1, y);
    });
  }

  head(x: View): void {
    const L = this.sizes.length - 1;
    const { h, w } = this.sizes[L]!;
    const hc = this.cfg.head;
    const n = this.normFor('decoder.head.0', 'decoder.head.0.gamma', hc.cin, h * w, true, x, 'decoder.head.1:out');
    const y = { t: this.t('decoder.head.2:out', hc.cout * h * w), off: 0 };
    this.cconv('decoder.head.2', hc.slot, hc.cin, hc.cout, L, n, y);
    // output region in output pixels: the tile's `out` rect relative to its computed origin
    const s = this.cfg.scale;
    const o = this.out.region;
    const r = o.ramp;
    // the head's window origin in output px (a shrinking window moved it from the tile's ext origin)
    const f = 2 ** this.cfg.upBlocks.filter((b) => b.resample).length;
    const win = this.windows?.[L]?.win;
    const oy = win ? (win.y0 * s) / f : this.out.originY * s,
      ox = win ? (win.x0 * s) / f : this.out.originX * s;
    const region: Region = {
      cy: o.y0 * s - oy,
      cx: o.x0 * s - ox,
      oh: (o.y1 - o.y0) * s,
      ow: (o.x1 - o.x0) * s,
      dy: o.y0 * s,
      dx: o.x0 * s,
      ramp: { top: r.top * s, bottom: r.bottom * s, left: r.left * s, right: r.right * s },
    };
    const px = region.oh * region.ow;
    this.prog.steps.push({ kind: 'output', label: 'output', h, w, x: y, frame: this.frameCounter++, region, rgbOff: this.prog.outElems, rgbaOff: this.prog.outRgbaElems });
    this.prog.outElems += 3 * px;
    this.prog.outRgbaElems += px;
    this.prog.framesOut = Math.max(this.prog.framesOut, this.frameCounter);
  }

  frameCounter = 0;

  /** Crop the window `ext` of a level-0 frame (live tensor or store entry) into a new tile tensor. */
  crop(label: string, c: number, src: View | { store: number }, ext: { y0: number; y1: number; x0: number; x1: number }, H: number, W: number): View {
    const h = ext.y1 - ext.y0,
      w = ext.x1 - ext.x0;
    const y = { t: this.t(`${label}:tile`, c * h * w), off: 0 };
    this.prog.steps.push({ kind: 'crop', label, c, srcH: H, srcW: W, y0: ext.y0, x0: ext.x0, h, w, x: src, y });
    return y;
  }
}

function newProgram(name: string, kind: ChunkKind): Program {
  return { name, kind, steps: [], tensors: [], latent: null, framesOut: 0, outElems: 0, outRgbaElems: 0 };
}

const NO_RAMP = { top: 0, bottom: 0, left: 0, right: 0 };

function wholeFrame(h: number, w: number) {
  return { region: { y0: 0, y1: h, x0: 0, x1: w, ramp: NO_RAMP }, originY: 0, originX: 0 };
}

function tileOut(t: Tile, overlap: number) {
  const o = t.out,
    c = t.core;
  // ramps only where a neighbour overlaps: interior sides (out extends beyond the core)
  const ramp = { top: c.y0 > o.y0 ? 2 * overlap : 0, bottom: o.y1 > c.y1 ? 2 * overlap : 0, left: c.x0 > o.x0 ? 2 * overlap : 0, right: o.x1 > c.x1 ? 2 * overlap : 0 };
  return { region: { ...o, ramp }, originY: t.ext.y0, originX: t.ext.x0 };
}

/** Programs of one chunk kind at latent size h x w, untiled or with the tile plan. */
export function buildPrograms(cfg: DecoderConfig, kind: ChunkKind, h: number, w: number, tiling?: TilePlan, norm: NormMode = { mode: 'full', chunk: Infinity }): Program[] {
  const b0 = cfg.upBlocks[0]!;
  if (!tiling) {
    const prog = newProgram('full', kind);
    const b = new Builder(cfg, prog, h, w, '', norm, wholeFrame(h, w));
    prog.latent = { ...b.t('latent', cfg.zDim * h * w), io: 'latent' };
    prog.tensors[prog.latent.id] = prog.latent;
    b.upBlock(0, b.latentHead(prog.latent));
    return [prog];
  }
  const c0 = b0.resblocks.at(-1)?.cout ?? cfg.midDim;
  // the latent-rate part: through up block 0's ResBlocks, on the whole frame
  const main = newProgram(tiling.order === 'frame-major' ? 'full' : 'latent', kind);
  const lb = new Builder(cfg, main, h, w, '', norm, wholeFrame(h, w));
  main.latent = { ...lb.t('latent', cfg.zDim * h * w), io: 'latent' };
  main.tensors[main.latent.id] = main.latent;
  const blockIn = lb.latentHead(main.latent);
  const stream = lb.resBlocks(0, blockIn);
  if (!b0.resample) throw new Error('spatial tiling needs an upsampling first up block');
  const tileProg = (t: Tile, prog: Program, src: View | { store: number }, srcIn: View | { store: number }, prefix: string) => {
    const e = t.ext;
    const tb = new Builder(cfg, prog, e.y1 - e.y0, e.x1 - e.x0, prefix, norm, tileOut(t, tiling.overlap), tileWindows(cfg, t, h, w, tiling.shrink ?? tiling.overlap === 0));
    const x = tb.crop(`tile ${t.index} crop`, c0, src, e, h, w);
    const xin = b0.dupUp ? tb.crop(`tile ${t.index} crop block input`, cfg.midDim, srcIn, e, h, w) : x;
    tb.resample(b0, x, xin);
  };
  if (tiling.order === 'frame-major') {
    main.tileStarts = [];
    for (const t of tiling.tiles) {
      main.tileStarts.push(main.steps.length);
      tileProg(t, main, stream, blockIn, `t${t.index}.`);
    }
    return [main];
  }
  main.steps.push({ kind: 'store', label: 'store up block 0', x: stream, elems: c0 * h * w, which: 0 });
  if (b0.dupUp) main.steps.push({ kind: 'store', label: 'store up block 0 input', x: blockIn, elems: cfg.midDim * h * w, which: 1 });
  const progs = [main];
  for (const t of tiling.tiles) {
    const p = newProgram(`tile ${t.index}`, kind);
    tileProg(t, p, { store: 0 }, { store: 1 }, 'tile.');
    progs.push(p);
  }
  return progs;
}
