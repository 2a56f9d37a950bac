// rmsNorm (shaders/rms-norm.wgsl) against src/cpu/ops.ts rmsNorm, with and without the fused SiLU, in
// the three --norm layouts: out of place (full), in place over pixel chunks (chunked: INPLACE=1, several
// dispatches of `chunk` pixels) and the inverse-RMS row only (fused: STATS=1, checked against
// sqrt(C) / max(||x||, 1e-12) computed here in float64, clamped to 65504 with f16 storage).
// Tolerances: f32 elementwise |err| <= 1e-6 + 1e-5·|ref|; f16 storage (inputs rounded for the reference
// too) NMSE <= 1e-4. One pixel is all zeros (the 1e-12 clamp must give 0, not NaN).
import { beforeEach, describe, expect, it } from 'vitest';
import { rmsNorm as rmsNormRef, tensor } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import { invMaxFor, rmsNorm, type RmsNormParams } from '../../src/kernels/rms-norm';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

type Layout = 'full' | 'chunked' | 'fused';
interface Case {
  c: number;
  h: number;
  w: number;
  silu: 0 | 1;
  layout: Layout;
  chunk?: number;
}
const cases: Case[] = [
  { c: 3, h: 1, w: 1, silu: 0, layout: 'full' },
  { c: 7, h: 5, w: 7, silu: 1, layout: 'full' },
  { c: 96, h: 12, w: 20, silu: 1, layout: 'full' },
  { c: 384, h: 3, w: 5, silu: 0, layout: 'full' },
  { c: 7, h: 5, w: 7, silu: 1, layout: 'chunked', chunk: 8 }, // 35 px: chunks of 8, 8, 8, 8, 3
  { c: 96, h: 12, w: 20, silu: 0, layout: 'chunked', chunk: 100 },
  { c: 7, h: 5, w: 7, silu: 0, layout: 'fused' },
  { c: 384, h: 3, w: 5, silu: 0, layout: 'fused' },
];
const name = (c: Case) => `${c.layout}${c.chunk ? ` chunk ${c.chunk}` : ''} c${c.c} ${c.h}x${c.w} silu${c.silu}`;

/** sqrt(C) / max(||x[:, p]||, 1e-12) per pixel, in float64 */
function invRms(x: Float32Array, c: number, hw: number): Float32Array {
  return Float32Array.from({ length: hw }, (_, p) => {
    let ss = 0;
    for (let k = 0; k < c; k++) ss += x[k * hw + p]! ** 2;
    return Math.sqrt(c) / Math.max(Math.sqrt(ss), 1e-12);
  });
}

async function runCase(k: Case, elem: Elem) {
  const hw = k.h * k.w;
  const xOff = 5,
    yOff = 3;
  const x = roundToElem(randn(k.c * hw, 11, 3), elem);
  if (hw > 1) for (let c = 0; c < k.c; c++) x[c * hw + hw - 1] = 0; // last pixel all zero
  const gamma = roundToElem(randn(k.c, 12, 0.5), elem);
  const inPlace = k.layout !== 'full';
  const want = k.layout === 'fused' ? invRms(x, k.c, hw).map((v) => Math.min(v, invMaxFor(elem))) : rmsNormRef(tensor([k.c, hw], x), tensor([k.c], gamma), k.silu === 1).data;
  const got = await withDevice(async (s) => {
    // full: x and y separate; chunked / fused: one buffer holding x at yOff (fused: plus the inv row)
    const rows = k.layout === 'fused' ? k.c + 1 : k.c;
    const yData = new Float32Array(yOff + rows * hw).fill(NaN);
    yData.set(inPlace ? x : [], yOff);
    const y = inPlace ? s.upload(yData, elem) : s.zeros(yOff + x.length, elem === 'f16' ? 2 : 4);
    const xData = new Float32Array(xOff + x.length);
    xData.set(x, xOff);
    const xb = inPlace ? s.dummy() : s.upload(xData, elem);
    const chunk = k.chunk ?? hw;
    for (let p0 = 0; p0 < hw; p0 += chunk) {
      const p: RmsNormParams = { c: k.c, hw, x_off: xOff, y_off: yOff, p0, np: Math.min(chunk, hw - p0) };
      const ov = { SILU: k.silu, INPLACE: k.layout === 'chunked' ? 1 : 0, STATS: k.layout === 'fused' ? 1 : 0, INV_MAX: invMaxFor(elem) };
      await s.run(rmsNorm, p, ov, elem, [xb, s.upload(gamma, elem), y]);
    }
    if (k.layout === 'fused') {
      // the input rows must be untouched
      expect(Array.from(await s.read(y, elem, x.length, yOff))).toEqual(Array.from(x));
      return s.read(y, elem, hw, yOff + k.c * hw);
    }
    return s.read(y, elem, x.length, yOff);
  });
  const tol = elem === 'f32' ? { atol: 1e-6, rtol: 1e-5 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${name(k)} ${elem}` });
  console.info(`rms-norm ${name(k)} ${elem}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

describe('rms-norm', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.for(cases.map((c) => [name(c), c] as const))('f16 %s', ([, c], ctx) => {
    needF16(ctx, gpu);
    return runCase(c, 'f16');
  });
});
