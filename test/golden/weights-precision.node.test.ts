// --weights-precision int8 / f16 on the golden cases (../shared/golden, official weights of tiny widths):
//  1. the GPU path is the quantiser's: the int8 (f16-weight) GPU decode equals the f32 GPU decode of the
//     weights the CPU reference quantises (src/model/quantize.ts weightsAs) within 1e-4 max |err| (f32
//     rounding order only: the GPU scales the sum, the reference each weight);
//  2. what it costs: max |err| and PSNR against the f32-weight decode and against the official float64
//     @video, printed, with a floor below the values measured on lavapipe (2026-12-01; README);
//  3. the planner counts the packed bytes and the arena allocates exactly them (peak = planned).
// Node only (Dawn + lavapipe): five decodes per case (the f32-weight one shared by its two tests).
import { describe, expect, it } from 'vitest';
import type { DecodeOptions } from '../../src/decoder';
import { weightsAs } from '../../src/model/quantize';
import { toFloat32, type StFile } from '../../src/model/safetensors';
import { weightsFromSafetensors, type Weights } from '../../src/model/weights';
import { compare } from '../helpers/compare';
import { decodeGolden } from '../helpers/golden-decode';
import type { TestGpu } from '../helpers/gpu';
import { needGolden, needGpu } from '../helpers/need';

const CASES = ['wan21-tiny', 'wan21-small', 'wan22-tiny', 'wan22-small'] as const;

const run = (f: StFile, w: Weights, gpu: TestGpu, opts: DecodeOptions) => decodeGolden(f, w, gpu, opts);

/** the f32-weight decode of a case, made once for its int8 and f16 tests (the same weights, options and device) */
const f32Decodes = new Map<string, ReturnType<typeof run>>();
function f32Decode(name: string, f: StFile, w: Weights, gpu: TestGpu): ReturnType<typeof run> {
  let d = f32Decodes.get(name);
  if (!d) f32Decodes.set(name, (d = run(f, w, gpu, {})));
  return d;
}

/** PSNR floor per weights precision: a few dB under the lowest value measured on these cases */
const FLOOR = { int8: 38, f16: 60 } as const;

describe.each(CASES)('weights precision, golden %s', (name) => {
  it.for(['int8', 'f16'] as const)('%s weights: GPU = the CPU quantiser, quality vs f32 weights, peak = planned', async (wp, ctx) => {
    const f = await needGolden(ctx, name);
    const gpu = await needGpu(ctx);
    const w = weightsFromSafetensors(f, name);
    const base = await f32Decode(name, f, w, gpu);
    const packed = await run(f, w, gpu, { weightsPrecision: wp });
    const ref = await run(f, weightsAs(w, wp), gpu, {});
    const official = toFloat32(f.tensors.get('@video')!).map((v) => Math.min(1, Math.max(-1, v)));
    const same = compare(packed.video, ref.video);
    const q = compare(packed.video, base.video);
    const o = compare(packed.video, official);
    console.info(
      `${name} ${wp} weights: vs f32 weights max|err| ${q.maxAbs.toExponential(2)}, PSNR ${q.psnr.toFixed(1)} dB; vs official ${o.psnr.toFixed(1)} dB; ` +
        `vs the quantiser's weights in f32 ${same.maxAbs.toExponential(2)}; weights ${packed.memory!.weights} B (f32 ${base.memory!.weights} B); ${packed.seconds.toFixed(2)} s vs ${base.seconds.toFixed(2)} s`,
    );
    expect(packed.options.weightsPrecision).toBe(wp);
    expect(same.maxAbs).toBeLessThanOrEqual(1e-4);
    expect(q.psnr).toBeGreaterThanOrEqual(FLOOR[wp]);
    expect(packed.peakGpuBytes).toBe(packed.plannedPeakGpuBytes);
    expect(packed.memory!.weights).toBeLessThan(base.memory!.weights * (wp === 'int8' ? 0.3 : 0.55));
  });
});
