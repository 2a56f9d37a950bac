// The demo's time estimate: the decode's flops from a plan on a weightless model (checked against the
// chunk structure: steady chunks equal, cache off = T first chunks; tiles' halo work; a range for Wan2.1
// 480x832x81), the adapter class, and the range shown for the calibrated rates.
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { plan } from '../../src/plan/planner';
import { adapterClass, CALIBRATION, decodeFlops, estimate, estimateFlops } from '../../src/demo/estimate';

const small = { version: '2.1' as const, dim: 16, zDim: 16, scale: 8, params: 0, source: 'x' };

describe('decode flops', () => {
  it('grow with the latent frames by one steady chunk each; cache off is T first-like chunks', () => {
    const cfg = inferConfig(syntheticWeights({ version: '2.1', dim: 16, zDim: 16 }, { values: false }));
    const f = (T: number) => decodeFlops(plan(cfg, { frames: T, h: 8, w: 8, cache: 'on', precision: 'f32' }), T);
    const steady = f(3) - f(2);
    expect(steady).toBeGreaterThan(0);
    expect(f(5) - f(4)).toBe(steady);
    expect(f(1)).toBeLessThan(steady); // the first chunk makes 1 frame, a steady one 4
    // cache off decodes each latent frame alone, as the first chunk does (zero-padded causal convs, no
    // temporal upsampling): exactly T first chunks; a count that dropped or doubled chunks fails
    const off = decodeFlops(plan(cfg, { frames: 3, h: 8, w: 8, cache: 'off', precision: 'f32' }), 3);
    expect(off).toBe(3 * f(1));
  });

  it('exact tiles add their halo work; the worker options are planned the same way', () => {
    const whole = estimateFlops(small, [16, 2, 16, 16], { cache: 'on' });
    const tiled = estimateFlops(small, [16, 2, 16, 16], { cache: 'on', tile: { th: 8, tw: 8, mode: 'exact', order: 'tile-major' } });
    expect(tiled).toBeGreaterThan(whole);
    expect(tiled).toBeLessThan(4 * whole);
  });

  it('Wan2.1 480x832 x 81: 2.5-3.0e14 flops (the H200 decode rate of the calibration)', () => {
    const cfg = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
    const fl = decodeFlops(plan(cfg, { frames: 21, h: 60, w: 104, cache: 'on', precision: 'f32' }), 21);
    expect(fl).toBeGreaterThan(2.5e14);
    expect(fl).toBeLessThan(3.0e14);
  });
});

describe('adapter class and range', () => {
  it('classes from the probe', () => {
    expect(adapterClass({ available: true, fallback: true, description: 'google / swiftshader' }, 'webgpu')).toBe('software');
    expect(adapterClass({ available: true, fallback: false, description: 'mesa / llvmpipe' }, 'webgpu')).toBe('software');
    expect(adapterClass({ available: true, fallback: false, description: 'nvidia / hopper' }, 'webgpu')).toBe('discrete');
    expect(adapterClass({ available: true, fallback: false, description: 'apple / metal-3' }, 'webgpu')).toBe('integrated');
    expect(adapterClass({ available: true, fallback: false, description: 'nvidia / hopper' }, 'cpu')).toBe('cpu-reference');
  });

  it('seconds = flops / rate at both ends; long software decodes warn', () => {
    const e = estimate(9e9, 'software');
    expect(e.seconds[0]).toBeCloseTo(9 / CALIBRATION.software[1], 6);
    expect(e.seconds[1]).toBeCloseTo(9 / CALIBRATION.software[0], 6);
    expect(e.warn).toBe(false);
    expect(estimate(2.75e14, 'software').warn).toBe(true);
    expect(estimate(2.75e14, 'discrete').warn).toBe(false);
  });
});
