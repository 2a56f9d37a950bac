// conv3d-wq (shaders/conv3d-wq.wgsl: conv3d with packed weights dequantised in the operand load) against
// the CPU reference conv (src/cpu/ops.ts) run with the weights the GPU holds: int8 (WQ=1) -> the CPU
// dequantisation q · s_o of src/model/quantize.ts; f16 pairs (WQ=2) -> the weights rounded to f16.
// Tolerance as conv3d's f32 cases (|err| <= 1e-4 + 1e-4·|ref|, NMSE <= 1e-7): the only difference left
// is the order of f32 rounding (the GPU scales the sum, the CPU each weight). Also checks the int8
// quantisation error itself stays where per-channel int8 puts it (vs the unquantised weights).
import { beforeEach, describe, expect, it } from 'vitest';
import type { Elem } from '../../src/gpu/kernel';
import { conv3dTuning, conv3dTuningForCout, conv3dWq, packConvWeight, type Conv3dParams } from '../../src/kernels/conv3d';
import { dequantizeInt8, packF16Pairs, packInt8, quantizeInt8 } from '../../src/model/quantize';
import { expectClose } from '../helpers/compare';
import { convReference, type ConvStep } from '../helpers/conv-reference';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

/** A conv step of the oracle (test/helpers/conv-reference.ts) with this kernel's variant fields; res: 0 none, 1 residual, 2 in place */
interface Case extends ConvStep {
  res: 0 | 1;
  tune: keyof typeof tunings;
  wq: 1 | 2;
}

const tunings = {
  cpu: conv3dTuning.cpu,
  sws: conv3dTuning.swiftshader,
  gpu: conv3dTuning.gpu,
  odd: { WG_N: 4, WG_M: 8, TM4: 1, TN: 4, MODE: 1, BK: 3 },
  gpuSmall: conv3dTuningForCout(conv3dTuning.gpu, 3),
} as const;

const cases: Case[] = [
  // every load loop (MODE 0, 1, 2), cout not a multiple of 4, 3x3x3 / 1x1 / 3x1x1 / upsample 2-D
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tune: 'cpu', wq: 1 },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tune: 'sws', wq: 1 },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tune: 'gpu', wq: 1 },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 0, tune: 'odd', wq: 1 },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 1, tune: 'cpu', wq: 1 },
  { cin: 4, cout: 8, h: 4, w: 6, kt: 3, ks: 1, up: 0, res: 0, tune: 'gpu', wq: 1 },
  { cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tune: 'cpu', wq: 1 },
  // the head's 3 channels; a real 96-channel layer
  { cin: 32, cout: 3, h: 6, w: 8, kt: 3, ks: 3, up: 0, res: 0, tune: 'gpuSmall', wq: 1 },
  { cin: 96, cout: 96, h: 6, w: 10, kt: 3, ks: 3, up: 0, res: 1, tune: 'cpu', wq: 1 },
  // f16 weight pairs beside f32 activations
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tune: 'cpu', wq: 2 },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tune: 'sws', wq: 2 },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 0, tune: 'odd', wq: 2 },
];

const name = (c: Case) => `${c.wq === 1 ? 'int8' : 'f16 pairs'} cin${c.cin} cout${c.cout} ${c.h}x${c.w} k${c.kt}x${c.ks} up${c.up} res${c.res} ${c.tune}`;

async function runCase(c: Case, elem: Elem): Promise<void> {
  const hi = c.up ? c.h / 2 : c.h,
    wi = c.up ? c.w / 2 : c.w;
  const frameLen = c.cin * hi * wi,
    outLen = c.cout * c.h * c.w;
  const fanIn = c.cin * c.kt * c.ks * c.ks;
  const frames = [0, 1, 2].slice(0, c.kt).map((i) => roundToElem(randn(frameLen, 200 + i), elem));
  const wt = randn(c.cout * fanIn, 27, 1 / Math.sqrt(fanIn));
  // one output channel much larger than the rest, one all zero: scales are per output channel
  for (let i = 0; i < fanIn; i++) wt[i] = wt[i]! * 30;
  if (c.cout > 2) wt.fill(0, fanIn, 2 * fanIn);
  const bias = roundToElem(randn(c.cout, 28, 0.1), elem);
  const res = roundToElem(randn(outLen, 29), elem);
  const held = c.wq === 1 ? dequantizeInt8(quantizeInt8(wt, c.cout)) : roundToElem(wt, 'f16');
  const want = convReference(c, frames, held, bias, res);
  const rows = c.kt * c.ks * c.ks * c.cin;
  const packed = packConvWeight(wt, c.cout, c.cin, c.kt, c.ks);
  const words = c.wq === 1 ? packInt8(packed, c.cout, rows) : packF16Pairs(packed);

  const xOff = 3,
    prev1Off = 5,
    prev2Off = 5 + frameLen,
    resOff = 1,
    yOff = 2;
  const xData = new Float32Array(xOff + frameLen);
  xData.set(frames[c.kt - 1]!, xOff);
  const cacheData = new Float32Array(prev2Off + frameLen);
  if (c.kt === 3) {
    cacheData.set(frames[1]!, prev1Off);
    cacheData.set(frames[0]!, prev2Off);
  }
  const resData = new Float32Array(resOff + outLen);
  resData.set(res, resOff);
  const got = await withDevice(async (s) => {
    const y = s.zeros(yOff + outLen, elem === 'f16' ? 2 : 4);
    const wbuf = s.upload(new Float32Array(words.buffer), 'f32', 'wq'); // raw u32 words
    const bufs = [
      s.upload(xData, elem, 'x'),
      c.kt === 3 ? s.upload(cacheData, elem, 'cache') : s.dummy(),
      wbuf,
      s.upload(bias, elem, 'b'),
      c.res ? s.upload(resData, elem, 'res') : s.dummy(),
      y,
      s.dummy(),
      wbuf,
    ];
    const p: Conv3dParams = { cin: c.cin, cout: c.cout, h: c.h, w: c.w, x_off: xOff, prev2_off: prev2Off, prev1_off: prev1Off, res_off: resOff, y_off: yOff, tap0: 0 };
    await s.run(conv3dWq, p, { KT: c.kt, KS: c.ks, UP: c.up, HAS_RES: c.res, WQ: c.wq, ...tunings[c.tune] }, elem, bufs);
    return s.read(y, elem, outLen, yOff);
  });
  const tol = elem === 'f32' ? { atol: 1e-4, rtol: 1e-4, nmse: 1e-7 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${name(c)} ${elem}` });
  // how far the held weights are from the f32 ones, seen through the conv (not a tolerance of the kernel)
  const exact = convReference(c, frames, wt, bias, res);
  const q = expectClose(want, exact, { nmse: c.wq === 1 ? 1e-3 : 1e-5, label: `${name(c)}: quantisation error` });
  console.info(`conv3d-wq ${name(c)} ${elem}: max|err| vs CPU on held weights ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}; quantisation nmse ${q.nmse.toExponential(2)}`);
}

const maxInv = gpu?.device.limits.maxComputeInvocationsPerWorkgroup ?? 256;
const runnable = (c: Case) => tunings[c.tune].WG_N * tunings[c.tune].WG_M <= maxInv;

describe('conv3d-wq: packed weights dequantised in the operand load', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.filter(runnable).map((c) => [name(c), c] as const))('f32 activations, %s', async (_n, c) => {
    await runCase(c, 'f32');
  });
  it.for(cases.filter((c) => runnable(c) && c.tune === 'cpu').map((c) => [name(c), c] as const))('f16 activations, %s', async ([, c], ctx) => {
    needF16(ctx, gpu);
    await runCase(c, 'f16');
  });
  it('rejects WQ other than 1 and 2', () => {
    const p = { cin: 1, cout: 1, h: 1, w: 1, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0 };
    expect(() => conv3dWq.dispatch(p, { KT: 1, KS: 1, WQ: 0 })).toThrow(/WQ/);
  });
});
