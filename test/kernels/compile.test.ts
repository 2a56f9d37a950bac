// Every kernel variant the decoder can build compiles: the (kernel, overrides, storage type) triples are
// taken from the step-kind table (src/plan/step-kinds.ts, what GpuDecoder compiles) over small plans
// of both model versions, every norm mode, whole frames and tiles from the store, cache on and off, and
// every shipped conv3d tuning; conv3d-mma's pack and GEMM where the adapter has subgroup matrices (else
// skipped with the reason), its scalar twin wherever there is shader-f16. A pipeline that does not
// compile makes PipelineCache.get reject with DecoderError 'compile' (checked below with a broken shader,
// so "it resolved" means "it compiled"); the pipeline's bind-group layout must match the KernelDef.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { pipelineKey, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { conv3dTuning, conv3dTuningForCout } from '../../src/kernels/conv3d';
import { kernels } from '../../src/kernels/index';
import { inferConfig } from '../../src/model/config';
import { syntheticWeights } from '../../src/model/synthetic';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { planStepKernels } from '../../src/runtime/exec/plan-kernels';
import type { BindCtx } from '../../src/runtime/exec/step-kernels';
import { getTestDevice } from '../helpers/gpu';
import { needDevice, needF16, notOnThisAdapter } from '../helpers/need';

const gpu = await getTestDevice();

interface Variant {
  def: AnyKernelDef;
  overrides: Record<string, number>;
  elem: Elem;
}

/** Distinct kernel variants the decoder builds for these plans, with this conv tuning and tensor-core setting. */
function variants(elem: Elem, tuning: Record<string, number>, mma: BindCtx['mma'], maxInvocations: number): Map<string, Variant> {
  const out = new Map<string, Variant>();
  const cfgs = [inferConfig(syntheticWeights({ version: '2.1', dim: 4, zDim: 4 }, { values: false })), inferConfig(syntheticWeights({ version: '2.2', dim: 4, zDim: 8 }, { values: false }))];
  for (const cfg of cfgs)
    for (const norm of ['full', 'chunked', 'fused'] as const)
      for (const tile of [undefined, { th: 2, tw: 2, mode: 'exact', order: 'tile-major' } as const])
        for (const cache of cfg.version === '2.1' ? (['on', 'off'] as const) : (['on'] as const)) {
          // the conv form is decided at plan time (plan/conv-form.ts): tensor-core contexts plan with tensor cores on
          const opts: PlanOptions = { frames: 2, h: 4, w: 4, cache, precision: elem, norm, normChunk: 5, tile, rgba: true, tensorCores: !!mma && elem === 'f16' };
          const p = plan(cfg, opts);
          for (const { kernels } of planStepKernels(p, { tuning, maxInvocations, mma }))
            for (const k of kernels) out.set(pipelineKey(k.def, k.overrides, elem), { def: k.def, overrides: k.overrides, elem });
        }
  return out;
}

const maxInv = gpu?.device.limits.maxComputeInvocationsPerWorkgroup ?? 256;
// f32: every shipped tuning whose workgroup fits this adapter; f16: the tuning the decoder picks here
const tunings = Object.entries(conv3dTuning).filter(([, t]) => conv3dTuningForCout(t, 96, maxInv).WG_N! * conv3dTuningForCout(t, 96, maxInv).WG_M! <= maxInv);
const f32 = new Map<string, Variant>();
for (const [, t] of tunings) for (const [k, v] of variants('f32', t, null, maxInv)) f32.set(k, v);
const f16 = variants('f16', conv3dTuning.cpu, null, maxInv);
// registry kernels no small plan uses (a kernel not wired into the decoder yet, or an option the plans
// above do not set): compiled with their default overrides, so every kernel is compiled at least once
for (const def of Object.values(kernels) as AnyKernelDef[]) if (![...f32.values()].some((v) => v.def.id === def.id)) f32.set(pipelineKey(def, {}, 'f32'), { def, overrides: {}, elem: 'f32' });
const list = (m: Map<string, Variant>) => [...m].map(([k, v]) => [k, v] as const);

async function compiles(v: Variant) {
  // the check is that get() resolves: a shader that does not compile, or that declares fewer or other
  // bindings than the KernelDef's explicit layout of group 0, makes it reject (the broken-shader case below
  // shows the rejection). The label says the pipeline is the one built for this variant's key (a cache
  // handing back another variant's pipeline fails here); `getBindGroupLayout(0)` is always an object, so it
  // was no check.
  const pipeline = await gpu!.cache.get(v.def, v.overrides, v.elem);
  expect(pipeline.label).toBe(pipelineKey(v.def, v.overrides, v.elem));
  expect(v.def.bindings.length).toBeGreaterThan(0);
}

describe('every kernel variant the decoder builds compiles', () => {
  it('the variant lists cover the override families of conv3d, rms-norm and output', () => {
    const convs = [...f32.values()].filter((v) => v.def.id === 'conv3d').map((v) => v.overrides);
    for (const [k, values] of [
      ['KT', [1, 3]],
      ['KS', [1, 3]],
      ['UP', [0, 1]],
      ['HAS_RES', [0, 1, 2]],
      ['NORM', [0, 1]],
      ['SILU', [0, 1]],
    ] as const)
      for (const x of values)
        expect(
          convs.some((o) => o[k] === x),
          `conv3d ${k}=${x}`,
        ).toBe(true);
    const norms = [...f32.values()].filter((v) => v.def.id === 'rms-norm').map((v) => v.overrides);
    for (const k of ['STATS', 'INPLACE', 'SILU'])
      expect(
        norms.some((o) => o[k] === 1),
        `rms-norm ${k}=1`,
      ).toBe(true);
    expect(
      [...f32.values()]
        .filter((v) => v.def.id === 'output')
        .map((v) => v.overrides.PATCH)
        .sort(),
    ).toEqual([1, 2]);
  });

  it.for(list(f32))('%s', async ([, v], ctx) => {
    needDevice(ctx, gpu);
    await compiles(v);
  });

  it.for(list(f16))('%s', async ([, v], ctx) => {
    needF16(ctx, gpu);
    await compiles(v);
  });

  it('tensor cores: conv3d-mma pack + GEMM variants (needs chromium-experimental-subgroup-matrix)', async (ctx) => {
    const g = needF16(ctx, gpu);
    if (!g.mma) notOnThisAdapter(ctx, 'the adapter offers no subgroup matrices (16x16x16 f16 -> f32): conv3d-mma cannot run here');
    const mma = variants('f16', conv3dTuning.gpu, { subgroupSize: g.mma.subgroupSize }, maxInv);
    const ids = [...mma.values()].map((v) => v.def.id);
    expect(
      ids.some((id) => id.startsWith('conv3d-mma') && !id.startsWith('conv3d-mma-pack') && !id.startsWith('conv3d-mma-emu')),
      ids.join(', '),
    ).toBe(true);
    expect(ids).toContain('conv3d-mma-pack');
    for (const v of mma.values()) await compiles(v);
  });

  it('tensor-core layouts on plain code: the emulated straight-line GEMM and the pack compile wherever there is shader-f16', async (ctx) => {
    needF16(ctx, gpu);
    const emu = variants('f16', conv3dTuning.cpu, { subgroupSize: 32, emulate: true }, maxInv);
    // the GEMM's id carries its loop order and result-tile shape (conv3d-mma-flat-cb-tap-3x2-emu)
    const ids = [...emu.values()].map((v) => v.def.id);
    expect(
      ids.some((id) => id.startsWith('conv3d-mma-flat-') && id.endsWith('-emu')),
      ids.join(', '),
    ).toBe(true);
    expect(ids).toContain('conv3d-mma-pack');
    for (const v of emu.values()) if (v.def.id.startsWith('conv3d-mma')) await compiles(v);
  });

  it('a shader that does not compile is reported as DecoderError compile (so the tests above can fail)', async (ctx) => {
    needDevice(ctx, gpu);
    const broken: AnyKernelDef = { ...kernels.crop, id: 'crop-broken', wgsl: kernels.crop.wgsl.replace(/fn main/, 'fn main oops') };
    const err = await gpu!.cache.get(broken, {}, 'f32').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('compile');
    expect(() => gpu!.cache.get(kernels.crop, { NOPE: 1 }, 'f32')).toThrow(/unknown override 'NOPE'/);
  });
});
