// Decoder configuration inferred from weight shapes (vae.py Decoder3d / vae2_2.py Decoder3d): version,
// z_dim, widths, the list of up blocks, and the causal-cache slot of every cached conv in execution order.
import { DecoderError } from '../gpu/errors';
import type { Weight, Weights } from './weights';

export interface ResBlockCfg {
  /** e.g. `decoder.upsamples.4` or `decoder.upsamples.2.upsamples.0` */
  path: string;
  cin: number;
  cout: number;
  /** 1x1x1 `shortcut` conv when cin != cout */
  shortcut: boolean;
  /** cache slots of residual.2 and residual.6 */
  slots: [number, number];
}

export interface ResampleCfg {
  path: string;
  mode: 'upsample2d' | 'upsample3d';
  cin: number;
  cout: number;
  /** cache slot of time_conv (upsample3d only), else -1 */
  slot: number;
}

export interface DupUpCfg {
  cin: number;
  cout: number;
  ft: number;
  fs: number;
  /** repeats r = cout·ft·fs² / cin */
  r: number;
}

export interface UpBlockCfg {
  index: number;
  resblocks: ResBlockCfg[];
  resample: ResampleCfg | null;
  /** Wan2.2 `avg_shortcut` (parameter-free DupUp3D of the block input), null for Wan2.1 */
  dupUp: DupUpCfg | null;
}

export interface DecoderConfig {
  version: '2.1' | '2.2';
  zDim: number;
  /** base width: dims[last] */
  dim: number;
  /** channels of conv1's output (= middle width) */
  midDim: number;
  middle: { res0: ResBlockCfg; attn: { path: string; c: number }; res1: ResBlockCfg };
  upBlocks: UpBlockCfg[];
  head: { cin: number; cout: number; slot: number };
  /** 1 (Wan2.1: 3 output channels) or 2 (Wan2.2: 12 channels unpatchified 2x2) */
  patch: 1 | 2;
  /** spatial factor latent -> video: 8 or 16 */
  scale: number;
  numSlots: number;
}

/**
 * A CausalConv3d weight [cout, cin, k, k, k] (k = 3; 1 for conv2): a tensor of another shape (even with
 * as many values) would be read as this one by both backends, so it is refused here, at load.
 */
function conv3d(w: Weights, key: string, k: number): Weight {
  const t = w.get(key);
  if (t.shape.length !== 5 || t.shape.slice(2).some((d) => d !== k)) throw new DecoderError('bad-input', `${w.source}: tensor ${key} has shape [${t.shape}], expected [cout, cin, ${k}, ${k}, ${k}]`);
  return t;
}

function resBlock(w: Weights, path: string, slot: number): ResBlockCfg {
  const c2 = conv3d(w, `${path}.residual.2.weight`, 3);
  const c6 = conv3d(w, `${path}.residual.6.weight`, 3);
  if (c6.shape[0] !== c2.shape[0] || c6.shape[1] !== c2.shape[0])
    throw new DecoderError('bad-input', `${w.source}: tensor ${path}.residual.6.weight has shape [${c6.shape}], expected [${c2.shape[0]}, ${c2.shape[0]}, 3, 3, 3]`);
  const [cout, cin] = c2.shape as [number, number];
  const shortcut = w.has(`${path}.shortcut.weight`);
  if (!shortcut && cin !== cout) throw new DecoderError('bad-input', `${w.source}: ${path} maps ${cin}->${cout} channels but has no shortcut.weight`);
  return { path, cin, cout, shortcut, slots: [slot, slot + 1] };
}

function resample(w: Weights, path: string, slot: number): ResampleCfg {
  const r1 = w.get(`${path}.resample.1.weight`);
  const three = w.has(`${path}.time_conv.weight`);
  return { path, mode: three ? 'upsample3d' : 'upsample2d', cin: r1.shape[1]!, cout: r1.shape[0]!, slot: three ? slot : -1 };
}

/** Module paths of the up-block children, per block, for either naming layout. */
function upBlockPaths(w: Weights, v22: boolean): { res: string[]; resample: string | null }[] {
  const blocks: { res: string[]; resample: string | null }[] = [];
  if (v22) {
    for (let i = 0; w.has(`decoder.upsamples.${i}.upsamples.0.residual.2.weight`); i++) {
      const b = { res: [] as string[], resample: null as string | null };
      for (let j = 0; ; j++) {
        const p = `decoder.upsamples.${i}.upsamples.${j}`;
        if (w.has(`${p}.residual.2.weight`)) b.res.push(p);
        else if (w.has(`${p}.resample.1.weight`)) b.resample = p;
        else break;
      }
      blocks.push(b);
    }
  } else {
    let b = { res: [] as string[], resample: null as string | null };
    for (let k = 0; ; k++) {
      const p = `decoder.upsamples.${k}`;
      if (w.has(`${p}.residual.2.weight`)) b.res.push(p);
      else if (w.has(`${p}.resample.1.weight`)) {
        b.resample = p;
        blocks.push(b);
        b = { res: [], resample: null };
      } else break;
    }
    if (b.res.length) blocks.push(b);
  }
  return blocks;
}

export function inferConfig(w: Weights): DecoderConfig {
  const conv2 = conv3d(w, 'conv2.weight', 1);
  const zDim = conv2.shape[0]!;
  const conv1 = conv3d(w, 'decoder.conv1.weight', 3);
  if (conv1.shape[1] !== zDim) throw new DecoderError('bad-input', `${w.source}: decoder.conv1.weight takes ${conv1.shape[1]} channels but conv2 outputs ${zDim}`);
  const midDim = conv1.shape[0]!;
  const v22 = w.has('decoder.upsamples.0.upsamples.0.residual.2.weight');
  let slot = 1;
  const res0 = resBlock(w, 'decoder.middle.0', slot);
  slot += 2;
  const attn = { path: 'decoder.middle.1', c: w.get('decoder.middle.1.to_qkv.weight').shape[1]! };
  const res1 = resBlock(w, 'decoder.middle.2', slot);
  slot += 2;
  const upBlocks: UpBlockCfg[] = [];
  let c = midDim;
  let scale = 1;
  for (const [index, b] of upBlockPaths(w, v22).entries()) {
    const inC = c;
    const resblocks: ResBlockCfg[] = [];
    for (const p of b.res) {
      const rb = resBlock(w, p, slot);
      if (rb.cin !== c) throw new DecoderError('bad-input', `${w.source}: ${p} expects ${rb.cin} channels, previous layer gives ${c}`);
      resblocks.push(rb);
      slot += 2;
      c = rb.cout;
    }
    let rs: ResampleCfg | null = null;
    if (b.resample) {
      rs = resample(w, b.resample, slot);
      if (rs.mode === 'upsample3d') slot += 1;
      c = rs.cout;
      scale *= 2;
    }
    const dupUp = v22 && rs ? dupUpCfg(inC, c, rs.mode === 'upsample3d' ? 2 : 1, 2) : null;
    upBlocks.push({ index, resblocks, resample: rs, dupUp });
  }
  const head = conv3d(w, 'decoder.head.2.weight', 3);
  const headCfg = { cin: head.shape[1]!, cout: head.shape[0]!, slot };
  if (headCfg.cin !== c) throw new DecoderError('bad-input', `${w.source}: decoder.head.2 expects ${headCfg.cin} channels, previous layer gives ${c}`);
  const patch = headCfg.cout === 12 ? 2 : 1;
  if (headCfg.cout !== 3 * patch * patch) throw new DecoderError('bad-input', `${w.source}: decoder.head.2 outputs ${headCfg.cout} channels, expected 3 (Wan2.1) or 12 (Wan2.2)`);
  if (v22 !== (patch === 2)) throw new DecoderError('bad-input', `${w.source}: layout says Wan${v22 ? '2.2' : '2.1'} but the head outputs ${headCfg.cout} channels`);
  return {
    version: v22 ? '2.2' : '2.1',
    zDim,
    dim: c,
    midDim,
    middle: { res0, attn, res1 },
    upBlocks,
    head: headCfg,
    patch,
    scale: scale * patch,
    numSlots: slot + 1,
  };
}

function dupUpCfg(cin: number, cout: number, ft: number, fs: number): DupUpCfg {
  return { cin, cout, ft, fs, r: (cout * ft * fs * fs) / cin };
}

/** Output frame count for T latent frames with the causal cache: 1 + 4(T-1) (for two temporal upsamples). */
export function framesFor(cfg: DecoderConfig, latentFrames: number): number {
  const tUp = cfg.upBlocks.filter((b) => b.resample?.mode === 'upsample3d').length;
  return 1 + (latentFrames - 1) * 2 ** tUp;
}
