// output (shaders/output.wgsl) against src/cpu/ops.ts clamp (+ unpatchify for PATCH=2): rgb must match
// exactly (a clamp and a copy); each RGBA8 byte within 1 of Math.round((v·0.5+0.5)·255), alpha 255.
import { describe, expect, it } from 'vitest';
import { clamp, tensor, unpatchify } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import { output, type OutputParams } from '../../src/kernels/output';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

const cases = [
  { patch: 1, h: 1, w: 1 },
  { patch: 1, h: 5, w: 7 },
  { patch: 2, h: 3, w: 5 },
  { patch: 2, h: 17, w: 9 },
];
const name = (c: (typeof cases)[number]) => `patch${c.patch} ${c.h}x${c.w}`;

async function runCase(k: (typeof cases)[number], elem: Elem) {
  const P = k.patch, H = k.h * P, W = k.w * P;
  const x = roundToElem(randn(3 * P * P * k.h * k.w, 31, 0.8), elem); // ~20% outside [-1, 1]
  const full = P === 1 ? tensor([3, k.h, k.w], x) : unpatchify(tensor([12, 1, k.h, k.w], x));
  const want = clamp(full).data;
  const xOff = 9;
  const xData = new Float32Array(xOff + x.length);
  xData.set(x, xOff);
  const [rgb, rgba] = await withDevice(async (s) => {
    const rgbBuf = s.zeros(3 * H * W, 4, 'rgb');
    const rgbaBuf = s.zeros(H * W, 4, 'rgba');
    const p: OutputParams = { h: k.h, w: k.w, x_off: xOff, cy: 0, cx: 0, oh: H, ow: W, rgb_off: 0, rgba_off: 0 };
    await s.run(output, p, { PATCH: P }, elem, [s.upload(xData, elem, 'x'), rgbBuf, rgbaBuf]);
    return [await s.read(rgbBuf, 'f32', 3 * H * W), await s.readU32(rgbaBuf, H * W)] as const;
  });
  expectClose(rgb, want, { atol: 0, label: `${name(k)} ${elem} rgb` });
  let worst = 0;
  for (let i = 0; i < H * W; i++) {
    const px = rgba[i]!;
    expect(px >>> 24, `alpha at ${i}`).toBe(255);
    for (let c = 0; c < 3; c++) {
      const ref = Math.round((want[c * H * W + i]! * 0.5 + 0.5) * 255);
      worst = Math.max(worst, Math.abs(((px >>> (8 * c)) & 255) - ref));
    }
  }
  expect(worst, 'max RGBA8 byte difference').toBeLessThanOrEqual(1);
  console.info(`output ${name(k)} ${elem}: rgb exact, max rgba8 diff ${worst}`);
}

describe.skipIf(!gpu)('output', () => {
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.skipIf(!gpu?.f16).each(cases.map((c) => [name(c), c] as const))('f16 %s', (_n, c) => runCase(c, 'f16'));
});
