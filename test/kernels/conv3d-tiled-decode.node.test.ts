// conv3d-tiled inside a whole decode: the GPU tuning (conv3dTuning.gpu, which routes 96-channel convs to
// the generated kernel, see src/kernels/conv3d-tiled.ts conv3dTiledFor) against the CPU-adapter tuning
// (conv3d's direct loops everywhere) on the same device, generated Wan2.1 decoder at dim 24 (96-channel
// levels, the 3-channel head on conv3d), 2 latent frames of 3x4, f32, norm fused. The two sum
// each output in the same order (tap-major, channels in order) except for fma's single rounding, so
// they agree to ~1e-6; a wrong binding, param or tap in the decoder's use of the kernel moves the
// video by O(0.1).
import { describe, expect, it } from 'vitest';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { plan } from '../../src/plan/planner';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { compare } from '../helpers/compare';
import { getTestDevice } from '../helpers/gpu';
import { needDevice } from '../helpers/need';

const gpu = await getTestDevice();

async function decode(tuning: Record<string, number>, norm: 'full' | 'fused'): Promise<Float32Array> {
  const weights = syntheticWeights({ version: '2.1', dim: 24, zDim: 16, seed: 5 });
  // conv direct: --conv auto runs the 96-channel 3x3 convs as Winograd (winograd-decode.node.test.ts)
  const p = plan(inferConfig(weights), { frames: 2, h: 3, w: 4, cache: 'on', precision: 'f32', norm, conv: 'direct' });
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning });
  const frames: Float32Array[] = [];
  try {
    await dec.decode(syntheticLatents(16, 2, 3, 4), (f) => void frames.push(f.rgb));
  } finally {
    dec.dispose();
  }
  const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  frames.reduce((o, f) => (out.set(f, o), o + f.length), 0);
  return out;
}

describe('decode with conv3d-tiled (GPU tuning) on this device', () => {
  // fused only (each decode compiles ~20 pipelines on lavapipe): its convs take both the norm-on-load and the plain loads
  it.for(['fused'] as const)('norm %s: equals the conv3d decode within 1e-4', async (norm, ctx) => {
    needDevice(ctx, gpu);
    const ref = await decode(conv3dTuning.cpu, norm);
    const got = await decode(conv3dTuning.gpu, norm);
    const c = compare(got, ref);
    console.info(`conv3d-tiled decode norm ${norm}: max|err| ${c.maxAbs.toExponential(2)} vs conv3d (${got.length} values)`);
    expect(got.length).toBe(ref.length);
    expect(c.maxAbs).toBeLessThanOrEqual(1e-4);
  });
});
