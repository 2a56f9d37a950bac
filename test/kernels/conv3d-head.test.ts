// conv3d-head (shaders/conv3d-head.wgsl): the head conv's kernel against the CPU oracle
// (test/helpers/conv-case.ts + conv-reference.ts: src/cpu/ops.ts causalConv3d), one output frame.
// Tolerances as conv3d.test.ts: f32 |err| <= 1e-4 + 1e-4·|ref| and NMSE <= 1e-7; f16 storage NMSE <= 1e-4.
// How a wrong kernel fails: frames sit at odd offsets and skipped cache frames hold NaN (a wrong tap0 or
// base reads NaN); the frames span two tile columns and a partial tile row (w 70 > 64, h 9 > 8), so a
// halo or tile-edge error moves border pixels; cin 10 leaves a partial channel step (CC = 4); cout 3 and
// 12 (1 and 3 vec4s of channels: Wan2.1's and Wan2.2's heads) and 6 (a partial vec4) catch a wrong
// channel index; NORM cases (raw frames + their inverse-RMS row) fail without the norm on load.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Elem } from '../../src/gpu/kernel';
import { conv3dHead } from '../../src/kernels/conv3d-head';
import { conv3dHeadFor } from '../../src/plan/conv-form';
import { expectClose } from '../helpers/compare';
import { conv3dBindings, convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';

const gpu = await getTestDevice();

const cases: ConvCase[] = [
  { cin: 10, cout: 3, h: 9, w: 70, kt: 3, ks: 3, up: 0, res: 0, tap0: 0, norm: 1 }, // the Wan2.1 head, fused norm + SiLU
  { cin: 10, cout: 3, h: 9, w: 70, kt: 3, ks: 3, up: 0, res: 0, tap0: 2 }, // first frame: cache taps skipped (NaN there)
  { cin: 7, cout: 12, h: 5, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 1, norm: 0 }, // the Wan2.2 head (12 channels), residual
  { cin: 5, cout: 6, h: 8, w: 64, kt: 1, ks: 3, up: 0, res: 2, tap0: 0 }, // KT 1, in-place residual, exact tiles
];
const name = (c: ConvCase) => `cin${c.cin} cout${c.cout} ${c.h}x${c.w} k${c.kt} res${c.res} tap0=${c.tap0}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}`;

async function runCase(c: ConvCase, elem: Elem) {
  const d = convCase(c, elem, { frames: 300, params: 17 });
  const { want, params: p, outLen } = d;
  const got = await withDevice(async (s) => {
    const { bufs, y } = conv3dBindings(s, c, d, elem);
    const op = { KT: c.kt, KS: 3, UP: 0, HAS_RES: c.res, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0, ...conv3dHeadFor(c.cout, 3, 0)! };
    await s.run(conv3dHead, p, op, elem, bufs);
    return s.read(y, elem, outLen, p.y_off);
  });
  const tol = elem === 'f32' ? { atol: 1e-4, rtol: 1e-4, nmse: 1e-7 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${name(c)} ${elem}` });
  console.info(`conv3d-head ${name(c)} ${elem}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

describe('conv3d-head', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('f32 %s', (_n, c) => runCase(c, 'f32'));
  it.for(cases.slice(0, 2).map((c) => [name(c), c] as const))('f16 %s', ([, c], ctx) => {
    needF16(ctx, gpu);
    return runCase(c, 'f16');
  });
  it('conv3dHeadFor: the head shapes only (3x3, no upsampling, <= 12 channels)', () => {
    expect(conv3dHeadFor(3, 3, 0)).toEqual({ COUT4: 1 });
    expect(conv3dHeadFor(12, 3, 0)).toEqual({ COUT4: 3 });
    expect(conv3dHeadFor(13, 3, 0)).toBe(null);
    expect(conv3dHeadFor(3, 1, 0)).toBe(null);
    expect(conv3dHeadFor(3, 3, 1)).toBe(null);
  });
});
