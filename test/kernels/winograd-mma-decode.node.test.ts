// Winograd on tensor cores inside a whole decode (form 'wino-mma', src/plan/conv-form.ts; --conv winograd with
// tensor cores): every eligible 3x3 conv (cin and cout multiples of 16) runs winograd-mma-in, the batched GEMM
// (emulated here: no CI adapter has subgroup matrices; the H200 runs the real one) and winograd-out over U made
// at upload in the GEMM's layout; the other convs run conv3d-mma's pack + GEMM (emulated). Generated Wan2.1
// decoder (dim 16: every level has >= 16 channels), 2x2x3 latent, f16, planned with tensorCores and conv
// 'winograd' (the plan counts U and the scratch: allocated = planned), against the portable f16 decode with the
// direct conv: PSNR >= 60 dB (f16 paths' bar), with norm full and fused.
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type Plan } from '../../src/plan/planner';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { compare } from '../helpers/compare';
import { getTestDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';

const gpu = await getTestDevice();

const forms = (p: Plan) =>
  Object.values(p.programs)
    .flat()
    .flatMap((pp) => pp.prog.steps)
    .filter((s) => s.kind === 'conv')
    .map((s) => (s as { form?: string }).form);

async function decodeWith(wino: boolean, norm: 'full' | 'fused'): Promise<{ video: Float32Array; forms: (string | undefined)[] }> {
  const weights = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 3 });
  const cfg = inferConfig(weights);
  const T = 2,
    h = 2,
    w = 3;
  const base = { frames: T, h, w, cache: 'on', precision: 'f16', norm } as const;
  const p = wino ? plan(cfg, { ...base, tensorCores: true, conv: 'winograd' }) : plan(cfg, { ...base, conv: 'direct' });
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info), mma: wino ? { subgroupSize: 32, emulate: true } : null });
  const frames: Float32Array[] = [];
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
  return { video: out, forms: forms(p) };
}

describe('decode with Winograd on tensor cores (emulated GEMM)', () => {
  it.for(['full', 'fused'] as const)('norm %s: equals the portable f16 decode (PSNR >= 60 dB)', async (norm, ctx) => {
    needF16(ctx, gpu);
    const ref = await decodeWith(false, norm);
    const got = await decodeWith(true, norm);
    // the form really ran: 3x3 convs as wino-mma, the rest (1x1, time convs, the 3-channel head) on conv3d-mma
    expect(got.forms.filter((f) => f === 'wino-mma').length).toBeGreaterThan(5);
    expect(got.forms.filter((f) => f === 'mma').length).toBeGreaterThan(0);
    expect(ref.forms).not.toContain('wino-mma');
    const cmp = compare(got.video, ref.video);
    console.info(`wino-mma decode norm ${norm}: max|err| ${cmp.maxAbs.toExponential(2)}, PSNR ${cmp.psnr.toFixed(1)} dB vs the portable f16 direct decode`);
    expect(got.video.length).toBe(ref.video.length);
    expect(cmp.psnr).toBeGreaterThanOrEqual(60);
  });
});
