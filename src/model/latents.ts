// Latents from .npy or .safetensors: [z, T, h, w] (a leading batch dimension of 1 is dropped).
// Recognised without flags: ComfyUI's SaveLatent `.latent` files (safetensors: `latent_tensor` [1, z, T, h, w]
// plus an empty `latent_format_version_0`), diffusers `output_type="latent"` tensors saved with
// safetensors (`latents`, or the only tensor, [1, z, T, h, w]), and the golden files (`@latents`, with
// `@mean` / `@std`), and `.pt` files written by torch.save (a tensor, or a dict holding one: read by the
// restricted pickle reader, never run). All of them hold normalised latents, as a Wan pipeline gives the VAE.
import { DecoderError } from '../gpu/errors';
import { bytesToF32 } from './checkpoint';
import { parseNpy } from './npy';
import { printable } from './printable';
import { pthIndex } from './pth';
import { parseSafetensors, toFloat32 } from './safetensors';
import { bytesSource } from './weight-source';
import { isZip } from './zip';
import type { LatentStats } from './stats';

export interface Latents {
  data: Float32Array;
  /** [z, T, h, w] */
  shape: [number, number, number, number];
  /** where they came from, for error messages */
  source?: string;
  /** what the file was: 'npy', 'comfyui-latent', 'safetensors' */
  format?: string;
  /** statistics stored in the same file (`@mean` / `@std`), to de-normalise with */
  stats?: LatentStats;
}

/** Tensor names tried, in order, when no key is given. */
export const LATENT_KEYS = ['@latents', 'latents', 'latent_tensor', 'latent', 'samples'];

function isNpy(b: Uint8Array): boolean {
  return b[0] === 0x93 && b[1] === 0x4e && b[2] === 0x55;
}

function toLatents(shape: number[], data: Float32Array, source: string): Latents {
  let s = shape;
  if (s.length === 5 && s[0] !== 1) throw new DecoderError('bad-input', `${source}: latents have shape [${shape}], a batch of ${s[0]}: save one video's latents ([1, z, T, h, w] or [z, T, h, w])`);
  if (s.length === 5) s = s.slice(1);
  if (s.length !== 4) throw new DecoderError('bad-input', `${source}: latents have shape [${shape}], expected [z, T, h, w] (or [1, z, T, h, w])`);
  for (let i = 0; i < data.length; i++)
    if (!Number.isFinite(data[i]!)) {
      const [, T, h, w] = s as [number, number, number, number];
      const at = [Math.floor(i / (T * h * w)), Math.floor(i / (h * w)) % T, Math.floor(i / w) % h, i % w];
      throw new DecoderError('bad-input', `${source}: latents hold a non-finite value (${data[i]}) at [channel, frame, y, x] = [${at}] (shape [${s}])`);
    }
  return { data, shape: s as [number, number, number, number], source };
}

/** Up to 8 tensor names of a file, as they may appear in an error line. */
const listed = (names: Iterable<string>): string => {
  const all = [...names];
  return (
    all
      .slice(0, 8)
      .map((n) => printable(n, 40))
      .join(', ') + (all.length > 8 ? ', ...' : '')
  );
};

/**
 * Parse latents. For safetensors, `key` picks the tensor; without it: `@latents`, `latents`, or the only tensor.
 */
export function parseLatents(bytes: Uint8Array, source: string, key?: string): Latents {
  // a .npy name without the .npy magic (empty, cut, another format): the .npy reader's error, not safetensors'
  if (isNpy(bytes) || /\.npy$/i.test(source)) {
    const a = parseNpy(bytes, source);
    return { ...toLatents(a.shape, a.data, source), format: 'npy' };
  }
  const f = parseSafetensors(bytes, source);
  let name = key ?? LATENT_KEYS.find((k) => f.tensors.has(k) || f.skipped?.has(k));
  if (!name) {
    const nonEmpty = [...f.tensors].filter(([, t]) => t.shape.every((d) => d > 0));
    if (nonEmpty.length === 1) name = nonEmpty[0]![0];
    else
      throw new DecoderError(
        'bad-input',
        `${source}: ${f.tensors.size} tensors and none named ${LATENT_KEYS.map((k) => `'${k}'`).join(', ')}: pass the tensor name (--latents-key; has: ${listed(f.tensors.keys())})`,
      );
  }
  const t = f.tensors.get(name);
  if (!t && f.skipped?.has(name)) throw new DecoderError('bad-input', `${source}: tensor '${printable(name)}' has dtype ${f.skipped.get(name)}, expected a float dtype (F32, F16, BF16 or F64)`);
  if (!t) throw new DecoderError('bad-input', `${source}: no tensor named '${printable(name)}' (has: ${listed(f.tensors.keys())})`);
  const lat = toLatents(t.shape, toFloat32(t), `${source}:${printable(name)}`);
  lat.format = f.tensors.has('latent_format_version_0') || name === 'latent_tensor' ? 'comfyui-latent' : 'safetensors';
  if (f.tensors.has('@mean') || f.tensors.has('@std')) lat.stats = parseStats(bytes, source);
  return lat;
}

/** Statistics from a safetensors file holding `@mean` and `@std` (the golden files do), or `mean` / `std`. */
export function parseStats(bytes: Uint8Array, source: string): LatentStats {
  const f = parseSafetensors(bytes, source);
  const get = (n: string) => f.tensors.get(`@${n}`) ?? f.tensors.get(n);
  const m = get('mean'),
    s = get('std');
  if (!m || !s) throw new DecoderError('bad-input', `${source}: latent statistics need tensors '@mean' and '@std' (or 'mean' and 'std')`);
  const std = toFloat32(s);
  if (std.some((v) => !(v > 0))) throw new DecoderError('bad-input', `${source}: '@std' must be positive everywhere`);
  return { mean: toFloat32(m), std };
}

/**
 * Latents from a file's bytes, any format parseLatents reads plus torch.save `.pt` files (a zip): a tensor
 * alone, or the tensor `key` / one of LATENT_KEYS / the only float tensor of a dict.
 */
export async function readLatents(bytes: Uint8Array, source: string, key?: string): Promise<Latents> {
  if (!isZip(bytes)) return parseLatents(bytes, source, key);
  const src = bytesSource(bytes, source);
  const idx = await pthIndex(src);
  const names = [...idx.tensors.keys()];
  const name = key ?? LATENT_KEYS.find((k) => idx.tensors.has(k) || idx.skipped.has(k)) ?? (names.length === 1 ? names[0] : undefined);
  const has = `has: ${listed([...names, ...idx.skipped.keys()])}`;
  if (!name) throw new DecoderError('bad-input', `${source}: ${names.length} tensors and none named ${LATENT_KEYS.map((k) => `'${k}'`).join(', ')}: pass the tensor name (--latents-key; ${has})`);
  if (idx.skipped.has(name)) throw new DecoderError('bad-input', `${source}: tensor '${printable(name)}' has dtype ${idx.skipped.get(name)}, expected a float dtype (F32, F16, BF16 or F64)`);
  const t = idx.tensors.get(name);
  if (!t) throw new DecoderError('bad-input', `${source}: no tensor named '${printable(name)}' (${has})`);
  const lat = toLatents(t.shape, bytesToF32(t, src.readSync!(t.offset, t.byteLength), false), name === 'tensor' && names.length === 1 ? source : `${source}:${printable(name)}`);
  lat.format = 'pt';
  return lat;
}
