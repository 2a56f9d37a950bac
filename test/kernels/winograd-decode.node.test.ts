// The non-fused Winograd conv inside whole decodes (--conv winograd / winograd4, src/kernels/winograd.ts):
//  1. the golden cases wan21-small and wan22-tiny (official weights of tiny widths, ../shared/golden)
//     decoded with every eligible conv on Winograd stay within 1e-3 of the official float64 @video, and
//     within 1e-4 of the direct f32 decode; peak GPU = planned (the banded scratch is counted);
//  2. a generated Wan2.1 decoder at dim 24 (96-channel levels, upsample Conv2d at 96 channels), norm
//     fused (the norm+SiLU on load), 2 latent frames (the cache ring: tap0 2 then 0), F(4x4) with the GPU
//     tuning (U made on the GPU, the decoder's 96-channel GEMM block) against --conv direct.
// Why a wrong implementation fails: the step table must route each eligible conv through the three
// kernels with the right bindings, params per band and U key; a wrong one moves the video by O(0.1).
// The plans are checked to hold Winograd convs at all (a planner that ignored --conv would pass vacuously).
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { toFloat32 } from '../../src/model/safetensors';
import { weightsFromSafetensors } from '../../src/model/weights';
import type { Plan } from '../../src/plan/planner';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { plan } from '../../src/plan/planner';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { compare } from '../helpers/compare';
import { decodeGolden } from '../helpers/golden-decode';
import { getTestDevice } from '../helpers/gpu';
import { needDevice, needGolden, needGpu } from '../helpers/need';

const gpu = await getTestDevice();

/** Convs of a plan on Winograd F(r x r) (all programs). */
const winoConvs = (p: Plan, r: 2 | 4) =>
  Object.values(p.programs)
    .flat()
    .flatMap((pp) => pp.prog.steps)
    .filter((s) => s.kind === 'conv' && s.wino?.r === r).length;

// one form per case (each form compiles its own pipelines: lavapipe's compile time is most of this file's)
describe.each([
  ['wan21-small', 'winograd4', 4],
  ['wan22-tiny', 'winograd', 2],
] as const)('winograd decode, golden %s', (name, conv, r) => {
  it(`--conv ${conv}: within 1e-3 of the official decode, 1e-4 of direct, peak = planned`, async (ctx) => {
    const f = await needGolden(ctx, name);
    const g = await needGpu(ctx);
    const w = weightsFromSafetensors(f, name);
    const lat = f.tensors.get('@latents')!;
    // the decoder clamps to [-1, 1]; the official @video is not clamped
    const official = toFloat32(f.tensors.get('@video')!).map((v) => Math.min(1, Math.max(-1, v)));
    const direct = await decodeGolden(f, w, g, { conv: 'direct' });
    {
      const p = new WanVaeDecoder(w).plan(lat.shape as [number, number, number, number], { conv });
      expect(winoConvs(p, r)).toBeGreaterThan(0);
      const wino = await decodeGolden(f, w, g, { conv });
      const o = compare(wino.video, official);
      const d = compare(wino.video, direct.video);
      console.info(
        `${name} --conv ${conv}: ${winoConvs(p, r)} Winograd convs; vs official max|err| ${o.maxAbs.toExponential(2)} (direct ${compare(direct.video, official).maxAbs.toExponential(2)}); vs direct ${d.maxAbs.toExponential(2)} (${d.psnr.toFixed(1)} dB); peak ${wino.peakGpuBytes} B planned ${wino.plannedPeakGpuBytes} B (direct ${direct.peakGpuBytes} B)`,
      );
      expect(o.maxAbs).toBeLessThanOrEqual(1e-3);
      expect(d.maxAbs).toBeLessThanOrEqual(1e-4);
      expect(wino.peakGpuBytes).toBe(wino.plannedPeakGpuBytes);
    }
  });
});

describe('winograd decode with the GPU tuning: U made on the GPU (exec/wino-weights.ts), the decoder GEMM blocks', () => {
  it('--conv winograd4 with conv3dTuning.gpu equals the direct CPU-tuning decode within 1e-4', async (ctx) => {
    needDevice(ctx, gpu);
    // (lavapipe's own tuning is the CPU one, which makes U in JS: this is the path GPUs take)
    const weights = syntheticWeights({ version: '2.1', dim: 24, zDim: 16, seed: 9 });
    const cfg = inferConfig(weights);
    const run = async (conv: 'direct' | 'winograd4', tuning: Record<string, number>) => {
      const p = plan(cfg, { frames: 2, h: 3, w: 4, cache: 'on', precision: 'f32', norm: 'fused', conv, winoU: 'held' }); // U made at upload (per call: winograd-u-call.node.test.ts)
      const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning });
      const frames: Float32Array[] = [];
      try {
        await dec.decode(syntheticLatents(16, 2, 3, 4), (f) => void frames.push(f.rgb));
      } finally {
        dec.dispose();
      }
      return { out: Float32Array.from(frames.flatMap((f) => [...f])), p, wino: dec.build.wino };
    };
    const ref = await run('direct', conv3dTuning.cpu);
    const got = await run('winograd4', conv3dTuning.gpu);
    expect(winoConvs(got.p, 4)).toBeGreaterThan(5);
    expect(got.wino.gpu).toBeGreaterThan(5); // U made on the GPU, not in JS (this decoder's GpuDecoder.build.wino)
    const c = compare(got.out, ref.out);
    console.info(`dim 24 --conv winograd4, GPU tuning: ${got.wino.gpu} U on the GPU in ${got.wino.chunks} parts; max|err| ${c.maxAbs.toExponential(2)} vs direct`);
    expect(c.maxAbs).toBeLessThanOrEqual(1e-4);
  });
});
