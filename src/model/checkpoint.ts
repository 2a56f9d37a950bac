// A checkpoint file of any supported format as an index of tensors located in the file (format told by
// its first bytes: a zip is a torch.save checkpoint, else safetensors), and the reading of one tensor's
// bytes into f32. Nothing but the header (and, for a zip, its directory and data.pkl) is read here.
import { DecoderError } from '../gpu/errors';
import { pthIndex } from './pth';
import { safetensorsIndex, toFloat32 } from './safetensors';
import type { CheckpointIndex, IndexedTensor } from './checkpoint-index';
import type { WeightSource } from './weight-source';
import { isZip } from './zip';

export type { CheckpointIndex, IndexedTensor } from './checkpoint-index';

/** The index of the checkpoint at `src`; `want` picks the tensors a zip's storages are located for (safetensors: all, from the header). */
export async function indexCheckpoint(src: WeightSource, want?: (names: string[]) => (name: string) => boolean): Promise<CheckpointIndex> {
  const head = await src.read(0, Math.min(8, src.size));
  if (isZip(head)) return pthIndex(src, want);
  // the legacy torch.save format (before 1.6, or _use_new_zipfile_serialization=False): a bare pickle
  if (head[0] === 0x80 && head[1]! <= 5)
    throw new DecoderError('bad-input', `${src.name}: a bare pickle (the legacy torch.save format); re-save it with a current PyTorch (torch.save(torch.load(f), f2)) or as safetensors`);
  return safetensorsIndex(src);
}

/**
 * f32 values of the tensor's bytes `b` (the tensor's dtype). `fresh`: `b` is a buffer of its own, an aligned
 * F32 one is viewed, not copied. `into`: other dtypes are converted into it (a reused buffer, toFloat32).
 */
export function bytesToF32(t: IndexedTensor, b: Uint8Array, fresh: boolean, into?: Float32Array): Float32Array {
  if (t.dtype === 'F32' && fresh && b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  return toFloat32({ name: t.name, dtype: t.dtype, shape: t.shape, bytes: b }, into);
}

/** The located tensor `t` read from `src` (synchronously when `sync`). */
export function tensorBytesSync(src: WeightSource, t: IndexedTensor): Uint8Array {
  if (t.offset < 0) throw new DecoderError('internal', `${src.name}: tensor ${t.name} was not located`);
  return src.readSync!(t.offset, t.byteLength);
}
