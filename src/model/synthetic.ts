// Generated decoder weights with the official architecture, shapes and key names (vae.py / vae2_2.py
// Decoder3d with dim_mult [1, 2, 4, 4], num_res_blocks 2, temperal_upsample [True, True, False]) for any
// base width and latent width. Used for the embedded default model, for full-size tests and for
// planning an official model without its file (values omitted).
import { Weights, type Weight } from './weights';

export interface SyntheticSpec {
  version: '2.1' | '2.2';
  /** base width: 96 for the official Wan2.1 decoder, 256 for Wan2.2 */
  dim: number;
  /** latent channels: 16 (Wan2.1) or 48 (Wan2.2) */
  zDim: number;
  seed?: number;
}

/** The official configurations. */
export const OFFICIAL: Record<'2.1' | '2.2', SyntheticSpec> = {
  '2.1': { version: '2.1', dim: 96, zDim: 16 },
  '2.2': { version: '2.2', dim: 256, zDim: 48 },
};

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every decoder tensor: key -> shape, in state_dict order. */
export function decoderShapes(spec: SyntheticSpec): [string, number[]][] {
  const { dim, zDim } = spec;
  const v22 = spec.version === '2.2';
  const dims = [4, 4, 4, 2, 1].map((u) => u * dim);
  const out: [string, number[]][] = [];
  const conv = (k: string, cout: number, cin: number, ...kern: number[]) => out.push([`${k}.weight`, [cout, cin, ...kern]], [`${k}.bias`, [cout]]);
  const rb = (p: string, cin: number, cout: number) => {
    out.push([`${p}.residual.0.gamma`, [cin, 1, 1, 1]]);
    conv(`${p}.residual.2`, cout, cin, 3, 3, 3);
    out.push([`${p}.residual.3.gamma`, [cout, 1, 1, 1]]);
    conv(`${p}.residual.6`, cout, cout, 3, 3, 3);
    if (cin !== cout) conv(`${p}.shortcut`, cout, cin, 1, 1, 1);
  };
  conv('conv2', zDim, zDim, 1, 1, 1);
  conv('decoder.conv1', dims[0]!, zDim, 3, 3, 3);
  rb('decoder.middle.0', dims[0]!, dims[0]!);
  out.push(['decoder.middle.1.norm.gamma', [dims[0]!, 1, 1]]);
  conv('decoder.middle.1.to_qkv', 3 * dims[0]!, dims[0]!, 1, 1);
  conv('decoder.middle.1.proj', dims[0]!, dims[0]!, 1, 1);
  rb('decoder.middle.2', dims[0]!, dims[0]!);
  let k = 0;
  for (let i = 0; i < 4; i++) {
    let cin = v22 || i === 0 ? dims[i]! : dims[i]! / 2;
    const cout = dims[i + 1]!;
    for (let j = 0; j < 3; j++) {
      rb(v22 ? `decoder.upsamples.${i}.upsamples.${j}` : `decoder.upsamples.${k++}`, cin, cout);
      cin = cout;
    }
    if (i === 3) break;
    const p = v22 ? `decoder.upsamples.${i}.upsamples.3` : `decoder.upsamples.${k++}`;
    if (i < 2) conv(`${p}.time_conv`, 2 * cout, cout, 3, 1, 1);
    conv(`${p}.resample.1`, v22 ? cout : cout / 2, cout, 3, 3);
  }
  out.push(['decoder.head.0.gamma', [dims[4]!, 1, 1, 1]]);
  conv('decoder.head.2', v22 ? 12 : 3, dims[4]!, 3, 3, 3);
  return out;
}

/**
 * Generated weights: conv weights uniform with variance ~1/fan_in (activations stay O(1) through the
 * residual stream), biases small, gammas around 1. `values: false` gives shapes only (for planning).
 */
export function syntheticWeights(spec: SyntheticSpec, opts: { values?: boolean } = {}): Weights {
  const rand = rng(spec.seed ?? 1);
  const map = new Map<string, Weight>();
  for (const [key, shape] of decoderShapes(spec)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(opts.values === false ? 0 : n);
    if (opts.values !== false) {
      if (key.endsWith('.gamma')) for (let i = 0; i < n; i++) data[i] = 0.8 + 0.4 * rand();
      else if (key.endsWith('.bias')) for (let i = 0; i < n; i++) data[i] = 0.1 * (rand() - 0.5);
      else {
        const fanIn = n / shape[0]!;
        const a = Math.sqrt(3 / fanIn);
        for (let i = 0; i < n; i++) data[i] = a * (2 * rand() - 1);
      }
    }
    map.set(key, { shape, data, dtype: 'F32' });
  }
  return new Weights(map, `generated Wan${spec.version} decoder (dim ${spec.dim}, z ${spec.zDim})`);
}

/** A smooth, deterministic latent [z, T, h, w] (moving sinusoids per channel), for the default run. */
export function syntheticLatents(z: number, T: number, h: number, w: number, seed = 7): Float32Array {
  const rand = rng(seed);
  const out = new Float32Array(z * T * h * w);
  for (let c = 0; c < z; c++) {
    const fx = 0.2 + rand() * 0.6,
      fy = 0.2 + rand() * 0.6,
      ph = rand() * 6.28,
      sp = 0.3 + rand();
    for (let t = 0; t < T; t++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[((c * T + t) * h + y) * w + x] = Math.sin(fx * x + fy * y + ph + sp * t) + 0.3 * (rand() - 0.5);
  }
  return out;
}
