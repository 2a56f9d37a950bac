// Weight packing and upload: exactly the buffers the planner counted (step-kinds.ts `weights` of every
// step, once per key), each packed for its kernel (conv3d's cout-padded layout, or conv3d-mma's blocked
// one on tensor cores) and converted to the storage precision. With a streamed plan (weight-stream.ts)
// the conv weights are packed here too but kept in CPU memory; only the rest is uploaded.
import type { Elem } from '../../gpu/kernel';
import { convWeightFormat, packF16Pairs, packInt8, packInt8Blocked, type WeightsPrecision } from '../../model/quantize';
import type { Weights } from '../../model/weights';
import type { Arena } from '../arena';
import { storageBytes } from '../f16';
import type { Step } from '../../plan/graph';
import { weightBuffers, type WeightUse } from '../../plan/step-kinds';
import { storageUsage } from './usage';

/** The bytes of weight buffer `w` as its kernel reads them (packed by the conv weight format, else in `elem`). */
export function packWeight(w: WeightUse, weights: Weights, elem: Elem, mma: boolean, weightsPrecision?: WeightsPrecision): Uint8Array<ArrayBuffer> {
  // conv weights in a packed format (int8 with per-output-channel scales, f16 pairs) for conv3d-wq
  // for conv3d-wq; int8 on tensor cores: conv3d-mma's blocked layout in int8 + scales for conv3d-mma-wq
  const format = convWeightFormat(elem, weightsPrecision);
  const blocked = mma && (format === 'elem' || format === 'int8');
  const data = w.data(weights, blocked);
  const packed = w.conv && format === 'int8'
    ? blocked ? packInt8Blocked(data, w.conv.cout, w.conv.cin, w.conv.rows / w.conv.cin) : packInt8(data, w.conv.cout, w.conv.rows)
    : w.conv && format === 'f16' ? packF16Pairs(data) : null;
  return packed ? new Uint8Array(packed.buffer as ArrayBuffer) : storageBytes(data, elem);
}

/**
 * Uploads every weight buffer `steps` read, except the keys in `skip` (streamed ones), adopting the ones
 * in `reuse` (by key; taken out of it); returns them by key. Shapes are checked (DecoderError naming the key).
 */
export function uploadWeights(device: GPUDevice, arena: Arena, steps: Iterable<Step>, weights: Weights, elem: Elem, mma: boolean, weightsPrecision?: WeightsPrecision, skip?: ReadonlySet<string> | ReadonlyMap<string, unknown>, reuse?: Map<string, GPUBuffer>): Map<string, GPUBuffer> {
  const out = new Map<string, GPUBuffer>();
  for (const w of weightBuffers(steps)) {
    if (skip?.has(w.key)) continue;
    // the previous decoder's buffer of this key (same model, storage and packing: GpuDecoder checks): adopted, not uploaded again
    const old = reuse?.get(w.key);
    if (old) {
      reuse!.delete(w.key);
      out.set(w.key, arena.adopt('weights', old));
      continue;
    }
    const bytes = packWeight(w, weights, elem, mma, weightsPrecision);
    const buf = arena.create('weights', w.key, bytes.byteLength, storageUsage());
    device.queue.writeBuffer(buf, 0, bytes);
    out.set(w.key, buf);
  }
  return out;
}
