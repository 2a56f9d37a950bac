// output (shaders/output.wgsl) against src/cpu/ops.ts clamp (+ unpatchify for PATCH=2), for the whole frame
// and for a region (cy, cx, oh, ow) written at element offsets rgb_off / rgba_off: rgb must match exactly
// (a clamp and a copy); each RGBA8 byte within 1 of Math.round((v·0.5+0.5)·255), alpha 255.
import { beforeEach, describe, expect, it } from 'vitest';
import { clamp, tensor, unpatchify } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import { output, type OutputParams } from '../../src/kernels/output';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

/** region: [cy, cx, oh, ow] in output pixels, or null for the whole frame */
const cases = [
  { patch: 1, h: 1, w: 1, region: null },
  { patch: 1, h: 5, w: 7, region: null },
  { patch: 2, h: 3, w: 5, region: null },
  { patch: 2, h: 17, w: 9, region: [3, 1, 20, 13] },
  { patch: 1, h: 6, w: 5, region: [2, 1, 3, 4] },
] as const;
const name = (c: (typeof cases)[number]) => `patch${c.patch} ${c.h}x${c.w}${c.region ? ` region ${c.region}` : ''}`;

async function runCase(k: (typeof cases)[number], elem: Elem) {
  const P = k.patch,
    H = k.h * P,
    W = k.w * P;
  const [cy, cx, oh, ow] = k.region ?? [0, 0, H, W];
  const x = roundToElem(randn(3 * P * P * k.h * k.w, 31, 0.8), elem); // ~20% outside [-1, 1]
  const full = clamp(P === 1 ? tensor([3, k.h, k.w], x) : unpatchify(tensor([12, 1, k.h, k.w], x))).data;
  const want = new Float32Array(3 * oh * ow);
  for (let c = 0; c < 3; c++) for (let y = 0; y < oh; y++) for (let xx = 0; xx < ow; xx++) want[(c * oh + y) * ow + xx] = full[(c * H + cy + y) * W + cx + xx]!;
  const xOff = 9,
    rgbOff = k.region ? 5 : 0,
    rgbaOff = k.region ? 3 : 0;
  const xData = new Float32Array(xOff + x.length);
  xData.set(x, xOff);
  const [rgb, rgba] = await withDevice(async (s) => {
    const rgbBuf = s.zeros(rgbOff + 3 * oh * ow, 4, 'rgb');
    const rgbaBuf = s.zeros(rgbaOff + oh * ow, 4, 'rgba');
    const p: OutputParams = { h: k.h, w: k.w, x_off: xOff, cy, cx, oh, ow, rgb_off: rgbOff, rgba_off: rgbaOff };
    await s.run(output, p, { PATCH: P }, elem, [s.upload(xData, elem, 'x'), rgbBuf, rgbaBuf]);
    const rgbAll = await s.read(rgbBuf, 'f32', rgbOff + 3 * oh * ow);
    const rgbaAll = await s.readU32(rgbaBuf, rgbaOff + oh * ow);
    expect([...rgbAll.subarray(0, rgbOff)], 'rgb before rgb_off untouched').toEqual(new Array(rgbOff).fill(0));
    expect([...rgbaAll.subarray(0, rgbaOff)], 'rgba before rgba_off untouched').toEqual(new Array(rgbaOff).fill(0));
    return [rgbAll.subarray(rgbOff), rgbaAll.subarray(rgbaOff)] as const;
  });
  expectClose(rgb, want, { atol: 0, label: `${name(k)} ${elem} rgb` });
  let worst = 0;
  for (let i = 0; i < oh * ow; i++) {
    const px = rgba[i]!;
    expect(px >>> 24, `alpha at ${i}`).toBe(255);
    for (let c = 0; c < 3; c++) {
      const ref = Math.round((want[c * oh * ow + i]! * 0.5 + 0.5) * 255);
      worst = Math.max(worst, Math.abs(((px >>> (8 * c)) & 255) - ref));
    }
  }
  expect(worst, 'max RGBA8 byte difference').toBeLessThanOrEqual(1);
  console.info(`output ${name(k)} ${elem}: rgb exact, max rgba8 diff ${worst}`);
}

describe('output', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.for(cases.map((c) => [name(c), c] as const))('f16 %s', ([, c], ctx) => {
    needF16(ctx, gpu);
    return runCase(c, 'f16');
  });
});
