// The upsample Conv2d (nearest 2x, then 3x3) as four output phases on tensor cores (plan/conv-form.ts upPhases;
// src/kernels/conv3d-mma-flat.ts `phases`, conv-layout.ts upPhaseWeight). On the CPU: the phase weights applied
// to the low-resolution frame equal the 3x3 conv of the upsampled frame (float64 sums, any size, borders
// included). On the GPU: the decoder's two dispatches (conv3d-mma-pack of the low-resolution frame, no UP; the
// phase GEMM over the 16-tap blocked weights, emulated on plain code as CI has no subgroup matrices) against the
// CPU reference of the upsampled conv (test/helpers/conv-case.ts), f16 storage, NMSE <= 1e-4 as conv3d-mma's
// cases; the operand copy starts as NaN, so an element the GEMM reads that the pack did not write fails.
import { describe, expect, it } from 'vitest';
import { conv2dPerFrame, tensor, upsampleNearest2x } from '../../src/cpu/ops';
import { conv3dMmaFlat, mmaGemm } from '../../src/kernels/conv3d-mma-flat';
import { conv3dMmaPack, mmaScratchElems, packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { upPhaseBlockedLength, upPhaseWeight } from '../../src/kernels/conv-layout';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

/** The phase form on the CPU: output pixel (2y + py, 2x + px) from the 2 x 2 low-resolution window at (y + py - 1, x + px - 1). */
function phaseConv(x: Float32Array, wp: Float32Array, cin: number, cout: number, h: number, w: number): Float64Array {
  const out = new Float64Array(cout * 4 * h * w);
  for (let o = 0; o < cout; o++)
    for (let Y = 0; Y < 2 * h; Y++)
      for (let X = 0; X < 2 * w; X++) {
        const py = Y & 1,
          px = X & 1,
          y = Y >> 1,
          xx = X >> 1;
        let acc = 0;
        for (let c = 0; c < cin; c++)
          for (let ty = 0; ty < 2; ty++)
            for (let tx = 0; tx < 2; tx++) {
              const r = y + py + ty - 1,
                q = xx + px + tx - 1;
              if (r < 0 || r >= h || q < 0 || q >= w) continue;
              acc += wp[(o * cin + c) * 16 + (py * 2 + px) * 4 + ty * 2 + tx]! * x[(c * h + r) * w + q]!;
            }
        out[(o * 2 * h + Y) * 2 * w + X] = acc;
      }
  return out;
}

describe('upsample Conv2d as four output phases', () => {
  it.for([
    [3, 2, 4, 5],
    [5, 7, 1, 1],
    [2, 3, 6, 2],
  ] as const)('CPU: phase weights on the low-resolution frame = the 3x3 conv of the upsampled frame (cin %i, cout %i, %ix%i)', ([cin, cout, h, w]) => {
    const x = randn(cin * h * w, 901);
    const wt = randn(cout * cin * 9, 902);
    const want = conv2dPerFrame(upsampleNearest2x(tensor([cin, 1, h, w], x)), tensor([cout, cin, 3, 3], wt), null).data;
    const got = phaseConv(x, upPhaseWeight(wt, cout, cin), cin, cout, h, w);
    let err = 0;
    for (let i = 0; i < want.length; i++) err = Math.max(err, Math.abs(got[i]! - want[i]!));
    expect(err).toBeLessThan(1e-5);
  });

  it('names a weight of the wrong size', () => {
    expect(() => upPhaseWeight(new Float32Array(10), 2, 1)).toThrow(/upPhaseWeight: 10 values for \[2, 1, 3, 3\]/);
  });

  const cases: ConvCase[] = [
    // one channel block with padding, an odd number of 16-pixel blocks per low-resolution row (TN tail)
    { cin: 5, cout: 6, h: 6, w: 34, kt: 1, ks: 3, up: 1, res: 0, tap0: 0 },
    // two input channel blocks, output blocks past one TM group, a residual, a row of one pixel block
    { cin: 20, cout: 40, h: 8, w: 30, kt: 1, ks: 3, up: 1, res: 1, tap0: 0 },
    // Wan2.1's upsamples.11.resample.1 channels (192 -> 96), small frame
    { cin: 192, cout: 96, h: 4, w: 36, kt: 1, ks: 3, up: 1, res: 0, tap0: 0 },
  ];
  const name = (c: ConvCase) => `cin${c.cin} cout${c.cout} ${c.h}x${c.w} res${c.res}`;

  // mmaGemm's tiles for these small frames (1 x 1) and the decoder's 3 x 2 of full-size frames (cout and pixel-block tails)
  const shapes = [null, { tm: 3, tn: 2, order: 'cb-tap' } as const];
  it.for(cases.flatMap((c) => shapes.map((t) => [`${t ? '3x2' : 'mmaGemm'} ${name(c)}`, c, t] as const)))('emulated phase GEMM, %s', async ([, c, t], ctx) => {
    needF16(ctx, gpu);
    const elem = 'f16' as const;
    const { wt, bias, want, xData, resData, params, outLen } = convCase(c, elem, { frames: 400, params: 41 });
    // the kernels see the low-resolution frame: the pack copies it with padding 1 (KS 3, UP 0), the GEMM writes the 2x frame
    const low = { ...params, h: c.h / 2, w: c.w / 2 };
    const blocked = packConvWeightBlocked(upPhaseWeight(wt, c.cout, c.cin), c.cout, c.cin, 16, 1);
    expect(blocked.length).toBe(upPhaseBlockedLength(c.cout, c.cin));
    const gemm = t ? conv3dMmaFlat(t, { emulate: true, phases: true }) : mmaGemm(low, 3, true, true);
    expect(gemm.id).toMatch(/-up2-emu$/);
    const got = await withDevice(async (s) => {
      const y = s.zeros(params.y_off + outLen, 2);
      const scratch = s.upload(new Float32Array(mmaScratchElems(low, 1, 3)).fill(NaN), elem, 'operand copy');
      await s.run(conv3dMmaPack, low, { KT: 1, KS: 3, UP: 0, NORM: 0, SILU: 0 }, elem, [s.upload(xData, elem, 'x'), s.dummy(), s.dummy(), scratch]);
      await s.run(gemm, low, { KT: 1, KS: 3, HAS_RES: c.res, SG: 32 }, elem, [
        scratch,
        s.upload(blocked, elem, 'phase weights'),
        s.upload(bias, elem, 'b'),
        c.res === 1 ? s.upload(resData, elem, 'res') : s.dummy(),
        y,
        s.dummy(),
      ]);
      return s.read(y, elem, outLen, params.y_off);
    });
    const r = expectClose(got, want, { nmse: 1e-4, label: `${gemm.id} ${name(c)}` });
    console.info(`conv3d-mma-pack + ${gemm.id} ${name(c)}: max|err| ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}`);
  });

  it('refuses a phase GEMM for any other conv form', () => {
    const p = { cin: 16, cout: 16, h: 4, w: 16, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0 };
    const def = conv3dMmaFlat({ tm: 3, tn: 2, order: 'cb-tap' }, { phases: true });
    expect(def.dispatch(p, { KT: 1, KS: 3, UP: 0 })).toEqual([2, 1, 4]);
    expect(() => def.dispatch(p, { KT: 1, KS: 3, UP: 1 })).toThrow(/phases: the upsample Conv2d's low-resolution form/);
    expect(() => def.dispatch(p, { KT: 3, KS: 3, UP: 0 })).toThrow(/got KT 3/);
  });
});
