// PyTorch zip checkpoints (torch.save since 1.6; the official Wan2.1_VAE.pth / Wan2.2_VAE.pth): a zip
// holding <archive>/data.pkl (the pickled object: tensors as persistent ids into storages) and one
// stored entry per storage, <archive>/data/<key>. The pickle is read by the restricted reader (pickle.ts),
// never run; the tensors are located in the file (storage entry offset + the tensor's offset), not read.
// A state dict may be the pickled object itself or nested under state_dict / model / module.
import { DecoderError } from '../gpu/errors';
import { printable } from './printable';
import type { CheckpointIndex, IndexedTensor } from './checkpoint-index';
import { unpickle, type PickleValue, type TensorRef } from './pickle';
import type { WeightSource } from './weight-source';
import { entryDataOffset, readZipDirectory } from './zip';

/** The largest data.pkl read (a state dict of a few hundred tensors pickles to a few tens of KiB). */
export const MAX_PICKLE_BYTES = 64 * 2 ** 20;

const NESTED = ['state_dict', 'model', 'module'];

const isTensor = (v: PickleValue): v is TensorRef => !!v && typeof v === 'object' && 'kind' in v && v.kind === 'tensor';

/** The name -> tensor pairs of the unpickled object (a tensor alone is named `tensor`). */
function tensorsOf(v: PickleValue, source: string): Map<string, TensorRef> {
  if (isTensor(v)) return new Map([['tensor', v]]);
  for (let depth = 0; depth < 4 && v instanceof Map; depth++) {
    const found = new Map<string, TensorRef>();
    for (const [k, x] of v) if (isTensor(x)) found.set(String(k), x);
    if (found.size) return found;
    const inner = NESTED.map((k) => v instanceof Map && v.get(k)).find((x) => x instanceof Map);
    if (!inner) break;
    v = inner as PickleValue;
  }
  const keys =
    v instanceof Map
      ? [...v.keys()]
          .slice(0, 8)
          .map((k) => printable(String(k), 40))
          .join(', ')
      : '';
  throw new DecoderError('bad-input', `${source}: the pickled object holds no tensors${keys ? ` (keys: ${keys})` : ''}; expected a state dict (or one under ${NESTED.join(' / ')})`);
}

/**
 * The tensors of a torch.save zip at `src`. Only the storages of tensors `wanted(all names)` accepts are located (their
 * local headers read); the others are listed with no offset. Non-float tensors go to `skipped`.
 */
export async function pthIndex(src: WeightSource, wanted?: (names: string[]) => (name: string) => boolean): Promise<CheckpointIndex> {
  const dir = await readZipDirectory(src);
  const pkl = [...dir.values()].find((e) => /(^|\/)data\.pkl$/.test(e.name) && e.name.split('/').length <= 2);
  if (!pkl) throw new DecoderError('bad-input', `${src.name}: a zip without data.pkl; not a PyTorch checkpoint (torch.save)`);
  const prefix = pkl.name.slice(0, -'data.pkl'.length);
  if (pkl.size > MAX_PICKLE_BYTES) throw new DecoderError('bad-input', `${src.name}: data.pkl of ${pkl.size} bytes (more than ${MAX_PICKLE_BYTES}); not a state dict`);
  const at = await entryDataOffset(src, pkl);
  const value = unpickle(await src.read(at, pkl.size), `${src.name}: data.pkl`);
  const refs = tensorsOf(value, src.name);
  const want = wanted?.([...refs.keys()]) ?? (() => true);
  const tensors = new Map<string, IndexedTensor>();
  const skipped = new Map<string, string>();
  const storageAt = new Map<string, number>();
  for (const [name, t] of refs) {
    const st = t.storage;
    if (!['F32', 'F16', 'BF16', 'F64'].includes(st.dtype)) {
      skipped.set(name, st.dtype);
      continue;
    }
    const numel = t.shape.reduce((a, b) => a * b, 1);
    const entry: IndexedTensor = { name, dtype: st.dtype as IndexedTensor['dtype'], shape: t.shape, offset: -1, byteLength: numel * st.bytes };
    tensors.set(name, entry);
    if (!want(name)) continue;
    const what = `${src.name}: tensor ${printable(name)} (${st.dtype} [${t.shape}])`;
    // contiguous (C order; a dimension of size 1 may carry any stride)
    let s = 1;
    for (let i = t.shape.length - 1; i >= 0; i--) {
      if (t.shape[i]! !== 1 && t.stride[i] !== s) throw new DecoderError('bad-input', `${what} is stored with strides [${t.stride}], not contiguous; save tensor.contiguous()`);
      s *= t.shape[i]!;
    }
    const file = dir.get(`${prefix}data/${st.key}`);
    if (!file) throw new DecoderError('bad-input', `${what}: its storage data/${printable(st.key)} is not in the archive; truncated or corrupt`);
    if (file.size < st.numel * st.bytes || (t.offset + numel) * st.bytes > st.numel * st.bytes)
      throw new DecoderError(
        'bad-input',
        `${what}: elements ${t.offset}..${t.offset + numel} do not fit its storage data/${printable(st.key)} (${st.numel} elements, ${file.size} bytes in the archive); corrupt`,
      );
    let base = storageAt.get(st.key);
    if (base === undefined) storageAt.set(st.key, (base = await entryDataOffset(src, file)));
    entry.offset = base + t.offset * st.bytes;
  }
  return { format: 'pytorch', tensors, skipped, metadata: {} };
}
