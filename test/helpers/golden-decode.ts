// Decode a golden case (../shared/golden/*.safetensors) with its own latents and statistics: the one
// decode the golden tests (golden.test.ts, weights-precision.node.test.ts) compare against @video.
import { WanVaeDecoder, type DecodeOptions, type DecodeResult } from '../../src/decoder';
import { toFloat32, type StFile } from '../../src/model/safetensors';
import type { Weights } from '../../src/model/weights';
import type { TestGpu } from './gpu';

/** `gpu` null: the CPU backend. The decoder is disposed afterwards. */
export async function decodeGolden(f: StFile, weights: Weights, gpu: TestGpu | null, opts: DecodeOptions): Promise<DecodeResult> {
  const dec = new WanVaeDecoder(weights, gpu ?? undefined);
  const lat = f.tensors.get('@latents')!;
  const stats = { mean: toFloat32(f.tensors.get('@mean')!), std: toFloat32(f.tensors.get('@std')!) };
  try {
    return await dec.decode({ data: toFloat32(lat), shape: lat.shape as [number, number, number, number] }, { latentStats: stats, ...opts });
  } finally {
    dec.dispose();
  }
}
