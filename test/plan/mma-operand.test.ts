// The tensor-core operand copy in the plan (src/plan/planner.ts with tensorCores): counted in the
// activations AND as a binding (exec/resources.ts binds it whole to conv3d-mma-pack and the GEMM), so a
// decode whose copy exceeds maxStorageBufferBindingSize fails planning with a clear 'limits' error (and
// fitPlan tiles it) instead of a WebGPU validation error at bind-group creation: Wan2.2 704x1280 whole
// frames in f16 failed that way on the H200 (2026-12-01, "CreateBindGroup conv2"). Shapes only, no GPU.
import { describe, expect, it } from 'vitest';
import { mmaFrameElems, mmaScratchElems } from '../../src/kernels/conv-layout';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { fitPlan } from '../../src/plan/auto';
import { checkLimits, plan } from '../../src/plan/planner';
import { mmaScratchOf } from '../../src/plan/step-kinds';
import { WanVaeDecoder } from '../../src/decoder';

const wan21 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
const wan22 = inferConfig(syntheticWeights(OFFICIAL['2.2'], { values: false }));
const H200 = { maxStorageBufferBindingSize: 2 ** 31 - 4, maxBufferSize: 2 ** 40 };

describe('tensor-core operand copy in the plan', () => {
  it('Wan2.1 480x832: the copy is one frame of a 96-channel conv at 480x832, counted once; cached convs keep packed rings', () => {
    const base = { frames: 21, h: 60, w: 104, cache: 'on', precision: 'f16' } as const;
    const off = plan(wan21, base),
      on = plan(wan21, { ...base, tensorCores: true, upPhases: true });
    // the cached 3x3x3 convs pack frame t alone (t-2, t-1 sit packed in their rings: conv-form.ts packedRing), and the
    // 192->96 upsample conv packs its 240x416 input (four phases: conv-form.ts upPhases), so the largest copy is one
    // frame of the 96-channel convs, not three of them (231.5 MB) nor the upsampled 192-channel frame (154.4 MB)
    const copy = 2 * mmaScratchElems({ cin: 96, cout: 96, h: 480, w: 832 }, 1, 3);
    // a wrong layout size (e.g. the three x-shifted copies of before: 3x) or a second copy fails this
    expect(on.memory.activations - off.memory.activations).toBe(copy);
    expect(copy).toBe(6 * 482 * 834 * 16 * 2);
    // the default is the phases; upPhases: false runs the upsampled 3x3 GEMM, whose copy is then the largest
    expect(plan(wan21, { ...base, tensorCores: true }).memory.activations).toBe(on.memory.activations);
    const direct = plan(wan21, { ...base, tensorCores: true, upPhases: false });
    expect(direct.memory.activations - off.memory.activations).toBe(2 * mmaScratchElems({ cin: 192, cout: 96, h: 480, w: 832 }, 1, 3));
    expect(on.largestBinding).toBeGreaterThanOrEqual(copy);
    // every ring of a tensor-core 3-tap conv holds two packed frames; the cache grows only by their padding
    const packed = on.rings.filter((r) => r.label.endsWith('.residual.2') || r.label.endsWith('.residual.6') || r.label === 'decoder.head.2');
    expect(packed.length).toBeGreaterThan(20);
    for (const r of packed) expect(r.bytes % (2 * 2 * 16)).toBe(0);
    const head = on.rings.find((r) => r.label === 'decoder.head.2')!;
    expect(head.bytes).toBe(2 * 2 * mmaFrameElems({ cin: 96, cout: 3, h: 480, w: 832 }, 3));
    expect(on.memory.cache / off.memory.cache).toBeGreaterThan(1);
    expect(on.memory.cache / off.memory.cache).toBeLessThan(1.03);
  });
  it('tensor cores are the default for f16 plans (tensorCores: false opts out; f32 never; int8 weights dequantised per conv)', () => {
    // a default still off (or on for f32 storage) fails one of these
    const dec = new WanVaeDecoder(syntheticWeights(OFFICIAL['2.1'], { values: false }));
    const shape: [number, number, number, number] = [16, 3, 60, 104];
    expect(dec.plan(shape, { precision: 'f16' }).opts.tensorCores).toBe(true);
    expect(dec.plan(shape, { precision: 'f16', tensorCores: false }).opts.tensorCores).toBe(false);
    expect(dec.plan(shape, { precision: 'f32' }).opts.tensorCores).toBe(false);
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8' }).opts.tensorCores).toBe(true);
    // against the direct portable conv: without tensor cores f16 plans may run Winograd, whose scratch differs
    const copy = dec.plan(shape, { precision: 'f16' }).memory.activations - dec.plan(shape, { precision: 'f16', tensorCores: false, conv: 'direct' }).memory.activations;
    expect(copy).toBe(2 * mmaScratchElems({ cin: 96, cout: 96, h: 480, w: 832 }, 1, 3));
  });
  it('Wan2.2 latent 88x160 (1408x2560 video): the copy counts as a binding, so a plan binding more than the limit is refused and fitPlan tiles it', () => {
    const base = { frames: 31, h: 88, w: 160, cache: 'on', precision: 'f16' } as const;
    const on = plan(wan22, { ...base, tensorCores: true });
    const steps = Object.values(on.programs)
      .flat()
      .flatMap((pp) => pp.prog.steps);
    expect(on.largestBinding).toBeGreaterThanOrEqual(2 * mmaScratchOf(steps));
    // whole frames bound 2.78 GB here (three frames of the 512->256 conv at 704x1280) until the cached convs
    // kept packed rings (conv-form.ts packedRing): now under the H200's 2 GiB, as without tensor cores
    expect(() => checkLimits(on, H200)).not.toThrow();
    expect(() => checkLimits(plan(wan22, base), H200)).not.toThrow();
    const small = { ...H200, maxStorageBufferBindingSize: 2 ** 30 };
    expect(on.largestBinding).toBeGreaterThan(small.maxStorageBufferBindingSize);
    expect(() => checkLimits(on, small)).toThrow(/maxStorageBufferBindingSize/);
    const { precision: _p, ...fitBase } = base;
    const fit = fitPlan(wan22, { ...fitBase, tensorCores: true }, { limits: small, precisions: ['f16'], tile: 'auto' });
    expect(fit.plan.opts.tensorCores).toBe(true);
    expect(fit.plan.tiles?.length).toBeGreaterThan(1);
    expect(fit.plan.largestBinding).toBeLessThanOrEqual(small.maxStorageBufferBindingSize);
  });
  it("norm auto on tensor cores tries 'fused' first (faster there and smallest); elsewhere the order given", () => {
    // a search that kept full first on tensor cores (5.56 vs 4.60 s cold on the H200), or that put fused
    // first for f32 / portable plans or where the caller allowed only full, fails one of these
    const base = { frames: 21, h: 60, w: 104, cache: 'on' } as const;
    const req = { limits: H200, tile: 'none', norms: ['full', 'chunked', 'fused'] } as const;
    expect(fitPlan(wan21, { ...base, tensorCores: true }, { ...req, precisions: ['f16'], norms: [...req.norms] }).plan.opts.norm).toBe('fused');
    expect(fitPlan(wan21, { ...base, tensorCores: false }, { ...req, precisions: ['f16'], norms: [...req.norms] }).plan.opts.norm).toBe('full');
    expect(fitPlan(wan21, { ...base, tensorCores: true }, { ...req, precisions: ['f32'], norms: [...req.norms] }).plan.opts.norm).toBe('full');
    expect(fitPlan(wan21, { ...base, tensorCores: true }, { ...req, precisions: ['f16'], norms: ['full', 'chunked'] }).plan.opts.norm).toBe('full');
  });
});
