// Every shader compiles with its default overrides (f32, and f16 when the device has shader-f16), and
// every shipped conv3d tuning compiles too (its workgroup arrays and loops depend on the overrides).
import { beforeEach, describe, expect, it } from 'vitest';
import type { Elem } from '../../src/gpu/kernel';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { kernels } from '../../src/kernels/index';
import { getTestDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';

const gpu = await getTestDevice();
const elems: Elem[] = ['f32', 'f16'];

describe('shaders compile', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  const list = Object.entries(kernels).flatMap(([n, def]) => elems.map((e) => [`${n} ${e}`, def, e] as const));
  it.for(list)('%s', async ([, def, elem], ctx) => {
    if (elem === 'f16') needF16(ctx, gpu);
    const pipeline = await gpu!.cache.get(def, {}, elem);
    expect(pipeline).toBeTruthy();
  });
  it.each(Object.entries(conv3dTuning))('conv3d %s tuning f32', async (_n, tuning) => {
    expect(await gpu!.cache.get(kernels.conv3d, tuning, 'f32')).toBeTruthy();
  });
});
