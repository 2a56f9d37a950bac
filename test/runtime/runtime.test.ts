// Runtime guards and small behaviours, each with an oracle a wrong implementation fails:
// - checkLimits names the limit a plan exceeds (binding vs buffer) and passes plans within them;
// - the arena refuses a buffer above maxBufferSize before creating anything (bytes stay 0);
// - GpuDecoder.create refuses a plan the device's limits cannot bind, before allocating;
// - decoding with a disposed decoder rejects with 'disposed' (GpuDecoder and WanVaeDecoder);
// - RGBA output: every byte within 1 of round((v·0.5+0.5)·255) of the delivered rgb, alpha 255, in whole
//   frames, exact tiles (byte-identical to whole frames) and blended tiles (where the assembler blends
//   rgb and must re-derive rgba: a blend that kept one tile's bytes or left zeros fails);
// - adapter classification (gpu/adapter.ts) on the adapters this project meets, and subgroup-matrix probing.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { adapterClass, isCpuAdapter, subgroupMatrixSupport } from '../../src/gpu/adapter';
import { DecoderError } from '../../src/gpu/errors';
import { conv3dTuning, conv3dTuningFor } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { Arena, liveArenas } from '../../src/runtime/arena';
import type { Frame } from '../../src/runtime/assembler';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { checkLimits, plan, type TileOption } from '../../src/plan/planner';
import { isBrowser } from '../helpers/env';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 4 });
const cfg = inferConfig(weights);
const small = plan(cfg, { frames: 2, h: 6, w: 6, cache: 'on', precision: 'f32' });

describe('limits', () => {
  it('checkLimits: a plan within the limits passes; over the binding limit or the buffer limit it throws naming that limit', () => {
    const roomy = { maxStorageBufferBindingSize: small.largestBinding, maxBufferSize: small.largestBuffer };
    expect(() => checkLimits(small, roomy)).not.toThrow();
    const bind = (() => {
      try {
        checkLimits(small, { ...roomy, maxStorageBufferBindingSize: small.largestBinding - 1 });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(bind).toBeInstanceOf(DecoderError);
    expect((bind as DecoderError).code).toBe('limits');
    expect((bind as DecoderError).message).toMatch(/maxStorageBufferBindingSize/);
    expect(() => checkLimits(small, { maxStorageBufferBindingSize: 2 ** 40, maxBufferSize: small.largestBuffer - 1 })).toThrow(/maxBufferSize/);
  });

  it('the arena refuses a buffer above maxBufferSize before creating it', async (ctx) => {
    const { device } = await needGpu(ctx);
    const arena = new Arena(device);
    const before = liveArenas.bytes;
    expect(() => arena.create('io', 'too big', device.limits.maxBufferSize + 4, GPUBufferUsage.STORAGE)).toThrow(/too big: buffer of \d+ bytes exceeds maxBufferSize/);
    expect(arena.bytes.total).toBe(0);
    expect(liveArenas.bytes).toBe(before);
    arena.dispose();
  });

  it('GpuDecoder.create refuses a plan whose largest binding exceeds the device limit, allocating nothing', async (ctx) => {
    const { device } = await needGpu(ctx);
    const limit = device.limits.maxStorageBufferBindingSize;
    // a whole-frame plan whose activation slots are larger than one binding may be
    const side = Math.ceil(Math.sqrt(limit / 4 / 8 / 64)) + 8; // dim 4: the 8-channel full-resolution tensors
    const big = plan(cfg, { frames: 1, h: side, w: side, cache: 'on', precision: 'f32' });
    expect(big.largestBinding).toBeGreaterThan(limit);
    const before = liveArenas.bytes;
    const err = await GpuDecoder.create(device, big, weights).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('limits');
    expect(liveArenas.bytes).toBe(before);
  });
});

describe('disposed decoders', () => {
  const latents = { data: syntheticLatents(4, 2, 6, 6), shape: [4, 2, 6, 6] as [number, number, number, number] };

  it("GpuDecoder: decode after dispose rejects with 'disposed'", async (ctx) => {
    const { device } = await needGpu(ctx);
    const d = await GpuDecoder.create(device, small, weights);
    d.dispose();
    const err = await d.decode(latents.data, () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('disposed');
  });

  it("WanVaeDecoder: decode after dispose rejects with 'disposed', on both backends", async (ctx) => {
    const gpu = await needGpu(ctx);
    const dec = new WanVaeDecoder(weights, gpu);
    await dec.decode(latents, { latentStats: 'none' });
    dec.dispose();
    for (const backend of ['webgpu', 'cpu'] as const) {
      const err = await dec.decode(latents, { latentStats: 'none', backend }).catch((e: unknown) => e);
      expect(err, backend).toBeInstanceOf(DecoderError);
      expect((err as DecoderError).code, backend).toBe('disposed');
    }
  });
});

describe('RGBA output', () => {
  /** every rgba byte within 1 of the rgb value it shows, alpha 255; returns the rgba bytes of all frames */
  function checkRgba(frames: Frame[], label: string): Uint8ClampedArray[] {
    for (const f of frames) {
      const rgba = f.rgba!;
      const n = rgba.length / 4;
      expect(f.rgb.length, label).toBe(3 * n);
      for (let i = 0; i < n; i++) {
        if (rgba[4 * i + 3] !== 255) throw new Error(`${label} frame ${f.index} pixel ${i}: alpha ${rgba[4 * i + 3]}`);
        for (let c = 0; c < 3; c++) {
          const want = Math.round((f.rgb[c * n + i]! * 0.5 + 0.5) * 255);
          if (Math.abs(rgba[4 * i + c]! - want) > 1) throw new Error(`${label} frame ${f.index} pixel ${i} channel ${c}: rgba ${rgba[4 * i + c]}, rgb ${f.rgb[c * n + i]} -> ${want}`);
        }
      }
    }
    return frames.map((f) => f.rgba!);
  }

  it.skipIf(isBrowser)('whole frames, exact tiles (byte-identical) and blended tiles (rgba re-derived from the blended rgb)', async (ctx) => {
    const gpu = await needGpu(ctx);
    const dec = new WanVaeDecoder(weights, gpu);
    const latents = { data: syntheticLatents(4, 2, 6, 6), shape: [4, 2, 6, 6] as [number, number, number, number] };
    const run = async (tile?: TileOption) => {
      const frames: Frame[] = [];
      await dec.decode(latents, { latentStats: 'none', rgba: true, tile, onFrame: (f) => frames.push(f) });
      return frames;
    };
    try {
      const whole = checkRgba(await run(), 'whole');
      expect(whole).toHaveLength(5);
      const exact = checkRgba(await run({ th: 3, tw: 3, mode: 'exact', order: 'tile-major' }), 'exact tiles');
      for (let i = 0; i < whole.length; i++) expect(exact[i]).toEqual(whole[i]);
      const blendFrames = await run({ th: 3, tw: 3, mode: 'blend', order: 'frame-major', halo: 2 });
      checkRgba(blendFrames, 'blend tiles');
      // the blended picture is near the whole-frame one (a few bytes), not a different image
      let maxDiff = 0;
      blendFrames.forEach((f, i) => f.rgba!.forEach((v, j) => (maxDiff = Math.max(maxDiff, Math.abs(v - whole[i]![j]!)))));
      console.log(`RGBA blend 3x3 tiles vs whole frames: max byte difference ${maxDiff}`);
      expect(maxDiff).toBeLessThan(64);
    } finally {
      dec.dispose();
    }
  });
});

describe('adapter classification', () => {
  it.each([
    [{ vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device (Subzero)' }, 'swiftshader'],
    [{ vendor: 'mesa', architecture: '', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }, 'cpu'],
    [{ vendor: 'mesa', architecture: '', description: 'lavapipe' }, 'cpu'],
    [{ vendor: 'microsoft', architecture: '', description: 'Microsoft Basic Render Driver', isFallbackAdapter: true }, 'cpu'],
    [{ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H200' }, 'gpu'],
    [{ vendor: 'apple', architecture: 'metal-3', description: '' }, 'gpu'],
    [{}, 'gpu'],
  ] as const)('%o -> %s, with the matching conv3d tuning', (info, cls) => {
    expect(adapterClass(info)).toBe(cls);
    expect(isCpuAdapter(info)).toBe(cls !== 'gpu');
    expect(conv3dTuningFor(info)).toEqual(conv3dTuning[cls]);
  });

  it('this machine: a software adapter is classified as one (lavapipe in Node, SwiftShader in Chromium)', async (ctx) => {
    const gpu = await needGpu(ctx);
    const text = `${gpu.info.vendor} ${gpu.info.architecture} ${gpu.info.description}`;
    console.log(`adapter: ${text} -> ${adapterClass(gpu.info)}`);
    if (/llvmpipe|lavapipe/i.test(text)) expect(adapterClass(gpu.info)).toBe('cpu');
    if (/swiftshader/i.test(text)) expect(adapterClass(gpu.info)).toBe('swiftshader');
  });

  it('subgroupMatrixSupport: needs the feature, shader-f16, a 16x16x16 f16 -> f32 config and one subgroup size', () => {
    const cfg16 = { M: 16, N: 16, K: 16, componentType: 'f16', resultComponentType: 'f32' };
    const adapter = (features: string[], info: object) => ({ features: new Set(features), info });
    const all = ['chromium-experimental-subgroup-matrix', 'shader-f16'];
    expect(subgroupMatrixSupport(adapter(all, { subgroupMatrixConfigs: [cfg16], subgroupMinSize: 32, subgroupMaxSize: 32 }))).toEqual({ ok: true, subgroupSize: 32 });
    expect(subgroupMatrixSupport(adapter(['shader-f16'], { subgroupMatrixConfigs: [cfg16], subgroupMinSize: 32, subgroupMaxSize: 32 })).ok).toBe(false);
    expect(subgroupMatrixSupport(adapter(all, { subgroupMatrixConfigs: [{ ...cfg16, K: 8 }], subgroupMinSize: 32, subgroupMaxSize: 32 })).ok).toBe(false);
    expect(subgroupMatrixSupport(adapter(all, { subgroupMatrixConfigs: [cfg16], subgroupMinSize: 16, subgroupMaxSize: 64 })).ok).toBe(false);
    expect(subgroupMatrixSupport(adapter(all, {}))).toEqual({ ok: false, subgroupSize: 32 });
  });
});
