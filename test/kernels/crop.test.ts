// crop (shaders/crop.wgsl): a window of every channel of a [C, H, W] frame copied to a dense [C, h, w]
// tile, against a plain loop. A copy: results must be exact (f32, and f16 storage when available).
import { beforeEach, describe, it } from 'vitest';
import type { Elem } from '../../src/gpu/kernel';
import { crop, type CropParams } from '../../src/kernels/crop';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

const cases = [
  { c: 3, srcH: 5, srcW: 7, y0: 1, x0: 2, h: 3, w: 4 },
  { c: 5, srcH: 1, srcW: 1, y0: 0, x0: 0, h: 1, w: 1 },
  { c: 2, srcH: 9, srcW: 20, y0: 0, x0: 11, h: 9, w: 9 },
];
const name = (k: (typeof cases)[number]) => `c${k.c} ${k.srcH}x${k.srcW} window ${k.h}x${k.w} at (${k.y0}, ${k.x0})`;

async function runCase(k: (typeof cases)[number], elem: Elem) {
  const x = roundToElem(randn(k.c * k.srcH * k.srcW, 61), elem);
  const want = new Float32Array(k.c * k.h * k.w);
  for (let c = 0; c < k.c; c++) for (let y = 0; y < k.h; y++) for (let xx = 0; xx < k.w; xx++) want[(c * k.h + y) * k.w + xx] = x[(c * k.srcH + k.y0 + y) * k.srcW + k.x0 + xx]!;
  const xOff = 3,
    yOff = 1;
  const xData = new Float32Array(xOff + x.length);
  xData.set(x, xOff);
  const got = await withDevice(async (s) => {
    const y = s.zeros(yOff + want.length, elem === 'f16' ? 2 : 4);
    const p: CropParams = { c: k.c, src_h: k.srcH, src_w: k.srcW, y0: k.y0, x0: k.x0, h: k.h, w: k.w, x_off: xOff, y_off: yOff };
    await s.run(crop, p, {}, elem, [s.upload(xData, elem, 'x'), y]);
    return s.read(y, elem, want.length, yOff);
  });
  expectClose(got, want, { atol: 0, label: `${name(k)} ${elem}` });
}

describe('crop', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.for(cases.map((c) => [name(c), c] as const))('f16 %s', ([, c], ctx) => {
    needF16(ctx, gpu);
    return runCase(c, 'f16');
  });
});
