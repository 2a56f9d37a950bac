// conv3d (shaders/conv3d.wgsl) against src/cpu/ops.ts causalConv3d / upsample + conv2d, one output frame.
// Tolerances: f32 |err| <= 1e-4 + 1e-4·|ref| and NMSE <= 1e-7; f16 storage (inputs rounded to f16 for
// the reference too) NMSE <= 1e-4. Frames sit at odd element offsets; tap0 > 0 cases fill the skipped
// cache frames with garbage to prove they are not read. NORM=1 cases (--norm fused) store raw frames
// plus their inverse-RMS row and compare with RMS_norm (+ SiLU) applied by the CPU reference before the
// conv; res 2 cases add the residual in place (HAS_RES=2: y holds the residual before the dispatch).
import { beforeEach, describe, expect, it } from 'vitest';
import type { Elem } from '../../src/gpu/kernel';
import { conv3d, conv3dTuning, conv3dTuningForCout, packConvWeight } from '../../src/kernels/conv3d';
import { conv3dTiled, type TiledShape } from '../../src/kernels/conv3d-tiled';
import { conv3dTiledFor, TILED_GPU } from '../../src/plan/conv-form';
import type { AnyKernelDef } from '../../src/gpu/kernel';
import { inferConfig } from '../../src/model/config';
import { syntheticWeights } from '../../src/model/synthetic';
import type { Step } from '../../src/plan/graph';
import { plan } from '../../src/plan/planner';
import { stepKernels, type BindCtx } from '../../src/runtime/exec/step-kernels';
import { expectClose } from '../helpers/compare';
import { isBrowser } from '../helpers/env';
import { conv3dBindings, convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';

const gpu = await getTestDevice();

/** A conv case (test/helpers/conv-case.ts: the oracle's step with res, tap0, norm) and the tuning it runs */
interface Case extends ConvCase {
  tune: keyof typeof tunings;
}

/** cpu / swiftshader / gpu: the shipped tunings; odd: small tiles that do not divide anything */
const tunings = {
  cpu: conv3dTuning.cpu,
  sws: conv3dTuning.swiftshader,
  gpu: conv3dTuning.gpu,
  odd: { WG_N: 4, WG_M: 8, TM4: 1, TN: 4, MODE: 1, BK: 3 },
  // the GPU tuning re-blocked for 96 / 192 output channels and for the head's few (conv3dTuningForCout)
  gpu96: conv3dTuningForCout(conv3dTuning.gpu, 96), // at WebGPU's default 256 invocations: 12 x 2 x 4
  gpu96wide: conv3dTuningForCout(conv3dTuning.gpu, 96, 1024), // 24 x 1 x 8 (384 invocations)
  gpuSmall: conv3dTuningForCout(conv3dTuning.gpu, 3),
  // conv3d-tiled (generated straight-line kernels, src/kernels/conv3d-tiled.ts): the WG_* sizes only gate runnable()
  tiled128: { WG_N: 16, WG_M: 16 },
  tiled128p64: { WG_N: 16, WG_M: 16 },
  tiled96: { WG_N: 16, WG_M: 12 },
  tiled96w: { WG_N: 16, WG_M: 24 },
  tiledOdd: { WG_N: 2, WG_M: 4 },
  tiledOddFma: { WG_N: 2, WG_M: 4 },
} as const;

/** The generated kernels' shapes: 128 x 128 and 96 x 128 blocks (GPU choices), and a tiny one
 * whose 4-channel x 8-pixel block and BK 4 leave partial blocks and partial channel steps in every case
 * (as written and with fma() + the BK loop unrolled + the im2col loads split by binding). */
const tiledShapes: Partial<Record<keyof typeof tunings, TiledShape>> = {
  tiled128: TILED_GPU.c128p128,
  tiled128p64: TILED_GPU.c128p64,
  tiled96: TILED_GPU.c96p128,
  tiled96w: TILED_GPU.c96p128w,
  tiledOdd: { wgN: 2, wgM: 4, tm4: 1, tn4: 1, bk: 4 },
  tiledOddFma: { wgN: 2, wgM: 4, tm4: 1, tn4: 1, bk: 4, fma: true, unroll: true, split: true },
};

const cases: (Case & { f16?: true })[] = [
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'cpu', f16: true },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'sws', f16: true },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'gpu', f16: true },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 0, tap0: 1, tune: 'odd' },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 0, tap0: 1, tune: 'sws' },
  { cin: 3, cout: 4, h: 1, w: 1, kt: 3, ks: 3, up: 0, res: 0, tap0: 2, tune: 'cpu' },
  { cin: 17, cout: 6, h: 4, w: 9, kt: 3, ks: 3, up: 0, res: 0, tap0: 2, tune: 'gpu', f16: true },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 1, tap0: 0, tune: 'cpu', f16: true },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 1, tap0: 0, tune: 'sws' },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 1, tap0: 0, tune: 'odd' },
  { cin: 4, cout: 8, h: 4, w: 6, kt: 3, ks: 1, up: 0, res: 0, tap0: 0, tune: 'cpu' },
  { cin: 4, cout: 8, h: 4, w: 6, kt: 3, ks: 1, up: 0, res: 0, tap0: 0, tune: 'gpu' },
  { cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0, tune: 'cpu', f16: true },
  { cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0, tune: 'sws' },
  { cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0, tune: 'gpu' },
  // a real decoder layer (Wan2.1 up block 3 conv, 96 channels), small frame
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'cpu' },
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'sws' },
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'gpu', f16: true },
  // --norm fused (NORM=1) in every load loop, and the in-place residual (HAS_RES=2)
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 0, tune: 'cpu', norm: 1, f16: true },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 0, tune: 'sws', norm: 1, f16: true },
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 0, tune: 'gpu', norm: 1, f16: true },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 0, tap0: 1, tune: 'odd', norm: 1 },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 2, tap0: 0, tune: 'cpu', norm: 0 },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 0, tap0: 0, tune: 'gpu', norm: 0 },
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 2, tap0: 0, tune: 'gpu', norm: 1 },
  // per-cout GPU blocks: 96 channels (and a partial block of 100), the head's 3 channels
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'gpu96', f16: true },
  { cin: 20, cout: 100, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, tune: 'gpu96', norm: 1 },
  { cin: 96, cout: 96, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'gpu96wide', f16: true },
  { cin: 20, cout: 100, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, tune: 'gpu96wide', norm: 1 },
  { cin: 96, cout: 3, h: 12, w: 20, kt: 3, ks: 3, up: 0, res: 0, tap0: 0, tune: 'gpuSmall', f16: true },
  // conv3d-tiled: every load variant (cache taps, tap0, 1x1, 3x1x1, upsample, norm, both residuals) on
  // partial blocks; a wrong tap, channel step, quad offset or buffer index changes outputs beyond 1e-4
  { cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'tiledOdd', f16: true },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 0, tap0: 1, tune: 'tiledOdd', norm: 1 },
  { cin: 10, cout: 13, h: 3, w: 5, kt: 1, ks: 1, up: 0, res: 2, tap0: 0, tune: 'tiledOdd' },
  { cin: 4, cout: 8, h: 4, w: 6, kt: 3, ks: 1, up: 0, res: 0, tap0: 0, tune: 'tiledOdd' },
  { cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0, tune: 'tiledOdd' },
  { cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'tiledOddFma', norm: 0 },
];
// the decoder's GPU blocks of conv3d-tiled (up to 64 accumulators per invocation, straight-line): Node
// only, since SwiftShader spends 13-27 s compiling each (2026-12-01); the tiny tiledOdd shapes run in both
if (!isBrowser)
  cases.push(
    { cin: 17, cout: 6, h: 4, w: 9, kt: 3, ks: 3, up: 0, res: 0, tap0: 2, tune: 'tiled128p64' },
    { cin: 20, cout: 100, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, tune: 'tiled96', norm: 1 },
    { cin: 13, cout: 96, h: 9, w: 16, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'tiled96w' },
    { cin: 20, cout: 130, h: 3, w: 50, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, tune: 'tiled128' },
  );

const name = (c: Case) => `cin${c.cin} cout${c.cout} ${c.h}x${c.w} k${c.kt}x${c.ks} up${c.up} res${c.res} tap0=${c.tap0} ${c.tune}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}`;

async function runCase(c: Case, elem: Elem) {
  // inputs, oracle and buffer layout (odd offsets, NaN in skipped cache frames): test/helpers/conv-case.ts
  const d = convCase(c, elem, { frames: 100, params: 7 });
  const { want, params: p, outLen } = d;
  const got = await withDevice(async (s) => {
    // HAS_RES=2: y starts as the residual (at y_off); else zeros
    const { bufs, y } = conv3dBindings(s, c, d, elem);
    const op = { KT: c.kt, KS: c.ks, UP: c.up, HAS_RES: c.res, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0 };
    const tiled = tiledShapes[c.tune];
    if (tiled) await s.run(conv3dTiled(tiled), p, op, elem, bufs);
    else await s.run(conv3d, p, { ...op, ...tunings[c.tune] }, elem, bufs);
    return s.read(y, elem, outLen, p.y_off);
  });
  const tol = elem === 'f32' ? { atol: 1e-4, rtol: 1e-4, nmse: 1e-7 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${name(c)} ${elem}` });
  console.info(`conv3d ${name(c)} ${elem}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

// tunings wider than the device's workgroup limit (SwiftShader: 256 invocations) cannot run there
const maxInv = gpu?.device.limits.maxComputeInvocationsPerWorkgroup ?? 256;
const runnable = (c: Case) => tunings[c.tune].WG_N * tunings[c.tune].WG_M <= maxInv;

describe('conv3d', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.filter(runnable).map((c) => [name(c), c] as const))('f32 %s', async (_n, c) => {
    await runCase(c, 'f32');
  });
  it.skip.each(cases.filter((c) => !runnable(c)).map((c) => [name(c)] as const))(`f32 %s (more invocations per workgroup than this adapter's ${maxInv})`, () => undefined);
  // f16: the cases marked f16 (each tiling, the load variants), to keep CPU time low
  const f16Cases = cases.filter((c) => c.f16 && runnable(c));
  it.for(f16Cases.map((c) => [name(c), c] as const))('f16 %s', async ([, c], ctx) => {
    needF16(ctx, gpu);
    await runCase(c, 'f16');
  });
  it('dispatch rejects an odd output size with UP=1 and tap0 >= KT', () => {
    const p = { cin: 1, cout: 1, h: 5, w: 4, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0 };
    expect(() => conv3d.dispatch(p, { KT: 1, KS: 3, UP: 1 })).toThrow(/even/);
    expect(() => conv3d.dispatch({ ...p, tap0: 1 }, { KT: 1, KS: 1 })).toThrow(/tap0/);
  });
  it('the decoder runs conv3d-tiled for 96-channel convs and conv3d-head for the head on GPU tunings only; CPU tunings stay on conv3d', () => {
    // Wan2.1 at dim 24: 96 / 48 / 24 channels and the 3-channel head; a step table that ignored the
    // choice (or chose it for CPU adapters, or for a cout its blocks do not fit) fails the counts below
    const weights = syntheticWeights({ version: '2.1', dim: 24, zDim: 4, seed: 3 });
    const cfg = inferConfig(weights);
    // conv direct: --conv auto runs the 96-channel 3x3 convs as Winograd (winograd-decode.node.test.ts)
    const p = plan(cfg, { frames: 2, h: 3, w: 4, cache: 'on', precision: 'f32', norm: 'full', conv: 'direct' });
    const buf = {} as GPUBuffer;
    const ids = (tuning: Record<string, number>) => {
      const out: { id: string; cout: number }[] = [];
      for (const pp of Object.values(p.programs).flat()) {
        const ctx: BindCtx = {
          elem: 'f32',
          cfg,
          tuning,
          maxInvocations: 256,
          mma: null,
          view: () => buf,
          weight: () => buf,
          ring: () => buf,
          dummy: buf,
          out: buf,
          rgba: buf,
          mmaScratch: buf,
          storeEntry: () => ({ buffer: buf }),
          inPlace: () => false,
        };
        for (const s of pp.prog.steps as Step[]) if (s.kind === 'conv') for (const k of stepKernels(s, ctx) as { def: AnyKernelDef }[]) out.push({ id: k.def.id, cout: s.cout });
      }
      return out;
    };
    const gpuIds = ids(conv3dTuning.gpu);
    expect(gpuIds.filter((k) => k.cout % 96 === 0).every((k) => k.id === conv3dTiled(TILED_GPU.c96p64).id)).toBe(true); // 12x16 px frames: 64-pixel blocks
    expect(gpuIds.filter((k) => k.cout % 96 === 0).length).toBeGreaterThan(10);
    // the 3-channel head on conv3d-head (src/kernels/conv3d-head.ts), the 48 / 24-channel convs on conv3d
    expect(gpuIds.filter((k) => k.cout === 3).map((k) => k.id)).toEqual(gpuIds.filter((k) => k.cout === 3).map(() => 'conv3d-head'));
    expect(gpuIds.filter((k) => k.cout === 3).length).toBeGreaterThan(0);
    expect(gpuIds.filter((k) => k.cout % 96 !== 0 && k.cout !== 3).every((k) => k.id === 'conv3d')).toBe(true);
    expect(ids(conv3dTuning.cpu).every((k) => k.id === 'conv3d')).toBe(true);
  });
  it('conv3dTiledFor: the H200 table by channels and frame size, the 8x8 block under 384 invocations, none for the head or CPU tunings', () => {
    const gpu = conv3dTuning.gpu;
    expect(conv3dTiledFor(gpu, 96, 480 * 832, 1024)).toBe(TILED_GPU.c96p128w);
    expect(conv3dTiledFor(gpu, 192, 240 * 416, 256)).toBe(TILED_GPU.c96p128);
    expect(conv3dTiledFor(gpu, 384, 120 * 208, 1024)).toBe(TILED_GPU.c128p64);
    expect(conv3dTiledFor(gpu, 384, 60 * 104, 1024)).toBe(TILED_GPU.c96p64);
    expect(conv3dTiledFor(gpu, 256, 352 * 640, 1024)).toBe(TILED_GPU.c128p128); // Wan2.2's top level
    expect(conv3dTiledFor(gpu, 3, 480 * 832, 1024)).toBe(null);
    expect(conv3dTiledFor(conv3dTuning.cpu, 96, 480 * 832, 1024)).toBe(null);
    expect(conv3dTiledFor(conv3dTuning.swiftshader, 96, 480 * 832, 256)).toBe(null);
  });
  it('packConvWeight pads cout to 4 with zeros', () => {
    const w = Float32Array.from({ length: 3 * 2 * 1 }, (_, i) => i + 1); // [3, 2, 1, 1, 1]
    expect([...packConvWeight(w, 3, 2, 1, 1)]).toEqual([1, 3, 5, 0, 2, 4, 6, 0]);
  });
});
