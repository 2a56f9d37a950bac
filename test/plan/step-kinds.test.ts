// The step-kind table (src/plan/step-kinds.ts) agrees with itself and with the kernels, for every step
// of small plans (both versions, every norm mode, whole frames, tile-major and frame-major tiles, cache
// on and off, tensor cores on and off), without a GPU: each kernel gets one binding per binding of its
// KernelDef and every param its struct names (a record that bound one buffer too few, or forgot a param,
// fails here instead of as a WebGPU validation error mid-decode); the dispatch count equals the params
// list; the ring push and store write read a view the step lists (so the planner keeps it alive); every
// weight key exists in the weights, with the element count the planner charges.
import { describe, expect, it } from 'vitest';
import type { AnyKernelDef } from '../../src/gpu/kernel';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { syntheticWeights } from '../../src/model/synthetic';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { kindOf } from '../../src/plan/step-kinds';
import { planStepKernels } from '../../src/runtime/exec/plan-kernels';

// The checks below run for every step of every plan (~10^5 of them): each is made in plain JS and goes
// through vitest's expect (same matcher, same message) only where it fails, which keeps the file at
// seconds instead of a minute of assertion overhead.
function is(actual: unknown, expected: unknown, label: () => string): void {
  if (!Object.is(actual, expected)) expect(actual, label()).toBe(expected);
}
function has(obj: object, key: string, label: () => string): void {
  if (!Object.prototype.hasOwnProperty.call(obj, key) || (obj as Record<string, unknown>)[key] === undefined || key.includes('.') || key.includes('[')) expect(obj, label()).toHaveProperty(key);
}
function contains(list: readonly unknown[], item: unknown, label: () => string): void {
  if (!list.includes(item)) expect(list, label()).toContain(item);
}

const CASES = [
  { version: '2.1', dim: 4, zDim: 4 },
  { version: '2.2', dim: 4, zDim: 8 },
] as const;

describe.each(CASES)('step-kind table, Wan$version', (spec) => {
  const weights = syntheticWeights({ ...spec, seed: 3 });
  const cfg = inferConfig(weights);
  const tiles = [undefined, { th: 2, tw: 2, mode: 'exact', order: 'tile-major' } as const, { th: 2, tw: 3, mode: 'blend', order: 'frame-major' } as const];
  const plans = (['full', 'chunked', 'fused'] as const).flatMap((norm) =>
    tiles.flatMap((tile) =>
      (spec.version === '2.1' ? (['on', 'off'] as const) : (['on'] as const)).map((cache) => {
        const o: PlanOptions = { frames: 3, h: 4, w: 5, cache, precision: 'f16', norm, normChunk: 7, tile, rgba: true };
        return plan(cfg, o);
      }),
    ),
  );

  it.each([
    ['portable convs', null],
    ['tensor cores', { subgroupSize: 32 }],
  ] as const)('every step, %s: bindings, params, dispatches, ring/store sources and weights agree', (_n, mma) => {
    let steps = 0;
    // tensor cores run where the plan records them (src/plan/conv-form.ts): plans made with tensorCores
    for (const p of mma ? plans.map((q) => plan(cfg, { ...q.opts, tensorCores: true })) : plans)
      for (const { pp, step: s, kernels } of planStepKernels(p, { tuning: conv3dTuning.cpu, maxInvocations: 256, mma })) {
        steps++;
        const kind = kindOf(s);
        const label = () => `${pp.prog.name} ${pp.prog.kind} ${s.label}`;
        const params = kind.params(s, () => 1);
        is(params.length, kind.dispatches(s), label);
        for (const k of kernels as { def: AnyKernelDef; bindings: unknown[]; overrides: Record<string, number> }[]) {
          is(k.bindings.length, k.def.bindings.length, () => `${label()} ${k.def.id} bindings`);
          const named = { ...k.def.overrides, ...k.def.uniforms };
          for (const f of k.def.params) {
            // a field carrying an override (gpu/kernel.ts ParamDef.override: a uniform of the conv's form) takes the
            // resolved override value, so the step's params need not give it; the KernelDef must know the name
            if (f.override) has(named, f.override, () => `${label()} ${k.def.id} param ${f.name} override`);
            else for (const prm of params) is(typeof prm[f.name], 'number', () => `${label()} ${k.def.id} param ${f.name}`);
          }
          for (const o of Object.keys(k.overrides)) has(named, o, () => `${label()} ${k.def.id} override ${o}`);
        }
        const views = kind.views(s);
        const push = kind.ringPush(s),
          sw = kind.storeWrite(s);
        if (push) contains(views, push.x, () => `${label()} ring source`);
        if (sw) contains(views, sw.x, () => `${label()} store source`);
        const pair = kind.inPlace(s);
        if (pair) for (const v of pair) contains(views, v, () => `${label()} in-place pair`);
        for (const w of kind.weights(s)) {
          const data = w.data(weights, false);
          is(data.length, w.elems, () => `${label()} ${w.key}`);
        }
      }
    expect(steps).toBeGreaterThan(100);
  });
});
