// The CPU path of the decoder facade: the f32/f64 reference decoder (src/cpu/decoder.ts) run on the
// de-normalised latents, its chunks cut into frames as the GPU path delivers them. With packed weights
// (int8 / f16) it decodes with the conv weights the GPU would hold (the reference of that lever).
import { CpuDecoder } from '../cpu/decoder';
import type { DecoderConfig } from '../model/config';
import type { Latents } from '../model/latents';
import { weightsAs, type WeightsPrecision } from '../model/quantize';
import type { Weights } from '../model/weights';
import type { Frame } from '../runtime/assembler';

/**
 * Decode `input` ([z, T, h, w] de-normalised, `shape`) on the CPU; frames [3, H, W] go to `place` in order.
 * Backpressure: a Promise returned by `place` is awaited before the next frame (and the next chunk).
 */
export async function decodeCpu(
  cfg: DecoderConfig,
  weights: Weights,
  input: Float32Array,
  shape: Latents['shape'],
  cache: 'on' | 'off',
  place: (f: Frame) => unknown,
  signal: AbortSignal,
  wp: WeightsPrecision = 'f32',
): Promise<void> {
  const H = shape[2] * cfg.scale,
    W = shape[3] * cfg.scale;
  let index = 0;
  await new CpuDecoder(cfg, weightsAs(weights, wp)).decode(
    { data: input, shape },
    {
      useCache: cache === 'on',
      signal,
      keep: false, // frames go to `place` (the facade collects them when asked): the reference's own copy is not kept
      onChunk: async (chunk) => {
        const n = chunk.shape[1]!;
        for (let f = 0; f < n; f++) {
          const rgb = new Float32Array(3 * H * W);
          for (let c = 0; c < 3; c++) rgb.set(chunk.data.subarray((c * n + f) * H * W, (c * n + f + 1) * H * W), c * H * W);
          await place({ index: index++, rgb });
        }
      },
    },
  );
}
