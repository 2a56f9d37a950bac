// Decoder weights: a safetensors (or any name -> tensor) source normalised to original key names, as f32.
import { DecoderError } from '../gpu/errors';
import { isDiffusersWan22, toOriginalKey } from './keys';
import { parseSafetensors, toFloat32, type StFile } from './safetensors';

export interface Weight {
  shape: number[];
  data: Float32Array;
  /** dtype in the file, for reporting */
  dtype: string;
}

export class Weights {
  constructor(
    readonly map: Map<string, Weight>,
    readonly source: string,
    /** tensors of the file the decoder cannot read (original key -> dtype), named when they are asked for */
    private readonly skipped: Map<string, string> = new Map(),
  ) {}

  has(key: string): boolean {
    return this.map.has(key);
  }

  /** The tensor `key` (original name), checked against `shape` when given. */
  get(key: string, shape?: number[]): Weight {
    const w = this.map.get(key);
    if (!w && this.skipped.has(key)) throw new DecoderError('bad-input', `${this.source}: tensor ${key} has dtype ${this.skipped.get(key)}, expected a float dtype (F32, F16, BF16 or F64)`);
    if (!w) throw new DecoderError('bad-input', `${this.source}: missing tensor ${key}`);
    if (shape) {
      const n = w.shape.reduce((a, b) => a * b, 1), m = shape.reduce((a, b) => a * b, 1);
      // gamma is stored (C,1,1,1) or (C,1,1): compare element counts and the first dim
      if (n !== m || w.shape[0] !== shape[0])
        throw new DecoderError('bad-input', `${this.source}: tensor ${key} has shape [${w.shape}], expected [${shape}]`);
    }
    return w;
  }

  get paramCount(): number {
    let n = 0;
    for (const w of this.map.values()) n += w.data.length;
    return n;
  }
}

/** Decoder weights from a parsed safetensors file (official, diffusers or ComfyUI naming). */
export function weightsFromSafetensors(file: StFile, source: string): Weights {
  const d22 = isDiffusersWan22(file.tensors.keys());
  const map = new Map<string, Weight>();
  for (const [name, t] of file.tensors) {
    const k = toOriginalKey(name, d22);
    if (!k) continue;
    if (map.has(k)) throw new DecoderError('bad-input', `${source}: tensors ${name} and another both map to ${k}`);
    map.set(k, { shape: t.shape, data: toFloat32(t), dtype: t.dtype });
  }
  if (!map.size)
    throw new DecoderError('bad-input', `${source}: no decoder tensors found (expected keys like decoder.conv1.weight or decoder.conv_in.weight)`);
  const skipped = new Map<string, string>();
  for (const [name, dtype] of file.skipped ?? []) {
    const k = toOriginalKey(name, d22);
    if (k) skipped.set(k, dtype);
  }
  return new Weights(map, source, skipped);
}

export function loadWeights(bytes: Uint8Array, source: string): Weights {
  return weightsFromSafetensors(parseSafetensors(bytes, source), source);
}
