// rmsNorm (shaders/rms-norm.wgsl) against src/cpu/ops.ts rmsNorm, with and without the fused SiLU.
// Tolerances: f32 elementwise |err| <= 1e-6 + 1e-5·|ref|; f16 storage (inputs rounded for the reference
// too) NMSE <= 1e-4. One pixel is all zeros (the 1e-12 clamp must give 0, not NaN).
import { describe, it } from 'vitest';
import { rmsNorm as rmsNormRef, tensor } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import { rmsNorm, type RmsNormParams } from '../../src/kernels/rms-norm';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

const cases = [
  { c: 3, h: 1, w: 1, silu: 0 },
  { c: 7, h: 5, w: 7, silu: 1 },
  { c: 96, h: 12, w: 20, silu: 1 },
  { c: 384, h: 3, w: 5, silu: 0 },
];
const name = (c: (typeof cases)[number]) => `c${c.c} ${c.h}x${c.w} silu${c.silu}`;

async function runCase(k: (typeof cases)[number], elem: Elem) {
  const hw = k.h * k.w;
  const xOff = 5, yOff = 3;
  const x = roundToElem(randn(k.c * hw, 11, 3), elem);
  if (hw > 1) for (let c = 0; c < k.c; c++) x[c * hw + hw - 1] = 0; // last pixel all zero
  const gamma = roundToElem(randn(k.c, 12, 0.5), elem);
  const want = rmsNormRef(tensor([k.c, hw], x), tensor([k.c], gamma), k.silu === 1).data;
  const xData = new Float32Array(xOff + x.length);
  xData.set(x, xOff);
  const got = await withDevice(async (s) => {
    const y = s.zeros(yOff + x.length, elem === 'f16' ? 2 : 4);
    const p: RmsNormParams = { c: k.c, hw, x_off: xOff, y_off: yOff };
    await s.run(rmsNorm, p, { SILU: k.silu }, elem, [s.upload(xData, elem), s.upload(gamma, elem), y]);
    return s.read(y, elem, x.length, yOff);
  });
  const tol = elem === 'f32' ? { atol: 1e-6, rtol: 1e-5 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${name(k)} ${elem}` });
  console.info(`rms-norm ${name(k)} ${elem}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

describe.skipIf(!gpu)('rms-norm', () => {
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.skipIf(!gpu?.f16).each(cases.map((c) => [name(c), c] as const))('f16 %s', (_n, c) => runCase(c, 'f16'));
});
