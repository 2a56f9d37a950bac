// dupUpAdd (shaders/dup-up-add.wgsl) against src/cpu/ops.ts dupUp3d: sub-frame `a` of the DupUp3D output
// added to an existing frame. Covers the three Wan2.2 instances (r = 8, r = 2) and odd shapes.
// Tolerances: one add of two stored values. f32: |err| <= 1e-6 + 1e-6·|ref|. f16: the inputs are f16
// values (the reference rounds them with test/helpers/half.ts), so the only error is the rounding of the
// sum to f16: at most half an ulp, 2^-11·|ref| (+ 2^-25 in the subnormal range). A kernel that adds the
// wrong sub-frame, channel or row parity is off by O(1) and fails; so does one that rounds twice or
// truncates (up to a full ulp, 2^-10·|ref|).
import { beforeEach, describe, expect, it } from 'vitest';
import { dupUp3d, tensor } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import { dupUpAdd, type DupUpAddParams } from '../../src/kernels/dup-up-add';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

const cases = [
  { cin: 8, cout: 8, ft: 2, fs: 2, hi: 3, wi: 5, a: 1 }, // up_blocks.0/.1: plain 2x2x2 duplication
  { cin: 8, cout: 8, ft: 2, fs: 2, hi: 1, wi: 1, a: 0 },
  { cin: 10, cout: 5, ft: 1, fs: 2, hi: 3, wi: 4, a: 0 }, // up_blocks.2: channel pair by row parity
  { cin: 4, cout: 6, ft: 2, fs: 2, hi: 2, wi: 3, a: 1 }, // r = 12
];
const name = (c: (typeof cases)[number]) => `cin${c.cin} cout${c.cout} ft${c.ft} fs${c.fs} ${c.hi}x${c.wi} a=${c.a}`;

async function runCase(k: (typeof cases)[number], elem: Elem) {
  const r = (k.cout * k.ft * k.fs * k.fs) / k.cin;
  expect(Number.isInteger(r)).toBe(true);
  const h = k.hi * k.fs,
    w = k.wi * k.fs;
  const n = k.cout * h * w;
  const x = roundToElem(randn(k.cin * k.hi * k.wi, 21), elem);
  const y0 = roundToElem(randn(n, 22), elem);
  const dup = dupUp3d(tensor([k.cin, 1, k.hi, k.wi], x), k.cout, k.ft, k.fs, false); // [cout, ft, h, w]
  const want = new Float32Array(n);
  for (let o = 0; o < k.cout; o++) for (let i = 0; i < h * w; i++) want[o * h * w + i] = y0[o * h * w + i]! + dup.data[(o * k.ft + k.a) * h * w + i]!;
  const xOff = 7,
    yOff = 1;
  const xData = new Float32Array(xOff + x.length);
  xData.set(x, xOff);
  const yData = new Float32Array(yOff + n);
  yData.set(y0, yOff);
  const got = await withDevice(async (s) => {
    const y = s.upload(yData, elem, 'y');
    const p: DupUpAddParams = { cout: k.cout, h, w, cin: k.cin, ft: k.ft, fs: k.fs, r, a: k.a, x_off: xOff, y_off: yOff };
    await s.run(dupUpAdd, p, {}, elem, [s.upload(xData, elem, 'x'), y]);
    return s.read(y, elem, n, yOff);
  });
  const tol = elem === 'f32' ? { atol: 1e-6, rtol: 1e-6 } : { atol: 2 ** -25, rtol: 2 ** -11 };
  const c = expectClose(got, want, { ...tol, label: `${name(k)} ${elem}` });
  console.info(`dup-up-add ${name(k)} ${elem}: max|err| ${c.maxAbs.toExponential(2)} at ${c.maxAbsAt}`);
}

describe('dup-up-add', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.for(cases.map((c) => [name(c), c] as const))('f16 %s', ([, c], ctx) => {
    needF16(ctx, gpu);
    return runCase(c, 'f16');
  });
});
