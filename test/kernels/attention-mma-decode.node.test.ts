// The tensor-core attention inside a whole decode (the planner and src/runtime/exec/step-kernels.ts ask
// attentionMmaShapeFor on tensor-core f16 plans): a generated Wan2.1 decoder of dim 16 (middle block C 64), latent
// 2x4x8 (N 32: two key ranges of 16 at kb 1), f16, tensorCores on with the GEMMs emulated, decoded with the attention on attention-mma (emulated;
// its shape chosen here as a measured table would choose it, the shipped table having no C 64), unsplit and split
// over keys (the plan then holds the split's tensors, plan/attention-form.ts, and attention-combine runs after it),
// and split on the tile-order copy of qkv (attention-pack before it),
// and with shaders/attention.wgsl: PSNR >= 60 dB between them, and the pipelines really asked for. This checks the
// wiring (bindings, params, subgroup-size override, the split's tensors and uniform slot), not the matrix builtins.
import { describe, expect, it, vi } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan } from '../../src/plan/planner';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import type { AttentionMmaShape } from '../../src/kernels/attention-mma-measured';
import { compare } from '../helpers/compare';
import { getTestDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';

let shape: AttentionMmaShape | null = null;
vi.mock(import('../../src/kernels/attention-mma-measured'), async (orig) => {
  const m = await orig();
  return { ...m, attentionMmaShapeFor: (p: { c: number; n: number }) => (shape ? m.attentionMmaShapeFor(p, { [p.c]: [{ minN: 0, shape }] }) : null) };
});

const gpu = await getTestDevice();

/** The decode with attention shape `sh` (null: shaders/attention.wgsl), the ids of the attention pipelines compiled, the plan's split and packed copy. */
async function decode(sh: AttentionMmaShape | null): Promise<{ rgb: Float32Array; ids: string[]; split: unknown; packed: unknown }> {
  shape = sh;
  const weights = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 5 });
  const cfg = inferConfig(weights);
  const [T, h, w] = [2, 4, 8];
  const p = plan(cfg, { frames: T, h, w, cache: 'on', precision: 'f16', tensorCores: true });
  const attn = Object.values(p.programs)
    .flatMap((pp) => pp!.flatMap((x) => x.prog.steps))
    .find((s) => s.kind === 'attn');
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info), mma: { subgroupSize: 32, emulate: true } });
  const frames: Float32Array[] = [];
  const ids: string[] = [];
  try {
    await dec.decode(syntheticLatents(16, T, h, w), (f) => void frames.push(f.rgb.slice()));
    // the build's events name every pipeline compiled ('pipeline <key>')
    ids.push(...dec.build.events.flatMap((e) => (e.what.startsWith('pipeline attention') ? [e.what.slice('pipeline '.length).split('|')[0]!] : [])));
  } finally {
    dec.dispose();
  }
  const rgb = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  let o = 0;
  for (const f of frames) {
    rgb.set(f, o);
    o += f.length;
  }
  return { rgb, ids, split: attn && 'split' in attn ? attn.split : undefined, packed: attn && 'packed' in attn ? attn.packed : undefined };
}

describe('decode with the attention on tensor cores (emulated)', () => {
  it('unsplit and split over keys: each equals the decode with shaders/attention.wgsl (PSNR >= 60 dB)', async (ctx) => {
    needF16(ctx, gpu);
    const ref = await decode(null);
    expect(ref.split).toBeUndefined();
    for (const [sh, want] of [
      [{ ct: 2, kb: 1, stage: true, dc: 16, oRow: true }, ['attention-mma-1p-2x1-s16-or-emu']],
      [{ ct: 2, kb: 1, split: 2 }, ['attention-mma-1p-2x1-k2-emu', 'attention-combine']],
      [{ ct: 2, kb: 1, packed: true, split: 2 }, ['attention-pack', 'attention-mma-1p-2x1-k2-p-emu', 'attention-combine']],
    ] as const) {
      const got = await decode(sh);
      for (const id of want) expect(got.ids, `${id} asked for`).toContain(id);
      expect(got.split === undefined).toBe(!('split' in sh));
      expect(got.packed === undefined).toBe(!('packed' in sh));
      const cmp = compare(got.rgb, ref.rgb);
      console.info(`${want.join(' + ')} decode: max|err| ${cmp.maxAbs.toExponential(2)}, PSNR ${cmp.psnr.toFixed(1)} dB vs the portable attention`);
      expect(got.rgb.length).toBe(ref.rgb.length);
      expect(cmp.psnr).toBeGreaterThanOrEqual(60);
    }
  });
});
