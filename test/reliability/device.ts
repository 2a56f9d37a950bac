// Devices for the reliability tests: each test file gets its own device (tests destroy theirs), skipped
// with the reason outside CI when there is no WebGPU adapter, a failure under CI.
import type { TestContext } from 'vitest';
import { requestDecoderDevice, type DecoderDevice } from '../../src/gpu/device';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import type { Latents } from '../../src/model/latents';
import { isCI } from '../helpers/env';

/** A fresh device of the decoder's own kind, or ctx.skip (a failure under CI) without an adapter. */
export async function freshDevice(ctx: Pick<TestContext, 'skip'>): Promise<DecoderDevice> {
  try {
    return await requestDecoderDevice();
  } catch (e) {
    const why = `there is no WebGPU device: ${e instanceof Error ? e.message : String(e)}`;
    if (isCI()) throw new Error(`this test must run under CI, but ${why}`);
    return ctx.skip(why);
  }
}

/** The embedded default's architecture (Wan2.1, dim 16, z 16) with generated weights. */
export const tinyWeights = () => syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 1 });

/** Generated latents [16, T, h, w] (seeded). */
export function tinyLatents(T: number, h: number, w: number): Latents {
  return { data: syntheticLatents(16, T, h, w), shape: [16, T, h, w], source: `generated [16,${T},${h},${w}]` };
}

/** max |a - b| (Infinity when the lengths differ). */
export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
