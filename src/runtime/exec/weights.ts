// Weight packing and upload: exactly the buffers the planner counted (step-kinds.ts `weights` of every
// step, once per key), each packed for its kernel (conv3d's cout-padded layout, or conv3d-mma's blocked
// one on tensor cores) and converted to the storage precision.
import type { Elem } from '../../gpu/kernel';
import { convWeightFormat, packF16Pairs, packInt8, type WeightsPrecision } from '../../model/quantize';
import type { Weights } from '../../model/weights';
import type { Arena } from '../arena';
import { storageBytes } from '../f16';
import type { Step } from '../../plan/graph';
import { weightBuffers } from '../../plan/step-kinds';
import { storageUsage } from './usage';

/** Uploads every weight buffer `steps` read; returns them by key. Shapes are checked (DecoderError naming the key). */
export function uploadWeights(device: GPUDevice, arena: Arena, steps: Iterable<Step>, weights: Weights, elem: Elem, mma: boolean, weightsPrecision?: WeightsPrecision): Map<string, GPUBuffer> {
  const out = new Map<string, GPUBuffer>();
  // conv weights in a packed format (int8 with per-output-channel scales, f16 pairs) for conv3d-wq
  const format = convWeightFormat(elem, weightsPrecision);
  for (const w of weightBuffers(steps)) {
    const data = w.data(weights, mma && format === 'elem');
    const packed = w.conv && format === 'int8' ? packInt8(data, w.conv.cout, w.conv.rows) : w.conv && format === 'f16' ? packF16Pairs(data) : null;
    const bytes = packed ? new Uint8Array(packed.buffer) : storageBytes(data, elem);
    const buf = arena.create('weights', w.key, bytes.byteLength, storageUsage());
    device.queue.writeBuffer(buf, 0, bytes);
    out.set(w.key, buf);
  }
  return out;
}
