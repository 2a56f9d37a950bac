// The pipelines a decode compiles (docs/performance.md "Pipeline variants and the empty-cache start-up").
// Counted without a GPU from the plans of the H200 adapter profile (`wan-vae shaders --adapter h200`:
// src/node/shaders-cli.ts planShaders, the step-kind table's kernels with their constants), for the
// tensor-core plans whose kernels carry the conv's form in Params (src/kernels/conv3d-mma.ts MMA_FORM):
// one pack, one pack-norm, one GEMM per (tile shape, KS, KT, RING): the GEMM bakes its temporal loops
// (shaders/conv3d-mma-common.wgsl). How a regression fails: another value of MMA_FORM baked into the text,
// or a new constant, gives more keys than counted here. The mechanism itself
// (gpu/kernel.ts): a uniform is written into its Params field from the overrides, is no part of the
// pipeline key, may not be declared in the WGSL; the pipeline cache compiles keys whose text and bindings
// are equal once (GPU: Dawn + lavapipe here).
import { describe, expect, it } from 'vitest';
import { encodeParams, pipelineKey, specializedSource, type KernelDef } from '../../src/gpu/kernel';
import { conv3dMmaPack, conv3dMmaPackNorm, MMA_FORM, MMA_PARAMS } from '../../src/kernels/conv3d-mma';
import { mmaGemm } from '../../src/kernels/conv3d-mma-flat';
import { conv3dTiled } from '../../src/kernels/conv3d-tiled';
import { TILED_GPU } from '../../src/plan/conv-form';
import { planFromFlags, planShaders } from '../../src/node/shaders-cli';
import { needGpu } from '../helpers/need';

// [plan, flags, pipelines before MMA_FORM travelled in Params (H200 release 2026-12-02, 0288184), now]
// (8 / 8 / 9 with KT and RING as uniforms too, 79fde42); 720x1280 + 1 since its attention splits the keys in 4 ranges
// (b01e56d: attention-combine added); the same with the upsample Conv2ds' four phases (plan/conv-form.ts upPhases,
// not the default yet): their GEMM conv3d-mma-flat-cb-tap-3x2-up2 takes the place of the KT 1 KS 3 GEMM only they ran
const PLANS: [string, Record<string, string>, number, number][] = [
  ['Wan2.1 480x832x81 f16 tensor cores', { adapter: 'h200', precision: 'f16' }, 16, 10],
  ['Wan2.1 720x1280x81 f16 tensor cores', { adapter: 'h200', precision: 'f16', size: '720x1280' }, 16, 11],
  ['Wan2.2 704x1280x121 f16 tensor cores', { adapter: 'h200', precision: 'f16', vae: '2.2', size: '704x1280', frames: '121' }, 18, 11],
];

describe('pipelines of the tensor-core plans (H200 adapter profile)', () => {
  it.each(PLANS)('%s', async (name, flags, before, now) => {
    const { plan, target } = await planFromFlags(flags);
    expect(plan.opts.tensorCores).toBe(true);
    const shaders = planShaders(plan, target);
    const per = new Map<string, string[]>();
    for (const s of shaders) per.set(s.def.id, [...(per.get(s.def.id) ?? []), s.key]);
    console.log(`${name}: ${shaders.length} pipelines (were ${before}): ${[...per].map(([k, v]) => `${k} x${v.length}`).join(', ')}`);
    expect(shaders.length).toBe(now);
    // one operand copy of each kind for every conv of the decode
    expect(per.get('conv3d-mma-pack')).toHaveLength(1);
    expect(per.get('conv3d-mma-pack-norm')).toHaveLength(1);
    // GEMMs: one per tile shape (its id), KS, KT and RING, nothing else baked but the subgroup size and layout
    for (const s of shaders.filter((x) => x.def.id.startsWith('conv3d-mma-flat'))) expect(s.key).toMatch(/\|f16\|KS=[13],KT=[13],RING=[01],ROWS_OUTER=0,SG=32$/);
    // no two keys of the plan compile the same text
    expect(new Set(shaders.map((s) => s.compiledAs)).size).toBe(shaders.length);
    // the later chunks' program adds no pipeline but GEMMs reading a packed cache ring (RING=1), which the
    // first chunk (no cache yet) cannot use (compiled beside chunk 0; 363a42e: frame 0 does not wait for them)
    const first = new Set(planShaders({ ...plan, programs: { first: plan.programs.first } } as typeof plan, target).map((s) => s.key));
    const later = shaders.filter((s) => !first.has(s.key)).map((s) => s.key);
    for (const k of later) expect(k).toMatch(/^conv3d-mma-flat-.*\|KS=[13],KT=3,RING=1,/);
    expect(later.length).toBeLessThanOrEqual(1);
  });
});

// the stock plan (no subgroup matrices): conv3d-tiled carries KT and HAS_RES in Params, the Winograd kernels
// what their code uses only as scalar arithmetic or a branch (winograd-in KT and UP, winograd-u KT,
// winograd-out HAS_RES; src/kernels/winograd.ts WINO_PARAMS): 23 compiles before (5288a16), 16 now
describe('pipelines of the stock plan (H200 adapter profile, tensor cores off)', () => {
  it('Wan2.1 480x832x81 f32: one conv3d-tiled pipeline per tile shape and KS, one winograd-in, -u and -out per tile size', async () => {
    const { plan, target } = await planFromFlags({ adapter: 'h200', 'tensor-cores': 'off' });
    expect(plan.opts.tensorCores).toBe(false);
    const shaders = planShaders(plan, target);
    // (conv3d-tiled bakes UP: its im2col addressing)
    for (const [kind, carried] of [
      ['conv3d-tiled-', /HAS_RES|KT/],
      ['winograd-in', /HAS_RES|KT|UP/],
      ['winograd-u', /HAS_RES|KT|UP/],
      ['winograd-out', /HAS_RES|KT|UP/],
    ] as const) {
      const ks = shaders.filter((s) => s.def.id.startsWith(kind));
      expect(ks.length).toBeGreaterThan(0);
      expect(new Set(ks.map((s) => `${s.def.id}|${/KS=\d/.exec(s.key)?.[0]}`)).size).toBe(ks.length);
      for (const s of ks) expect(s.key).not.toMatch(carried);
    }
    expect(new Set(shaders.map((s) => s.compiledAs)).size).toBe(16);
  });

  it('conv3d-tiled: KT and the residual form are no part of the key and are written into kt and has_res', () => {
    const def = conv3dTiled(TILED_GPU.c96p64);
    expect(pipelineKey(def, { HAS_RES: 0, KS: 1, KT: 1 }, 'f32')).toBe(pipelineKey(def, { HAS_RES: 2, KS: 1, KT: 3 }, 'f32'));
    expect(pipelineKey(def, { KS: 1 }, 'f32')).not.toBe(pipelineKey(def, { KS: 3 }, 'f32'));
    const p = { cin: 96, cout: 96, h: 6, w: 20, x_off: 1, prev2_off: 2, prev1_off: 3, res_off: 4, y_off: 5, tap0: 0 };
    expect([...new Uint32Array(encodeParams(def, p, { KT: 1, HAS_RES: 1 }).buffer)]).toEqual([...Object.values(p), 1, 1]);
    expect(() => def.dispatch(p, { HAS_RES: 3 })).toThrow(/HAS_RES must be 0, 1/);
    expect(() => def.dispatch(p, { KT: 2 })).toThrow(/KT must be 1 or 3/);
  });
});

describe('uniform overrides (KernelDef uniforms, ParamDef override)', () => {
  const p = { cin: 96, cout: 96, h: 6, w: 20, x_off: 1, prev2_off: 2, prev1_off: 3, res_off: 4, y_off: 5, tap0: 2 };

  it('are written into their Params fields, in MMA_PARAMS order, from the given overrides (defaults from MMA_FORM)', () => {
    const bytes = encodeParams(conv3dMmaPack, p, { KT: 1, UP: 1, NORM: 1, SILU: 1 });
    const u = new Uint32Array(bytes.buffer);
    expect(MMA_PARAMS.map((x) => x.name)).toEqual([...Object.keys(p), 'kt', 'ks', 'up', 'norm', 'silu', 'ring', 'has_res']);
    expect([...u.subarray(0, 10)]).toEqual(Object.values(p));
    expect([...u.subarray(10, 17)]).toEqual([1, MMA_FORM.KS, 1, 1, 1, MMA_FORM.RING, MMA_FORM.HAS_RES]);
    // a caller that forgets the overrides would write the defaults: refused
    expect(() => encodeParams(conv3dMmaPack, p)).toThrow(/carry overrides/);
  });

  it('are no part of the pipeline key, and a baked override still is', () => {
    const gemm = mmaGemm(p, 3, false);
    expect(pipelineKey(conv3dMmaPack, { KT: 1, RING: 0 }, 'f16')).toBe(pipelineKey(conv3dMmaPack, { KT: 3, RING: 1, UP: 1 }, 'f16'));
    expect(pipelineKey(gemm, { KT: 3, HAS_RES: 0, RING: 1, UP: 0 }, 'f16')).toBe(pipelineKey(gemm, { KT: 3, HAS_RES: 2, RING: 1, UP: 1 }, 'f16'));
    expect(pipelineKey(gemm, { KS: 1 }, 'f16')).not.toBe(pipelineKey(gemm, { KS: 3 }, 'f16'));
    expect(pipelineKey(gemm, { KT: 1 }, 'f16')).not.toBe(pipelineKey(gemm, { KT: 3 }, 'f16'));
    expect(pipelineKey(gemm, { RING: 1 }, 'f16')).not.toBe(pipelineKey(gemm, { RING: 0 }, 'f16'));
    expect(specializedSource(conv3dMmaPackNorm, { SILU: 1 }, 'f16')).toBe(specializedSource(conv3dMmaPackNorm, { SILU: 0, KT: 1 }, 'f16'));
  });

  it('may not be declared as overrides in the WGSL', () => {
    const bad: KernelDef<typeof p> = { ...conv3dMmaPack, id: 'bad-pack', wgsl: `${conv3dMmaPack.wgsl}\noverride SILU: u32 = 0;\n` };
    expect(() => specializedSource(bad, {}, 'f32')).toThrow(/SILU is carried in Params/);
  });
});

describe('PipelineCache', () => {
  it('compiles keys with the same text and bindings once, others apart', async (ctx) => {
    const { device } = await needGpu(ctx);
    const { PipelineCache } = await import('../../src/gpu/kernel');
    const cache = new PipelineCache(device);
    const wgsl = `alias Elem = f32;
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;
override K: u32 = 1;
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < prm.n) { y[g.x] = Elem(2u); } }
`;
    const base = {
      bindings: [{ name: 'y', access: 'read_write' }],
      params: [{ name: 'n', type: 'u32' }],
      overrides: { K: 1 },
      dispatch: () => [1, 1, 1],
      cost: () => ({ flops: 0, bytes: 0 }),
    } as const;
    const a = { ...base, id: 'twin-a', wgsl } as unknown as KernelDef<{ n: number }>;
    // b: another kernel id with the same text (K = 1 written in) and bindings: one compile; K = 2: another text
    const b = { ...a, id: 'twin-b' };
    const [pa, pb, pk] = await Promise.all([cache.get(a, {}, 'f32'), cache.get(b, {}, 'f32'), cache.get(a, { K: 2 }, 'f32')]);
    expect(pb).toBe(pa);
    expect(pk).not.toBe(pa);
    expect(cache.times.map((t) => t.key)).toEqual([pipelineKey(a, {}, 'f32'), pipelineKey(a, { K: 2 }, 'f32')]);
    expect(cache.sharedKey(b, {}, 'f32')).toBe(pipelineKey(a, {}, 'f32'));
    // the bind-group layout is shared by bindings: a group made for b's layout works with a's pipeline
    expect(cache.bindGroupLayout(b)).toBe(cache.bindGroupLayout(a));
  });
});
