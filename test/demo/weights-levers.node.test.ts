// The demo's weight switches (issue 14: "the demo shows them as switches"): Weights (f32|f16|int8|auto) and
// Weight streaming (off|on|auto) go from the form's options to the worker's decode options and to fitPlan's
// request as the CLI's --weights-precision / --weights-stream do, and a budget that only int8 or streamed
// weights meet is met by the plan the demo asks for.
// Why a wrong implementation fails: a mapping that dropped a set value (or sent 'auto' to the worker, which
// rejects it) fails the toWorkerOptions cases; a fitRequest without weightsPrecisions / weightsStreams lets
// fitPlan consider resident full-precision weights only, and the tight budget below then finds no plan.
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { fitPlan } from '../../src/plan/auto';
import { DEFAULT_OPTIONS, describeDecode, toWorkerOptions, type DemoOptions } from '../../src/demo/options';
import { fitRequest } from '../../src/demo/fit';
import type { GpuProbe } from '../../src/demo/gpu-probe';

const shape = [16, 3, 16, 24] as const; // latent [z, T, h, w]
const gpu: GpuProbe = { available: true, reason: '', description: 'test', fallback: false, f16: true, maxBinding: 2 ** 30, limits: { maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 30 } };
const opts = (o: Partial<DemoOptions>): DemoOptions => ({ ...DEFAULT_OPTIONS, ...o });

describe('demo weight switches', () => {
  it('default auto: the worker gets no weights option (as the precision), fitPlan may choose', () => {
    expect(DEFAULT_OPTIONS.weightsPrecision).toBe('auto');
    expect(DEFAULT_OPTIONS.weightsStream).toBe('auto');
    const w = toWorkerOptions(DEFAULT_OPTIONS, shape);
    expect(w.weightsPrecision).toBeUndefined();
    expect(w.weightsStream).toBeUndefined();
    const r = fitRequest(DEFAULT_OPTIONS, shape, gpu);
    expect(r.weightsPrecisions).toContain('int8');
    expect(r.weightsStreams).toEqual(['off', 'on']); // resident first
  });

  it('set values go to the worker as set; streaming only on the webgpu backend', () => {
    const w = toWorkerOptions(opts({ weightsPrecision: 'int8', weightsStream: 'on' }), shape);
    expect(w).toMatchObject({ weightsPrecision: 'int8', weightsStream: 'on' });
    expect(describeDecode(opts({}), { ...w, precision: 'f32', weightsStreamSlots: 3 }, shape)).toContain('int8 weights · weights streamed (3 slots)');
    const cpu = toWorkerOptions(opts({ backend: 'cpu', weightsPrecision: 'f16', weightsStream: 'on' }), shape);
    expect(cpu.weightsPrecision).toBe('f16');
    expect(cpu.weightsStream).toBeUndefined();
    expect(fitRequest(opts({ weightsStream: 'off' }), shape, gpu).weightsStreams).toEqual(['off']);
    expect(fitRequest(opts({ weightsPrecision: 'f16' }), shape, gpu).weightsPrecisions).toBeUndefined(); // the base option carries it
  });

  it('a budget below every resident f32-weights plan is met through the weights levers the demo requests', () => {
    const cfg = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false })); // official widths: 280 MiB of f32 weights dominate a small latent
    const base = { frames: shape[1], h: shape[2], w: shape[3], cache: 'on' as const };
    const weightsBytes = (p: ReturnType<typeof fitPlan>['plan']) => p.memory.weights;
    const full = fitPlan(cfg, base, { ...fitRequest(opts({ tile: 'auto', precision: 'f32', weightsPrecision: 'f32', weightsStream: 'off' }), shape, gpu) });
    const budget = Math.floor(0.9 * weightsBytes(full.plan)); // below the resident f32 weights alone: no tiling can meet it
    expect(() => fitPlan(cfg, base, { ...fitRequest(opts({ tile: 'auto', precision: 'f32', weightsPrecision: 'f32', weightsStream: 'off' }), shape, gpu), budget })).toThrow();
    const fit = fitPlan(cfg, base, { ...fitRequest(opts({ tile: 'auto', precision: 'f32', budget: budget / 2 ** 20 }), shape, gpu), budget });
    expect(fit.plan.memory.total).toBeLessThanOrEqual(budget);
    expect(weightsBytes(fit.plan)).toBeLessThan(weightsBytes(full.plan));
  });
});
