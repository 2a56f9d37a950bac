// The CPU oracle of one causal conv step as the conv kernels see it (conv3d, conv3d-wq, conv3d-mma tests):
// built from src/cpu/ops (checked against the float64 goldens), not from any kernel's code.
import { add, causalConv3d, conv2dPerFrame, tensor, upsampleNearest2x, type Tensor } from '../../src/cpu/ops';

/** One conv step: output [cout, h, w]; input frames [cin, h/2, w/2] when `up` (nearest-2x + 3x3 per frame). */
export interface ConvStep {
  cin: number;
  cout: number;
  h: number;
  w: number;
  kt: 1 | 3;
  ks: 1 | 3;
  up: 0 | 1;
  /** residual added to the output (any non-zero value: how the kernel adds it does not matter here) */
  res: number;
  /** first temporal tap read from the cache (earlier taps read zeros, as chunk 0 does); default 0 */
  tap0?: number;
}

/** Inverse RMS row sqrt(C) / max(||x[:, p]||, 1e-12) of a [c, hw] frame (float64). */
export function invRow(f: Float32Array, c: number, hw: number): Float32Array {
  return Float32Array.from({ length: hw }, (_, p) => {
    let ss = 0;
    for (let k = 0; k < c; k++) ss += f[k * hw + p]! ** 2;
    return Math.sqrt(c) / Math.max(Math.sqrt(ss), 1e-12);
  });
}

/** Reference output frame [cout, h, w] from frames [t-2, t-1, t] (kt = 3) or [t]; skipped taps read zeros. */
export function convReference(c: ConvStep, frames: Float32Array[], wt: Float32Array, bias: Float32Array, res: Float32Array): Float32Array {
  const hi = c.up ? c.h / 2 : c.h;
  const wi = c.up ? c.w / 2 : c.w;
  const b = tensor([c.cout], bias);
  let out: Tensor;
  if (c.up) {
    out = conv2dPerFrame(upsampleNearest2x(tensor([c.cin, 1, hi, wi], frames[0])), tensor([c.cout, c.cin, c.ks, c.ks], wt), b);
  } else {
    // the cache holds the frames at or after tap0
    const tap0 = c.tap0 ?? 0;
    const cur = tensor([c.cin, 1, hi, wi], frames[c.kt - 1]);
    const nc = c.kt - 1 - tap0;
    let cache: Tensor | null = null;
    if (nc > 0) {
      cache = tensor([c.cin, nc, hi, wi]);
      const plane = hi * wi;
      for (let ch = 0; ch < c.cin; ch++) for (let f = 0; f < nc; f++) cache.data.set(frames[tap0 + f]!.subarray(ch * plane, (ch + 1) * plane), (ch * nc + f) * plane);
    }
    out = causalConv3d(cur, cache, tensor([c.cout, c.cin, c.kt, c.ks, c.ks], wt), b);
  }
  return c.res ? add(out, tensor(out.shape, res)).data : out.data;
}
