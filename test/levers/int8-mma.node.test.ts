// Node only (Dawn + lavapipe). int8 weights on the tensor-core path (--weights-precision int8 with f16
// storage and tensor cores): before each conv, dequant-int8 (shaders/dequant-int8.wgsl) expands its int8
// weights + per-output-channel scales into an f16 scratch in conv3d-mma's blocked layout, and the same GEMM
// as f16 weights reads it (here emulated on plain code, mmaGemm's `emulate`, since no CI adapter has subgroup matrices;
// bench/h200/run.sh int8 runs the real one). What must hold, and how a wrong implementation fails:
// - packInt8Blocked holds exactly quantizeInt8's q and s_o in conv3d-mma's blocked order (a wrong channel
//   for a scale, a transposed tile or a wrong byte order fails the element-by-element comparison);
// - dequant-int8's output EQUALS, word for word, the f16 blocked weights of the CPU reference
//   dequantizeInt8(quantizeInt8(w)) (storageBytes(packConvWeightBlocked(...), 'f16')), for the decoder's
//   conv shapes with channel counts off 16. The channels' scales span 2^-24 .. 2^6, so products land on
//   f16 subnormals, ties and inexact values: truncating instead of rounding to nearest even, the scale of
//   another channel (the next row or block), a byte read unsigned or in the wrong order, or a word left
//   unwritten (the output is filled with 0xAB first) each change words;
// - a whole decode with int8 weights on the (emulated) tensor-core path EQUALS, bit for bit, the decode
//   with f16 weights of the dequantised weights (weightsAs(w, 'int8')) on the same path: any deviation of
//   the dequantisation, or the GEMM reading another conv's scratch, changes the frames;
// - the arena's peak = the plan, which counts the int8 blocked weights plus one f16 copy of the largest
//   conv's weights (a plan without that scratch fails allocated = planned), and streamed int8 weights
//   through a 2-slot ring give the same frames bit for bit (a slot range bound wrongly changes them).
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { dequantizeInt8, int8BlockedBytes, packInt8Blocked, packInt8BlockedRows, quantizeInt8, weightsAs, type WeightsPrecision } from '../../src/model/quantize';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { blockedConvWeightLength, packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { dequantInt8 } from '../../src/kernels/dequant-int8';
import { storageBytes } from '../../src/runtime/f16';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { WanVaeDecoder } from '../../src/decoder';
import type { Weights } from '../../src/model/weights';
import { compare } from '../helpers/compare';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';

const gpu = await getTestDevice();

/** PyTorch-order weights [cout, cin, taps]: output channel o scaled by 2^(3 (o mod 11) - 24), so the products cover f16's subnormals and normals. */
function weightsFor(cout: number, cin: number, taps: number): Float32Array {
  return Float32Array.from({ length: cout * cin * taps }, (_, i) => Math.sin(i * 1.37 + 0.3) * 2 ** (3 * (Math.floor(i / (cin * taps)) % 11) - 24));
}

describe('int8 weights in conv3d-mma blocked order', () => {
  it('packInt8Blocked = quantizeInt8 (q and s_o) re-blocked, padding 0', () => {
    const cout = 20,
      cin = 35,
      kt = 3,
      ks = 3,
      taps = kt * ks * ks;
    // values spread over several magnitudes per channel, so each channel has its own scale
    const w = Float32Array.from({ length: cout * cin * taps }, (_, i) => Math.sin(i * 1.37) * (1 + (Math.floor(i / (cin * taps)) % 7)));
    const ref = quantizeInt8(w, cout);
    const blocked = packConvWeightBlocked(w, cout, cin, kt, ks);
    const packed = packInt8Blocked(blocked, cout, cin, taps);
    expect(packed.byteLength).toBe(int8BlockedBytes(blocked.length, cout));
    const q = new Int8Array(packed.buffer, 0, blocked.length);
    const s = new Float32Array(packed.buffer, blocked.length, Math.ceil(cout / 16) * 16);
    expect([...s.slice(0, cout)]).toEqual([...ref.scales]);
    expect([...s.slice(cout)].every((v) => v === 0)).toBe(true);
    // the reference q re-blocked as the f16 weights are (padding 0)
    const qBlocked = packConvWeightBlocked(Float32Array.from(ref.q), cout, cin, kt, ks);
    expect([...q]).toEqual([...qBlocked]);
    // and q * s_o is the dequantised weight of the CPU reference, in blocked order
    const deq = packConvWeightBlocked(dequantizeInt8(ref), cout, cin, kt, ks);
    const ob = Math.ceil(cout / 16),
      cb = Math.ceil(cin / 16);
    for (let i = 0; i < blocked.length; i++) {
      const o = ((Math.floor(i / (cb * 256)) % ob) << 4) + ((i & 255) >> 4);
      expect(Math.fround(q[i]! * s[o]!)).toBe(deq[i]);
    }
  });
});

describe('packInt8BlockedRows: the int8 blocked bytes straight from the PyTorch rows', () => {
  // the decoder's packing (runtime/exec/weights.ts): it must give packInt8Blocked(packConvWeightBlocked(w))
  // byte for byte, scales included; a wrong tap stride, channel block or row, or a scale from the wrong
  // channel moves bytes. An all-zero channel (scale 0) and channel counts off 16 included.
  it.for([
    [20, 35, 3, 3],
    [34, 17, 3, 1],
    [13, 10, 1, 1],
    [3, 16, 3, 3],
  ] as const)('%i x %i x %i x %i', ([cout, cin, kt, ks]) => {
    const taps = kt * ks * ks;
    const w = weightsFor(cout, cin, taps);
    w.fill(0, cin * taps, 2 * cin * taps); // channel 1: all zeros
    const want = new Uint8Array(packInt8Blocked(packConvWeightBlocked(w, cout, cin, kt, ks), cout, cin, taps).buffer);
    const got = new Uint8Array(packInt8BlockedRows(w, cout, cin, taps).buffer);
    expect(got.length).toBe(want.length);
    let bad = 0;
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) bad++;
    expect(bad, `${bad} of ${want.length} bytes differ`).toBe(0);
  });
});

describe('dequant-int8: int8 blocked weights -> f16 blocked weights', () => {
  // [cout, cin, kt, ks]: the decoder's conv kinds, channel counts off 16 (3x3x3, time_conv 3x1x1, the
  // resample 2-D 3x3 as kt 1, 1x1 shortcuts, the Wan2.1 head)
  const shapes = [
    [20, 35, 3, 3],
    [34, 17, 3, 1],
    [32, 16, 1, 3],
    [13, 10, 1, 1],
    [3, 16, 3, 3],
  ] as const;
  it.for(shapes.map((s) => [s.join('x'), s] as const))('%s: equals the f16 blocked weights of dequantizeInt8(quantizeInt8(w)), word for word', async ([, [cout, cin, kt, ks]], ctx) => {
    needDevice(ctx, gpu);
    const taps = kt * ks * ks;
    const w = weightsFor(cout, cin, taps);
    const blocked = packConvWeightBlocked(w, cout, cin, kt, ks);
    const int8 = packInt8Blocked(blocked, cout, cin, taps);
    const want = new Uint32Array(storageBytes(packConvWeightBlocked(dequantizeInt8(quantizeInt8(w, cout)), cout, cin, kt, ks), 'f16').buffer);
    expect(want.length * 2).toBe(blockedConvWeightLength(cout, cin, kt, ks));
    const got = await withDevice(async (g) => {
      const src = g.upload(new Float32Array(int8.buffer), 'f32', 'int8 weights');
      const dst = g.zeros(want.length, 4, 'f16 weights');
      g.device.queue.writeBuffer(dst, 0, new Uint8Array(want.length * 4).fill(0xab));
      // f32: the kernel moves bits (no shader-f16 needed)
      await g.run(dequantInt8, { cin, cout, h: 1, w: 1, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0 }, { KT: kt, KS: ks }, 'f32', [src, dst]);
      return g.readU32(dst, want.length);
    });
    let bad = 0;
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) bad++;
    expect(bad, `${bad} of ${want.length} words differ`).toBe(0);
  });
});

// (`upPhases: false` everywhere here: int8 weights keep the upsample Conv2d's upsampled 3x3 GEMM, so the f16
// reference must too; f16 weights run it as four phases by default, plan/conv-form.ts upPhases, whose summed
// weights round otherwise)
async function decodeWith(weights: Weights, wp: WeightsPrecision, mma: boolean, stream = false): Promise<{ video: Float32Array; weights: number; activations: number }> {
  const cfg = inferConfig(weights);
  const z = cfg.zDim;
  const T = 2,
    h = 2,
    w = 2;
  const o: PlanOptions = { frames: T, h, w, cache: 'on', precision: 'f16', weightsPrecision: wp, tensorCores: mma, weightsStream: stream, weightsStreamSlots: stream ? 2 : undefined, upPhases: false };
  const p = plan(cfg, o);
  expect(!!p.opts.tensorCores).toBe(mma);
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info), mma: mma ? { subgroupSize: 32, emulate: true } : null });
  const frames: Float32Array[] = [];
  expect(dec.arena.bytes.weights).toBe(p.memory.weights);
  expect(dec.arena.bytes.activations).toBe(p.memory.activations);
  expect(dec.arena.bytes.total).toBe(p.memory.total);
  try {
    await dec.decode(syntheticLatents(z, T, h, w), (f) => void frames.push(f.rgb));
  } finally {
    dec.dispose();
  }
  const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  let k = 0;
  for (const f of frames) (out.set(f, k), (k += f.length));
  return { video: out, weights: p.memory.weights, activations: p.memory.activations };
}

describe('the facade plans int8 weights on tensor cores', () => {
  it('f16 storage + int8 weights: tensorCores kept (by default and on), dropped with off / f32 storage', () => {
    const dec = new WanVaeDecoder(syntheticWeights({ version: '2.1', dim: 8, zDim: 4, seed: 5 }, { values: false }));
    const shape = [4, 2, 2, 2] as [number, number, number, number];
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8' }).opts.tensorCores).toBe(true);
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8', tensorCores: true }).memory.activations).toBeGreaterThan(
      dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8', tensorCores: false }).memory.activations,
    );
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8', tensorCores: false }).opts.tensorCores).toBe(false);
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8' }).opts.tensorCores).toBe(true);
    expect(dec.plan(shape, { precision: 'f32', weightsPrecision: 'int8' }).opts.tensorCores).toBe(false);
  });

  it('the plan counts one f16 copy of the largest conv weight beside the operand copy (Wan2.1: 384 x 384 x 27)', () => {
    const cfg = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
    const o = { frames: 2, h: 8, w: 8, cache: 'on', precision: 'f16', tensorCores: true, upPhases: false } as const;
    const int8 = plan(cfg, { ...o, weightsPrecision: 'int8' }),
      f16 = plan(cfg, { ...o, weightsPrecision: 'f16' });
    expect(int8.memory.activations - f16.memory.activations).toBe(384 * 384 * 27 * 2);
  });
});

describe('decode with int8 weights on the tensor-core path (emulated GEMM)', () => {
  it('equals the f16-weights decode of the dequantised weights bit for bit; planned = allocated; streamed = resident', async (ctx) => {
    needF16(ctx, gpu);
    const weights = syntheticWeights({ version: '2.1', dim: 8, zDim: 4, seed: 5 });
    const got = await decodeWith(weights, 'int8', true);
    const ref = await decodeWith(weightsAs(weights, 'int8'), 'f16', true);
    const cmp = compare(got.video, ref.video);
    console.info(`int8 mma-emu decode vs f16 weights of the dequantised weights: max|err| ${cmp.maxAbs}; weights ${got.weights} B (f16 blocked ${ref.weights} B)`);
    expect(got.video.length).toBe(ref.video.length);
    expect(cmp.maxAbs).toBe(0);
    expect(got.weights).toBeLessThan(0.6 * ref.weights);
    // the int8 blocked weights streamed through a 2-slot ring (slots rewritten inside every run): the same
    // frames bit for bit (a slot sized or offset by the portable int8 layout would change them or fail)
    const streamed = await decodeWith(weights, 'int8', true, true);
    expect(streamed.weights).toBeLessThan(got.weights);
    expect(compare(streamed.video, got.video).maxAbs).toBe(0);
  });

  it('Wan2.2 (DupUp shortcuts, the 12-channel patch head): int8 on tensor cores = f16 weights of the dequantised weights, bit for bit', async (ctx) => {
    needF16(ctx, gpu);
    const weights = syntheticWeights({ version: '2.2', dim: 4, zDim: 8, seed: 3 });
    const got = await decodeWith(weights, 'int8', true);
    const ref = await decodeWith(weightsAs(weights, 'int8'), 'f16', true);
    expect(got.video.length).toBe(ref.video.length);
    expect(compare(got.video, ref.video).maxAbs).toBe(0);
  });
});
