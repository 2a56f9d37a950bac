// Latents from .npy or .safetensors: [z, T, h, w] (a leading batch dimension of 1 is dropped).
import { DecoderError } from '../gpu/errors';
import { parseNpy } from './npy';
import { parseSafetensors, toFloat32 } from './safetensors';
import type { LatentStats } from './stats';

export interface Latents {
  data: Float32Array;
  /** [z, T, h, w] */
  shape: [number, number, number, number];
  /** where they came from, for error messages */
  source?: string;
}

function isNpy(b: Uint8Array): boolean {
  return b[0] === 0x93 && b[1] === 0x4e && b[2] === 0x55;
}

function toLatents(shape: number[], data: Float32Array, source: string): Latents {
  let s = shape;
  if (s.length === 5 && s[0] === 1) s = s.slice(1);
  if (s.length !== 4) throw new DecoderError('bad-input', `${source}: latents have shape [${shape}], expected [z, T, h, w] (or [1, z, T, h, w])`);
  for (let i = 0; i < data.length; i++)
    if (!Number.isFinite(data[i]!)) throw new DecoderError('bad-input', `${source}: latents hold a non-finite value (${data[i]}) at index ${i}`);
  return { data, shape: s as [number, number, number, number], source };
}

/**
 * Parse latents. For safetensors, `key` picks the tensor; without it: `@latents`, `latents`, or the only tensor.
 */
export function parseLatents(bytes: Uint8Array, source: string, key?: string): Latents {
  if (isNpy(bytes)) {
    const a = parseNpy(bytes, source);
    return toLatents(a.shape, a.data, source);
  }
  const f = parseSafetensors(bytes, source);
  let name = key;
  if (!name) {
    if (f.tensors.has('@latents')) name = '@latents';
    else if (f.tensors.has('latents')) name = 'latents';
    else if (f.tensors.size === 1) name = [...f.tensors.keys()][0];
    else throw new DecoderError('bad-input', `${source}: ${f.tensors.size} tensors and none named '@latents' or 'latents': pass the tensor name (--latents-key)`);
  }
  const t = f.tensors.get(name!);
  if (!t) throw new DecoderError('bad-input', `${source}: no tensor named '${name}' (has: ${[...f.tensors.keys()].slice(0, 8).join(', ')}${f.tensors.size > 8 ? ', ...' : ''})`);
  return toLatents(t.shape, toFloat32(t), `${source}:${name}`);
}

/** Statistics from a safetensors file holding `@mean` and `@std` (the golden files do), or `mean` / `std`. */
export function parseStats(bytes: Uint8Array, source: string): LatentStats {
  const f = parseSafetensors(bytes, source);
  const get = (n: string) => f.tensors.get(`@${n}`) ?? f.tensors.get(n);
  const m = get('mean'), s = get('std');
  if (!m || !s) throw new DecoderError('bad-input', `${source}: latent statistics need tensors '@mean' and '@std' (or 'mean' and 'std')`);
  const std = toFloat32(s);
  if (std.some((v) => !(v > 0))) throw new DecoderError('bad-input', `${source}: '@std' must be positive everywhere`);
  return { mean: toFloat32(m), std };
}
