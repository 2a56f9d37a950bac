// The inputs of one conv kernel case, as conv3d.test.ts and conv3d-mma.test.ts run them: random frames,
// weights, bias, residual and RMS gamma rounded to the storage type; the expected output frame from the
// CPU oracle (conv-reference.ts; NORM cases convolve the RMS-normalised frames, the kernel gets the raw
// frames with their inverse-RMS row appended); and the buffers as the kernels read them. Every buffer
// starts at an odd element offset (x at 3, the cache [pad 5][t-1][t-2], the residual at 1, y at 2), and
// cache frames before tap0 hold NaN: a kernel reading a skipped tap, or addressing from 0, fails the
// comparison.
import { rmsNorm, tensor } from '../../src/cpu/ops';
import type { Elem } from '../../src/gpu/kernel';
import type { Conv3dParams } from '../../src/kernels/conv3d';
import { convReference, invRow, type ConvStep } from './conv-reference';
import { packConvWeight } from '../../src/kernels/conv3d';
import { roundToElem, type GpuScope } from './gpu';
import { randn } from './random';

/** A conv step with the kernel variant fields: res 0 none, 1 residual, 2 in place; norm: NORM=1 with SiLU (1) or without (0) */
export interface ConvCase extends ConvStep {
  res: 0 | 1 | 2;
  tap0: number;
  norm?: 0 | 1;
}

export interface ConvCaseData {
  /** weights [cout, cin, kt, ks, ks], bias, residual [cout, h, w] and RMS gamma, rounded to the storage type */
  wt: Float32Array;
  bias: Float32Array;
  res: Float32Array;
  gamma: Float32Array;
  /** the oracle's output frame [cout, h, w] */
  want: Float32Array;
  /** the buffers' contents: x (current frame), cache (t-1, t-2), residual, y's initial contents (the residual for res 2, else zeros) */
  xData: Float32Array;
  cacheData: Float32Array;
  resData: Float32Array;
  yInit: Float32Array;
  /** the dispatch parameters (offsets of the buffers above) */
  params: Conv3dParams;
  outLen: number;
}

/**
 * The case's data. `seeds.frames`: frame i draws from seed frames + i; `seeds.params`: weights, bias,
 * residual and gamma from seeds params .. params + 3 (each test file its own, so kernels see other data).
 */
export function convCase(c: ConvCase, elem: Elem, seeds: { frames: number; params: number }): ConvCaseData {
  const hi = c.up ? c.h / 2 : c.h;
  const wi = c.up ? c.w / 2 : c.w;
  const hwIn = hi * wi;
  const frameLen = c.cin * hwIn;
  const outLen = c.cout * c.h * c.w;
  const fanIn = c.cin * c.kt * c.ks * c.ks;
  const raw = [0, 1, 2].slice(0, c.kt).map((i) => roundToElem(randn(frameLen, seeds.frames + i), elem));
  const wt = roundToElem(randn(c.cout * fanIn, seeds.params, 1 / Math.sqrt(fanIn)), elem);
  const bias = roundToElem(randn(c.cout, seeds.params + 1, 0.1), elem);
  const res = roundToElem(randn(outLen, seeds.params + 2), elem);
  const gamma = roundToElem(randn(c.cin, seeds.params + 3, 0.5), elem);
  // NORM=1: the reference convolves the normalised frames; the GPU gets raw frames + their inv row
  const normed = c.norm === undefined ? raw : raw.map((f) => rmsNorm(tensor([c.cin, hwIn], f), tensor([c.cin], gamma), c.norm === 1).data);
  const want = convReference(c, normed, wt, bias, res);
  const frames =
    c.norm === undefined
      ? raw
      : raw.map((f) => {
          const g = new Float32Array(frameLen + hwIn);
          g.set(f);
          g.set(roundToElem(invRow(f, c.cin, hwIn), elem), frameLen);
          return g;
        });
  const stored = frames[0]!.length;

  // x at 3; cache = [pad 5][t-1][t-2] (reverse order, odd offsets); res at 1; y at 2
  const xOff = 3,
    prev1Off = 5,
    prev2Off = 5 + stored,
    resOff = 1,
    yOff = 2;
  const xData = new Float32Array(xOff + stored);
  xData.set(frames[c.kt - 1]!, xOff);
  const cacheData = new Float32Array(prev2Off + stored).fill(NaN);
  if (c.kt === 3) {
    if (c.tap0 <= 1) cacheData.set(frames[1]!, prev1Off);
    if (c.tap0 === 0) cacheData.set(frames[0]!, prev2Off);
  }
  const resData = new Float32Array(resOff + outLen);
  resData.set(res, resOff);
  const yInit = new Float32Array(yOff + outLen);
  if (c.res === 2) yInit.set(res, yOff);
  const params: Conv3dParams = { cin: c.cin, cout: c.cout, h: c.h, w: c.w, x_off: xOff, prev2_off: prev2Off, prev1_off: prev1Off, res_off: resOff, y_off: yOff, tap0: c.tap0 };
  return { wt, bias, res, gamma, want, xData, cacheData, resData, yInit, params, outLen };
}

/**
 * conv3d's bindings for case `c` (x, cache ring, weights in conv3d's layout, bias, residual, y, gamma; unused
 * ones as dummies) in scope `s`, and y itself: it starts as the residual for res 2, else as zeros. The
 * portable conv kernels that share conv3d's bindings (conv3d, conv3d-tiled, conv3d-head) run on these.
 */
export function conv3dBindings(s: GpuScope, c: ConvCase, d: ConvCaseData, elem: Elem): { bufs: GPUBuffer[]; y: GPUBuffer } {
  const y = c.res === 2 ? s.upload(d.yInit, elem, 'y') : s.zeros(d.yInit.length, elem === 'f16' ? 2 : 4);
  const bufs = [
    s.upload(d.xData, elem, 'x'),
    c.kt === 3 ? s.upload(d.cacheData, elem, 'cache') : s.dummy(),
    s.upload(packConvWeight(d.wt, c.cout, c.cin, c.kt, c.ks), elem, 'w'),
    s.upload(d.bias, elem, 'b'),
    c.res === 1 ? s.upload(d.resData, elem, 'res') : s.dummy(),
    y,
    c.norm !== undefined ? s.upload(d.gamma, elem, 'gamma') : s.dummy(),
  ];
  return { bufs, y };
}
