// The tensor-core attention inside a whole decode (src/runtime/exec/step-kernels.ts asks attentionMmaFor on
// tensor-core f16 plans): a generated Wan2.1 decoder of dim 16 (middle block C 64), latent 2x4x4 (N 16), f16,
// tensorCores on with the GEMMs emulated, decoded with the attention on attention-mma (emulated; its choice made
// here as a measured table would make it, ATTENTION_MMA_MEASURED being empty) and with shaders/attention.wgsl:
// PSNR >= 60 dB between the two, and the attention-mma pipeline really asked for. This checks the wiring
// (bindings, params, subgroup-size override, the pipeline built with the plan's), not the matrix builtins.
import { describe, expect, it, vi } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan } from '../../src/plan/planner';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import type { AttentionMmaShape } from '../../src/kernels/attention-mma';
import { compare } from '../helpers/compare';
import { getTestDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';

const SHAPE: AttentionMmaShape = { ct: 2, kb: 1, stage: true, dc: 16, oRow: true };
const chosen: string[] = [];
let useMma = false;
vi.mock(import('../../src/kernels/attention-mma'), async (orig) => {
  const m = await orig();
  return {
    ...m,
    attentionMmaFor: (p: { c: number; n: number }, emulate: boolean) => {
      const d = useMma ? m.attentionMmaFor(p, emulate, { [p.c]: SHAPE }) : null;
      if (d) chosen.push(d.id);
      return d;
    },
  };
});

const gpu = await getTestDevice();

async function decode(mma: boolean): Promise<Float32Array> {
  useMma = mma;
  const weights = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 5 });
  const cfg = inferConfig(weights);
  const [T, h, w] = [2, 4, 4];
  const p = plan(cfg, { frames: T, h, w, cache: 'on', precision: 'f16', tensorCores: true });
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info), mma: { subgroupSize: 32, emulate: true } });
  const frames: Float32Array[] = [];
  try {
    await dec.decode(syntheticLatents(16, T, h, w), (f) => void frames.push(f.rgb.slice()));
  } finally {
    dec.dispose();
  }
  const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  let o = 0;
  for (const f of frames) {
    out.set(f, o);
    o += f.length;
  }
  return out;
}

describe('decode with the attention on tensor cores (emulated)', () => {
  it('equals the decode with shaders/attention.wgsl (PSNR >= 60 dB)', async (ctx) => {
    needF16(ctx, gpu);
    const ref = await decode(false);
    expect(chosen).toEqual([]);
    const got = await decode(true);
    expect(chosen.length).toBeGreaterThan(0);
    expect(new Set(chosen)).toEqual(new Set(['attention-mma-1p-2x1-s16-or-emu']));
    const cmp = compare(got, ref);
    console.info(`attention-mma-emu decode: max|err| ${cmp.maxAbs.toExponential(2)}, PSNR ${cmp.psnr.toFixed(1)} dB vs the portable attention`);
    expect(got.length).toBe(ref.length);
    expect(cmp.psnr).toBeGreaterThanOrEqual(60);
  });
});
