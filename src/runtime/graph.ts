// The decoder as a linear list of GPU steps for ONE latent chunk, frame by frame at every level
// (design §2): the 2 or 4 frames of a chunk are pushed one at a time through the higher levels,
// depth first, so each level holds one frame. Each step is labelled with its vae.py module path.
// Three chunk kinds: 'first' (chunk 0: time_conv skipped = vae.py 'Rep', 1 frame out), 'steady'
// (every later chunk: 2^k frames out) and 'nocache' (the official feat_cache=None loop: like 'first'
// with no causal history at all). Values are SSA tensors (VTensor); the planner assigns them to
// physical slots by liveness. Causal history lives in per-conv rings (2 frames), indexed by `ring`.
import type { DecoderConfig, DupUpCfg, ResBlockCfg, UpBlockCfg } from '../model/config';

export type ChunkKind = 'first' | 'steady' | 'nocache';

/** A value of the chunk program: `elems` Elem values. */
export interface VTensor {
  id: number;
  name: string;
  elems: number;
  /** 'io' tensors are written/read by the host (latent frame in, not slot-assigned) */
  io?: boolean;
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
  /** cache ring holding frames t-2, t-1 of this conv's input (KT=3 with cache); undefined = zero history */
  ring?: number;
  /** copy x into the ring after the conv (the cache stores the conv input) */
  push: boolean;
}

export interface NormStep { kind: 'norm'; label: string; gkey: string; c: number; hw: number; silu: boolean; x: View; y: View }
export interface AttnStep { kind: 'attn'; label: string; c: number; n: number; qkv: View; o: View }
export interface DupAddStep { kind: 'dupadd'; label: string; d: DupUpCfg; a: number; h: number; w: number; x: View; y: View }
export interface OutputStep { kind: 'output'; label: string; h: number; w: number; x: View; frame: number }
export type Step = ConvStep | NormStep | AttnStep | DupAddStep | OutputStep;

export interface Ring {
  slot: number;
  /** module path of the conv whose input it stores */
  label: string;
  /** elements of one frame */
  frameElems: number;
}

export interface ChunkGraph {
  kind: ChunkKind;
  steps: Step[];
  tensors: VTensor[];
  /** the de-normalised latent frame [z, h, w], written by the host before the chunk */
  latent: VTensor;
  framesOut: number;
}

/** Spatial size of each level: level 0 = latent h x w, each up block's resample doubles. */
export function levelSizes(cfg: DecoderConfig, h: number, w: number): { h: number; w: number }[] {
  const sizes = [{ h, w }];
  for (const b of cfg.upBlocks) {
    const last = sizes[sizes.length - 1]!;
    sizes.push(b.resample ? { h: last.h * 2, w: last.w * 2 } : last);
  }
  return sizes;
}

/** The cache rings of a decoder at latent size h x w, one per cached conv, by slot. */
export function rings(cfg: DecoderConfig, h: number, w: number): Ring[] {
  const sz = levelSizes(cfg, h, w);
  const out: Ring[] = [];
  const hw0 = sz[0]!.h * sz[0]!.w;
  out.push({ slot: 0, label: 'decoder.conv1', frameElems: cfg.zDim * hw0 });
  for (const rb of [cfg.middle.res0, cfg.middle.res1]) pushRb(out, rb, hw0);
  cfg.upBlocks.forEach((b, i) => {
    const hw = sz[i]!.h * sz[i]!.w;
    for (const rb of b.resblocks) pushRb(out, rb, hw);
    if (b.resample?.mode === 'upsample3d') out.push({ slot: b.resample.slot, label: `${b.resample.path}.time_conv`, frameElems: b.resample.cin * hw });
  });
  const last = sz[sz.length - 1]!;
  out.push({ slot: cfg.head.slot, label: 'decoder.head.2', frameElems: cfg.head.cin * last.h * last.w });
  return out;
}

function pushRb(out: Ring[], rb: ResBlockCfg, hw: number) {
  out.push({ slot: rb.slots[0], label: `${rb.path}.residual.2`, frameElems: rb.cin * hw });
  out.push({ slot: rb.slots[1], label: `${rb.path}.residual.6`, frameElems: rb.cout * hw });
}

class Builder {
  steps: Step[] = [];
  tensors: VTensor[] = [];
  framesOut = 0;
  constructor(
    readonly cfg: DecoderConfig,
    readonly kind: ChunkKind,
    readonly sizes: { h: number; w: number }[],
  ) {}

  t(name: string, elems: number): VTensor {
    const v = { id: this.tensors.length, name, elems };
    this.tensors.push(v);
    return v;
  }

  cached(): boolean {
    return this.kind !== 'nocache';
  }

  conv(label: string, a: Omit<ConvStep, 'kind' | 'label' | 'wkey' | 'push'> & { wkey?: string }): void {
    this.steps.push({ kind: 'conv', label, wkey: a.wkey ?? label, push: a.ring !== undefined, ...a });
  }

  /** 3x3x3 causal conv with its cache ring (none in 'nocache'). */
  cconv(label: string, slot: number, cin: number, cout: number, L: number, x: View, y: View, res?: View): void {
    const { h, w } = this.sizes[L]!;
    this.conv(label, { cin, cout, kt: 3, ks: 3, up: 0, h, w, x, y, res, ring: this.cached() ? slot : undefined });
  }

  /**
   * ResidualBlock; returns a new output view. Never in place: WebGPU forbids binding one buffer as both
   * the read-only residual and the writable output of a dispatch.
   */
  resBlock(rb: ResBlockCfg, L: number, x: View): View {
    const { h, w } = this.sizes[L]!;
    const hw = h * w;
    let sc = x;
    if (rb.shortcut) {
      sc = { t: this.t(`${rb.path}.shortcut:out`, rb.cout * hw), off: 0 };
      this.conv(`${rb.path}.shortcut`, { cin: rb.cin, cout: rb.cout, kt: 1, ks: 1, up: 0, h, w, x, y: sc });
    }
    const out = { t: this.t(`${rb.path}:out`, rb.cout * hw), off: 0 };
    const n0 = { t: this.t(`${rb.path}.residual.1:out`, rb.cin * hw), off: 0 };
    this.steps.push({ kind: 'norm', label: `${rb.path}.residual.0`, gkey: `${rb.path}.residual.0.gamma`, c: rb.cin, hw, silu: true, x, y: n0 });
    const m = { t: this.t(`${rb.path}.residual.2:out`, rb.cout * hw), off: 0 };
    this.cconv(`${rb.path}.residual.2`, rb.slots[0], rb.cin, rb.cout, L, n0, m);
    const n1 = { t: this.t(`${rb.path}.residual.4:out`, rb.cout * hw), off: 0 };
    this.steps.push({ kind: 'norm', label: `${rb.path}.residual.3`, gkey: `${rb.path}.residual.3.gamma`, c: rb.cout, hw, silu: true, x: m, y: n1 });
    this.cconv(`${rb.path}.residual.6`, rb.slots[1], rb.cout, rb.cout, L, n1, out, sc);
    return out;
  }

  attention(x: View): View {
    const a = this.cfg.middle.attn;
    const { h, w } = this.sizes[0]!;
    const n = h * w;
    const u = { t: this.t(`${a.path}.norm:out`, a.c * n), off: 0 };
    this.steps.push({ kind: 'norm', label: `${a.path}.norm`, gkey: `${a.path}.norm.gamma`, c: a.c, hw: n, silu: false, x, y: u });
    const qkv = { t: this.t(`${a.path}.to_qkv:out`, 3 * a.c * n), off: 0 };
    this.conv(`${a.path}.to_qkv`, { cin: a.c, cout: 3 * a.c, kt: 1, ks: 1, up: 0, h, w, x: u, y: qkv });
    const o = { t: this.t(`${a.path}.attn:out`, a.c * n), off: 0 };
    this.steps.push({ kind: 'attn', label: `${a.path}.attn`, c: a.c, n, qkv, o });
    const y = { t: this.t(`${a.path}:out`, a.c * n), off: 0 };
    this.conv(`${a.path}.proj`, { cin: a.c, cout: a.c, kt: 1, ks: 1, up: 0, h, w, x: o, y, res: x });
    return y;
  }

  /** Up block `bi` at level bi on one frame x, then recursion into level bi+1 for each produced frame. */
  upBlock(bi: number, x: View): void {
    const blk = this.cfg.upBlocks[bi];
    if (!blk) return this.head(x);
    const L = bi;
    const input = x;
    for (const rb of blk.resblocks) x = this.resBlock(rb, L, x);
    if (!blk.resample) return this.upBlock(bi + 1, x);
    this.resample(blk, L, x, input);
  }

  resample(blk: UpBlockCfg, L: number, x: View, blockInput: View): void {
    const rs = blk.resample!;
    const { h, w } = this.sizes[L]!;
    const hw = h * w;
    let frames: View[] = [x];
    if (rs.mode === 'upsample3d' && this.kind === 'steady') {
      // time_conv: [2C, h, w] = the two interleaved frames back to back (out[k, 2τ+s] = tc[s·C + k])
      const tc = this.t(`${rs.path}.time_conv:out`, 2 * rs.cin * hw);
      this.conv(`${rs.path}.time_conv`, { cin: rs.cin, cout: 2 * rs.cin, kt: 3, ks: 1, up: 0, h, w, x, y: { t: tc, off: 0 }, ring: rs.slot });
      frames = [{ t: tc, off: 0 }, { t: tc, off: rs.cin * hw }];
    }
    const next = this.sizes[L + 1]!;
    frames.forEach((f, s) => {
      const y = { t: this.t(`${rs.path}.resample.1:out`, rs.cout * next.h * next.w), off: 0 };
      this.conv(`${rs.path}.resample.1`, { cin: rs.cin, cout: rs.cout, kt: 1, ks: 3, up: 1, h: next.h, w: next.w, x: f, y });
      if (blk.dupUp) {
        // first chunk: DupUp3D drops its first ft-1 frames, so the one main frame pairs with sub-frame ft-1
        const a = frames.length === 1 ? blk.dupUp.ft - 1 : s;
        this.steps.push({ kind: 'dupadd', label: `${blk.resample!.path.replace(/\.upsamples\.\d+$/, '')}.avg_shortcut`, d: blk.dupUp, a, h: next.h, w: next.w, x: blockInput, y });
      }
      this.upBlock(blk.index + 1, y);
    });
  }

  head(x: View): void {
    const L = this.sizes.length - 1;
    const { h, w } = this.sizes[L]!;
    const hc = this.cfg.head;
    const n = { t: this.t('decoder.head.1:out', hc.cin * h * w), off: 0 };
    this.steps.push({ kind: 'norm', label: 'decoder.head.0', gkey: 'decoder.head.0.gamma', c: hc.cin, hw: h * w, silu: true, x, y: n });
    const y = { t: this.t('decoder.head.2:out', hc.cout * h * w), off: 0 };
    this.cconv('decoder.head.2', hc.slot, hc.cin, hc.cout, L, n, y);
    this.steps.push({ kind: 'output', label: 'output', h, w, x: y, frame: this.framesOut++ });
  }
}

/** The step list of one chunk at latent size h x w. */
export function buildChunk(cfg: DecoderConfig, kind: ChunkKind, h: number, w: number): ChunkGraph {
  const b = new Builder(cfg, kind, levelSizes(cfg, h, w));
  const hw = h * w;
  const latent = { ...b.t('latent', cfg.zDim * hw), io: true };
  b.tensors[latent.id] = latent;
  const z = { t: b.t('conv2:out', cfg.zDim * hw), off: 0 };
  b.conv('conv2', { cin: cfg.zDim, cout: cfg.zDim, kt: 1, ks: 1, up: 0, h, w, x: { t: latent, off: 0 }, y: z });
  const x = { t: b.t('decoder.conv1:out', cfg.midDim * hw), off: 0 };
  b.cconv('decoder.conv1', 0, cfg.zDim, cfg.midDim, 0, z, x);
  const m0 = b.resBlock(cfg.middle.res0, 0, x);
  const m1 = b.attention(m0);
  const m2 = b.resBlock(cfg.middle.res1, 0, m1);
  b.upBlock(0, m2);
  return { kind, steps: b.steps, tensors: b.tensors, latent, framesOut: b.framesOut };
}
