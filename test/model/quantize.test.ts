// src/model/quantize.ts on the CPU: the int8 quantiser (symmetric, per output channel), its GPU packing
// (conv3d-wq's words, read back here as the shader reads them), f16 pairs, the weight-format rule and the
// planner's byte counts per weights precision.
import { describe, expect, it } from 'vitest';
import { packConvWeight } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { convWeightFormat, dequantizeInt8, packedWeightBytes, packF16Pairs, packInt8, quantizeInt8, weightsAs } from '../../src/model/quantize';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { fromHalf, toHalf } from '../../src/runtime/f16';
import { fitPlan } from '../../src/plan/auto';
import { plan } from '../../src/plan/planner';
import { randn } from '../helpers/random';

/** What conv3d-wq's wload + wscale give for channel `o` of row `r` (the sign-extended byte q · s_o). */
function shaderView(words: Uint32Array, cout: number, rows: number, r: number, o: number): number {
  const cout4 = Math.ceil(cout / 4);
  const byte = (words[r * cout4 + (o >> 2)]! >>> (8 * (o & 3))) & 0xff;
  const q = byte >= 128 ? byte - 256 : byte;
  return q * new Float32Array(words.buffer, 4 * rows * cout4, cout)[o]!;
}

describe('int8 quantiser', () => {
  it('per output channel: max|w| maps to ±127, error <= s/2, zero channel stays zero', () => {
    const cout = 5,
      per = 3 * 27;
    const w = randn(cout * per, 1);
    for (let i = 0; i < per; i++) w[per + i]! *= 100; // channel 1 much larger: its own scale
    w.fill(0, 2 * per, 3 * per); // channel 2 all zero
    const x = quantizeInt8(w, cout);
    const back = dequantizeInt8(x);
    for (let o = 0; o < cout; o++) {
      const ch = w.subarray(o * per, (o + 1) * per);
      const max = Math.max(...ch.map(Math.abs));
      expect(x.scales[o]).toBeCloseTo(max / 127, 6);
      if (max) expect(Math.max(...x.q.subarray(o * per, (o + 1) * per).map(Math.abs))).toBe(127);
      for (let i = 0; i < per; i++) expect(Math.abs(back[o * per + i]! - ch[i]!)).toBeLessThanOrEqual(x.scales[o]! / 2 + 1e-7 * max);
    }
    expect([...x.q.subarray(2 * per, 3 * per)].every((v) => v === 0)).toBe(true);
    // a per-tensor scale would flatten the small channels: per channel their error is 100x smaller
    expect(x.scales[0]!).toBeLessThan(x.scales[1]! / 20);
  });

  it('packInt8 of conv3d-packed weights = quantizeInt8 of the PyTorch order, as the shader reads it', () => {
    const cout = 7,
      cin = 3,
      kt = 3,
      ks = 3,
      rows = kt * ks * ks * cin;
    const w = randn(cout * cin * kt * ks * ks, 2);
    const words = packInt8(packConvWeight(w, cout, cin, kt, ks), cout, rows);
    expect(words.length).toBe(rows * 2 + cout);
    expect(packedWeightBytes('int8', cout, rows, 4)).toBe(words.byteLength);
    const ref = dequantizeInt8(quantizeInt8(w, cout));
    for (let o = 0; o < cout; o++)
      for (let c = 0; c < cin; c++)
        for (let t = 0; t < kt * ks * ks; t++) {
          const got = shaderView(words, cout, rows, t * cin + c, o);
          expect(got).toBeCloseTo(ref[(o * cin + c) * kt * ks * ks + t]!, 6);
        }
  });

  it('packF16Pairs: two halves per u32, low = lower channel', () => {
    const v = Float32Array.from([1.5, -2, 0.1, 65504]);
    const words = packF16Pairs(v);
    expect(words[0]).toBe((toHalf(1.5) | (toHalf(-2) << 16)) >>> 0);
    expect(fromHalf(words[1]! & 0xffff)).toBeCloseTo(0.1, 3);
    expect(fromHalf(words[1]! >>> 16)).toBe(65504);
  });

  it('formats: int8 with either storage, f16 weights beside f32, f32 weights refused with f16 storage', () => {
    expect(convWeightFormat('f32', undefined)).toBe('elem');
    expect(convWeightFormat('f16', 'f16')).toBe('elem');
    expect(convWeightFormat('f32', 'f16')).toBe('f16');
    expect(convWeightFormat('f16', 'int8')).toBe('int8');
    expect(() => convWeightFormat('f16', 'f32')).toThrow(/f32 weights need f32 storage/);
  });

  it('weightsAs changes conv weights only (biases, gammas kept)', () => {
    const w = syntheticWeights({ version: '2.1', dim: 4, zDim: 4 });
    const q = weightsAs(w, 'int8');
    for (const [k, t] of w.map) {
      const conv = k.endsWith('.weight') && t.shape.length >= 4;
      expect(q.get(k).data === t.data, k).toBe(!conv);
    }
  });

  it('planner: conv weight bytes by weights precision (Wan2.1 dim 96, official shapes)', () => {
    const cfg = inferConfig(syntheticWeights({ version: '2.1', dim: 96, zDim: 16 }, { values: false }));
    const at = (weightsPrecision?: 'f32' | 'f16' | 'int8') => plan(cfg, { frames: 2, h: 4, w: 4, cache: 'on', precision: 'f32', weightsPrecision }).memory.weights;
    const f32 = at(),
      f16 = at('f16'),
      int8 = at('int8');
    expect(at('f32')).toBe(f32);
    // convs are nearly all of the bytes; biases and gammas stay f32
    expect(f16 / f32).toBeGreaterThan(0.5);
    expect(f16 / f32).toBeLessThan(0.51);
    expect(int8 / f32).toBeGreaterThan(0.25);
    expect(int8 / f32).toBeLessThan(0.26);
    expect(() => plan(cfg, { frames: 2, h: 4, w: 4, cache: 'on', precision: 'f16', weightsPrecision: 'f32' })).toThrow(/f32 weights need f32 storage/);
    // int8 weights with f16 storage run on tensor cores (dequant-int8 + the f16 GEMM): the plan keeps them, counts their
    // operand copy and the int8 blocked weights (channels padded to 16: a little more than conv3d-wq's)
    const o8 = { frames: 2, h: 4, w: 4, cache: 'on', precision: 'f16', weightsPrecision: 'int8' } as const;
    const p8 = plan(cfg, { ...o8, tensorCores: true }),
      portable8 = plan(cfg, o8);
    expect(p8.opts.tensorCores).toBe(true);
    expect(p8.memory.activations).toBeGreaterThan(portable8.memory.activations);
    expect(p8.memory.weights / portable8.memory.weights).toBeGreaterThan(1);
    expect(p8.memory.weights / portable8.memory.weights).toBeLessThan(1.1);
    // f16 weights beside f32 storage stay on the portable conv3d-wq
    expect(plan(cfg, { frames: 2, h: 4, w: 4, cache: 'on', precision: 'f32', weightsPrecision: 'f16', tensorCores: true }).opts.tensorCores).toBe(false);
  });

  it('fitPlan takes int8 weights only when allowed and only after every plan at full weights', () => {
    const limits = { maxStorageBufferBindingSize: 4096 * 2 ** 20, maxBufferSize: 4096 * 2 ** 30 };
    const wan22 = inferConfig(syntheticWeights(OFFICIAL['2.2'], { values: false }));
    const base = { frames: 31, h: 44, w: 80, cache: 'on' as const };
    const req = {
      budget: 1100 * 2 ** 20,
      limits,
      precisions: ['f32', 'f16'] as ('f32' | 'f16')[],
      tile: 'auto' as const,
      stores: ['cpu'] as ('gpu' | 'cpu')[],
      norms: ['chunked'] as ('full' | 'chunked' | 'fused')[],
    };
    // Wan2.2 704x1280x121: f16 weights (1059 MiB) cannot fit 1100 MiB; int8 weights can
    expect(() => fitPlan(wan22, base, req)).toThrow(/int8 weights \(--weights-precision auto\) would take the weights \(1059 MiB\)/);
    const fit = fitPlan(wan22, base, { ...req, weightsPrecisions: ['f32', 'f16', 'int8'] });
    expect(fit.plan.opts.weightsPrecision).toBe('int8');
    expect(fit.plan.memory.total).toBeLessThanOrEqual(1100 * 2 ** 20);
    expect(fit.reason).toMatch(/int8 weights/);
    // Wan2.1 480x832x81 at 768 MiB: plans at full weights fit (f32 storage with f16 weights, finer tiles), so int8 is not taken
    const wan21 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
    const full = fitPlan(wan21, { frames: 21, h: 60, w: 104, cache: 'on' }, { ...req, budget: 768 * 2 ** 20, weightsPrecisions: ['f32', 'f16', 'int8'] });
    expect(full.plan.opts.weightsPrecision).not.toBe('int8');
  });
});
