// The bench profile mode (src/runtime/exec/encode.ts passProfile + bench/lib/pass-probe.ts, used by
// `bench-node --profile`): every dispatch of a decode gets its own compute pass labelled
// profile|step|kernel|flops|kind|shape, and the decode's frames are bit-identical to a normal decode.
// A profile mode that forgets to re-bind a group in the new pass fails with a validation error; one that
// drops or merges dispatches, or mislabels them, fails the counts; one that changes a result fails the
// equality. Generated Wan2.1 decoder (dim 8), 2 latent frames of 2x3, f32 (any adapter with timestamps).
import { describe, expect, it } from 'vitest';
import { aggregate } from '../../bench/profile';
import { PassProbe } from '../../bench/lib/pass-probe';
import { kernels } from '../../src/kernels/index';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { plan } from '../../src/plan/planner';
import { passProfile } from '../../src/runtime/exec/encode';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { getTestDevice } from '../helpers/gpu';
import { needDevice, notOnThisAdapter } from '../helpers/need';

const gpu = await getTestDevice();

/** Counts every dispatchWorkgroups of every compute pass while installed (outermost wrapper; `stop` restores). */
function countDispatches(device: GPUDevice): { n: number; stop(): void } {
  const create = device.createCommandEncoder;
  const c = { n: 0, stop: () => void (device.createCommandEncoder = create) };
  device.createCommandEncoder = (desc?: GPUCommandEncoderDescriptor) => {
    const enc = create.call(device, desc);
    const begin = enc.beginComputePass.bind(enc);
    enc.beginComputePass = (d?: GPUComputePassDescriptor) => {
      const pass = begin(d);
      const dispatch = pass.dispatchWorkgroups.bind(pass);
      pass.dispatchWorkgroups = (x: number, y?: number, z?: number) => {
        c.n++;
        dispatch(x, y, z);
      };
      return pass;
    };
    return enc;
  };
  return c;
}

async function decode(profile: boolean): Promise<{ frames: Float32Array[]; each: { label: string; ms: number }[]; dispatches: number }> {
  const weights = syntheticWeights({ version: '2.1', dim: 8, zDim: 16, seed: 5 });
  const p = plan(inferConfig(weights), { frames: 2, h: 2, w: 3, cache: 'on', precision: 'f32' });
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info) });
  const probe = new PassProbe(gpu!.device, 2048);
  const counter = countDispatches(gpu!.device);
  const frames: Float32Array[] = [];
  passProfile.on = profile;
  try {
    await dec.decode(syntheticLatents(16, 2, 2, 3), (f) => void frames.push(f.rgb));
  } finally {
    passProfile.on = false;
    counter.stop();
    dec.dispose();
  }
  const { each } = await probe.collect();
  return { frames, each, dispatches: counter.n };
}

describe('profile mode (one timed pass per dispatch)', () => {
  it('labels every dispatch and leaves the frames bit-identical', async (ctx) => {
    needDevice(ctx, gpu);
    if (!PassProbe.available(gpu!.device)) notOnThisAdapter(ctx, 'no timestamp-query on this adapter');
    const plain = await decode(false);
    const prof = await decode(true);
    expect(prof.frames.length).toBe(plain.frames.length);
    prof.frames.forEach((f, i) => expect(f).toEqual(plain.frames[i]));
    const labelled = prof.each.filter((e) => e.label.startsWith('profile|'));
    expect(plain.each.filter((e) => e.label.startsWith('profile|'))).toHaveLength(0);
    expect(prof.dispatches).toBeGreaterThan(0);
    expect(prof.dispatches).toBe(plain.dispatches);
    expect(labelled.length).toBe(prof.dispatches);
    // conv passes carry the kernel id, positive FLOPs and the conv shape
    const convs = labelled.map((e) => e.label.split('|')).filter((f) => f[4] === 'conv');
    expect(convs.length).toBeGreaterThan(0);
    for (const f of convs) {
      expect(f[2]).toBe(kernels.conv3d.id);
      expect(Number(f[3])).toBeGreaterThan(0);
      expect(f[5]).toMatch(/^\d+->\d+ ch \d+x\d+ \dx\dx\d/);
    }
    // aggregate: per-kind sums add up to the total and count every dispatch once
    const byKind = aggregate(prof.each, (f) => f[4]!);
    expect(byKind.reduce((a, r) => a + r.dispatches, 0)).toBe(labelled.length);
    expect(byKind.reduce((a, r) => a + r.ms, 0)).toBeCloseTo(
      labelled.reduce((a, e) => a + e.ms, 0),
      6,
    );
  });
});
