// winograd-weights (U = G g G^T on the GPU, through exec/wino-weights.ts) against the float64 JS transform
// packWinogradWeight, F(2x2) and F(4x4), kt 3 and 1 (the upsample Conv2d), cout not a multiple of 4 (U's
// padded columns must stay zero), a staging buffer that holds 3 output channels (several parts per weight:
// a part written at the wrong channel offset or from the wrong staged words fails), and one too small for
// a single channel (the JS fallback). Why a wrong kernel fails: U's values are O(0.1-1) and the tolerance is
// 1e-6 relative (f32 against float64 rounding of the same sums): a wrong coefficient, row order (PyTorch's
// c*kt + dt against U's dt*cin + c) or position moves them by O(0.1).
import { describe, expect, it } from 'vitest';
import { packWinogradWeight, winoWeightLength, type WinoR } from '../../src/kernels/winograd-transforms';
import { prepareWinoWeights } from '../../src/runtime/exec/wino-weights';
import type { BlockedWeightJob } from '../../src/runtime/exec/weights';
import { expectClose } from '../helpers/compare';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

const cases: { r: WinoR; cout: number; cin: number; kt: number; stagingChannels: number }[] = [
  { r: 2, cout: 10, cin: 5, kt: 3, stagingChannels: 3 },
  { r: 4, cout: 7, cin: 6, kt: 1, stagingChannels: 3 },
  { r: 4, cout: 9, cin: 4, kt: 3, stagingChannels: 100 },
  { r: 2, cout: 5, cin: 3, kt: 1, stagingChannels: 0.5 },
];

describe('winograd-weights: U on the GPU = packWinogradWeight', () => {
  it.for(cases.map((c) => [`F(${c.r}x${c.r}) cout${c.cout} cin${c.cin} kt${c.kt}, staging ${c.stagingChannels} channels`, c] as const))('%s', async ([_n, c], ctx) => {
    needDevice(ctx, gpu);
    const w = randn(c.cout * c.cin * c.kt * 9, 41 + c.cout, 0.3);
    const want = packWinogradWeight(w, c.r, c.cout, c.cin, c.kt);
    const { got, last } = await withDevice(async (s) => {
      const n = winoWeightLength(c.r, c.cout, c.cin, c.kt);
      // U starts as NaN (but its padded columns, created zero by the decoder's arena, as here after the fill)
      const init = new Float32Array(n).fill(NaN);
      const co4 = Math.ceil(c.cout / 4) * 4;
      for (let i = 0; i < n; i++) if (i % co4 >= c.cout) init[i] = 0;
      const buf = s.upload(init, 'f32', 'U');
      const staging = s.zeros(Math.max(4, Math.floor(c.stagingChannels * c.cin * c.kt * 9)), 4, 'staging');
      const uniforms = s.device.createBuffer({ label: 'uniforms', size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      const job: BlockedWeightJob = { key: 'u', buf, data: w, cout: c.cout, cin: c.cin, taps: c.kt * 9, wino: c.r };
      const counts = await prepareWinoWeights(s.device, s.gpu.cache, [job], staging, uniforms);
      const u = await s.read(buf, 'f32', n);
      uniforms.destroy();
      return { got: u, last: counts };
    });
    expect(c.stagingChannels >= 1 ? [last.gpu, last.chunks] : [last.js, last.chunks]).toEqual(c.stagingChannels >= 1 ? [1, Math.ceil(c.cout / Math.min(c.cout, c.stagingChannels))] : [1, 0]);
    const r = expectClose(got, want, { atol: 1e-6, rtol: 1e-6, label: _n });
    console.info(`winograd-weights ${_n}: ${last.chunks} parts, max|err| ${r.maxAbs.toExponential(2)} vs float64`);
  });
});
