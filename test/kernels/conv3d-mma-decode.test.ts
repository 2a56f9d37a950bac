// The tensor-core conv path inside a whole decode (src/runtime/gpu-decoder.ts with `mma`): every conv, the
// 3-channel head too (one 16-channel output block; its blocked weights are larger than conv3d's, which the
// plan counts: allocated = planned fails if it does not), runs conv3d-mma-pack + the blocked GEMM over
// weights re-blocked at upload. Here the GEMM is the shipped straight-line one emulated on plain code
// (mmaGemm with `emulate`: no CI adapter has subgroup matrices; the H200 run compares the real one,
// bench/h200/run.sh mma), so this checks the
// decoder wiring: weights blocked per conv, the pack reading x / the cache ring / gamma with the conv's
// params, the shared operand copy, the packed cache rings (t-2, t-1 read by the GEMM, t copied in after it),
// in-place residuals, fused norm (its statistics computed by the packs: no rms-norm statistics pass), the upsample
// Conv2ds as four output phases of their low-resolution input (plan/conv-form.ts upPhases, the default). Generated Wan2.1 decoder (dim 16 so
// that every level has >= 16 channels), 2x2x3 latent, f16 storage, planned with tensorCores (the plan
// counts the operand copy: allocated = planned), against the portable f16 decode:
// PSNR >= 60 dB (lavapipe, 2026-12-02: 68.1 dB with norm full, where the straight-line GEMM's cb-tap
// order sums the products in another order than conv3d; 66.5 dB with norm fused, where the pack also
// rounds the normalised operand to f16; 69.5 dB with two exact tiles).
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type TileOption } from '../../src/plan/planner';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { compare } from '../helpers/compare';
import { isBrowser } from '../helpers/env';
import { getTestDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';

const gpu = await getTestDevice();

interface Case {
  norm: 'full' | 'fused';
  /** latent width (height 2, 2 latent frames) */
  w: number;
  tile?: TileOption;
  cacheOffload?: boolean;
  /** conv weights streamed through a 2-slot ring (the blocked f16 weights and the 16-tap phase weights written per group) */
  stream?: boolean;
}

async function decodeWith(mma: boolean, c: Case): Promise<{ video: Float32Array; operands: number; statsSteps: number; phaseSteps: number }> {
  const weights = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 3 });
  const cfg = inferConfig(weights);
  const T = 2,
    h = 2,
    w = c.w;
  const base = {
    frames: T,
    h,
    w,
    cache: 'on',
    precision: 'f16',
    norm: c.norm,
    tile: c.tile,
    cacheOffload: c.cacheOffload,
    ...(c.stream ? { weightsStream: true, weightsStreamSlots: 2 } : {}),
  } as const;
  // (upPhases: the upsample Conv2ds as four phases, plan/conv-form.ts upPhases; the default, asked for here by name)
  const p = plan(cfg, { ...base, tensorCores: mma, upPhases: mma });
  if (c.stream) expect(p.weightStream?.slots).toBe(2);
  // the plan counts the operand copy: what it adds over the same plan without tensor cores
  const operands = p.memory.activations - plan(cfg, base).memory.activations;
  // --norm fused: the RMS statistics passes left (on tensor cores the packs compute them: conv-form.ts assignStatsInPack)
  const statsSteps = Object.values(p.programs)
    .flat()
    .flatMap((pp) => pp.prog.steps)
    .filter((s) => s.kind === 'norm' && s.stats).length;
  const phaseSteps = Object.values(p.programs)
    .flat()
    .flatMap((pp) => pp.prog.steps)
    .filter((s) => s.kind === 'conv' && s.phases).length;
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info), mma: mma ? { subgroupSize: 32, emulate: true } : null });
  const frames: Float32Array[] = [];
  // planned = allocated, operand copy included
  expect(dec.arena.bytes.activations).toBe(p.memory.activations);
  expect(dec.arena.bytes.total).toBe(p.memory.total);
  try {
    await dec.decode(syntheticLatents(16, T, h, w), (f) => void frames.push(f.rgb));
  } finally {
    dec.dispose();
  }
  const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  let o = 0;
  for (const f of frames) {
    out.set(f, o);
    o += f.length;
  }
  return { video: out, operands, statsSteps, phaseSteps };
}

const cases: [string, Case][] = [
  ['norm full', { norm: 'full', w: 3 }],
  ['norm fused', { norm: 'fused', w: 3 }],
  // two exact tiles, tile-major, the latent-rate store in CPU memory: the pack reads tile tensors
  ['norm full, 2 exact tiles, CPU store', { norm: 'full', w: 4, tile: { th: 2, tw: 2, mode: 'exact', order: 'tile-major', store: 'cpu' } }],
  // frame-major tiles with their rings parked in CPU memory: the packed rings go out and back, and the tile
  // starts of the program moved where the statistics steps were dropped (each tile one submission)
  ['norm fused, 2 frame-major exact tiles, cache offload', { norm: 'fused', w: 4, tile: { th: 2, tw: 2, mode: 'exact', order: 'frame-major' }, cacheOffload: true }],
  // streamed weights: each group's weights written into its ring slot inside the run (the phase weights by their own key and size)
  ['norm fused, weights streamed', { norm: 'fused', w: 3, stream: true }],
];

describe('decode with the tensor-core conv path (emulated GEMM)', () => {
  it.skipIf(isBrowser).for(cases)('%s: equals the portable f16 decode (PSNR >= 60 dB)', async ([label, c], ctx) => {
    needF16(ctx, gpu);
    const ref = await decodeWith(false, c);
    const mma = await decodeWith(true, c);
    const got = mma.video;
    // the path really ran: an operand copy was planned and allocated (none without tensor cores)
    expect(ref.operands).toBe(0);
    expect(mma.operands).toBeGreaterThan(0);
    // the three upsample Conv2ds (upsamples.3, .7, .11) ran as their four phases
    expect(ref.phaseSteps).toBe(0);
    expect(mma.phaseSteps).toBeGreaterThanOrEqual(3);
    if (c.norm === 'fused') {
      expect(ref.statsSteps).toBeGreaterThan(0);
      expect(mma.statsSteps).toBe(0);
    }
    const cmp = compare(got, ref.video);
    console.info(`mma-emu decode ${label}: max|err| ${cmp.maxAbs.toExponential(2)}, PSNR ${cmp.psnr.toFixed(1)} dB vs portable f16 (operand copy ${mma.operands} B)`);
    expect(got.length).toBe(ref.video.length);
    expect(cmp.psnr).toBeGreaterThanOrEqual(60);
  });
});
