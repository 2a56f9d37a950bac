// The first frame of a decode whose build overlaps it (runtime/gpu-decoder.ts `overlap`) waits for chunk 0's
// pipelines only: the pipelines that only the later chunks' program uses (here the time convs of the
// upsampling blocks, which chunk 0 skips) are held back by 600 ms, as a slow compile with an empty driver
// cache would be, and frame 0 must reach onFrame before the first of them is compiled. Before, a chunk's
// frames went out only once the next chunk had been submitted, which waited for its pipelines (H200,
// 2026-12-02, 0288184: first frame 130-210 ms after chunk 0 was placed where later pipelines were still
// compiling). They are asked for after every pipeline of chunk 0. Frames equal the non-overlapped build, bit for bit.
import { describe, expect, it } from 'vitest';
import { pipelineKey } from '../../src/gpu/kernel';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { planStepKernels } from '../../src/runtime/exec/plan-kernels';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan } from '../../src/plan/planner';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 5 });
const cfg = inferConfig(weights);
const T = 3,
  h = 3,
  w = 8;
const latents = syntheticLatents(4, T, h, w);
const HELD_MS = 600;

describe('the first frame with pipelines still compiling', () => {
  it('goes out before the pipelines only later chunks use are compiled', async (ctx) => {
    const { device } = await needGpu(ctx);
    const p = plan(cfg, { frames: T, h, w, cache: 'on', precision: 'f32', conv: 'direct' });
    const tuning = { ...conv3dTuning.gpu };
    const target = { tuning, maxInvocations: device.limits.maxComputeInvocationsPerWorkgroup, mma: null };
    const keysOf = (kind: 'first' | 'steady') => {
      const one = { ...p, programs: { [kind]: p.programs[kind] } } as typeof p;
      return new Set([...planStepKernels(one, target)].flatMap((s) => s.kernels.map((k) => pipelineKey(k.def, k.overrides, 'f32'))));
    };
    const first = keysOf('first');
    const later = [...keysOf('steady')].filter((k) => !first.has(k));
    console.log(`pipelines of the later chunks only: ${later.join('; ')}`);
    expect(later.length).toBeGreaterThan(0);
    const collect = async (dec: GpuDecoder, times?: number[]) => {
      const frames: Float32Array[] = [];
      await dec.decode(latents, (f) => void (frames.push(f.rgb), times?.push(performance.now())));
      return frames;
    };
    const ref = await GpuDecoder.create(device, p, weights, { tuning, overlap: false });
    const want = await collect(ref);
    ref.dispose();
    const released: number[] = [];
    const requested: string[] = [];
    const pipe = device.createComputePipelineAsync;
    device.createComputePipelineAsync = function (this: GPUDevice, d: GPUComputePipelineDescriptor) {
      requested.push(String(d.label));
      const made = pipe.call(this, d);
      if (!later.includes(String(d.label))) return made;
      return made.then((x) => new Promise<GPUComputePipeline>((ok) => setTimeout(() => (released.push(performance.now()), ok(x)), HELD_MS)));
    } as GPUDevice['createComputePipelineAsync'];
    let dec: GpuDecoder;
    try {
      dec = await GpuDecoder.create(device, p, weights, { tuning });
    } finally {
      delete (device as Partial<GPUDevice>).createComputePipelineAsync;
    }
    try {
      // asked for in program order: every pipeline of chunk 0 before those of the later chunks only
      const lastFirst = Math.max(...requested.map((k, i) => (first.has(k) ? i : -1)));
      expect(Math.min(...later.map((k) => requested.indexOf(k)))).toBeGreaterThan(lastFirst);
      const times: number[] = [];
      const got = await collect(dec, times);
      expect(released.length).toBe(later.length);
      const firstHeld = Math.min(...released);
      console.log(`frame 0 ${(firstHeld - times[0]!).toFixed(0)} ms before the first held pipeline, frame 1 ${(times[1]! - firstHeld).toFixed(0)} ms after it`);
      expect(times[0]!).toBeLessThan(firstHeld);
      // chunk 1 needs them: its frames come after
      expect(times[1]!).toBeGreaterThanOrEqual(firstHeld);
      expect(got.length).toBe(want.length);
      got.forEach((f, i) => expect(Buffer.from(f.buffer).equals(Buffer.from(want[i]!.buffer))).toBe(true));
    } finally {
      dec.dispose();
    }
  });
});
