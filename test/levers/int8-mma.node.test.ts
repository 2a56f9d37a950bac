// Node only (Dawn + lavapipe). int8 weights on the tensor-core path (--weights-precision int8 with f16
// storage and tensor cores: shaders/conv3d-mma-wq.wgsl; here its scalar twin conv3d-mma-wq-emu, since no
// CI adapter has subgroup matrices; scripts/h200-levers.sh runs the real one):
// - packInt8Blocked holds exactly quantizeInt8's q and s_o in conv3d-mma's blocked order (a wrong channel
//   for a scale, a transposed tile or a wrong byte order fails the element-by-element comparison);
// - a whole decode with int8 weights on the (emulated) tensor-core path equals the portable int8 decode
//   (conv3d-wq, the same q and s_o) to >= 60 dB, and the arena's peak = the plan, whose weights are the
//   int8 blocked bytes (about half the f16 blocked ones). A scale applied to the wrong output channel, a
//   tile read from the wrong tap or channel block, or weights left unscaled, each drops the PSNR far
//   below 60 dB (the generated weights are not constant across channels); a plan counting the f16 blocked
//   or the portable int8 bytes fails allocated = planned; the same decode with the int8 blocked weights
//   streamed through a 2-slot ring equals it bit for bit.
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { dequantizeInt8, int8BlockedBytes, packInt8Blocked, quantizeInt8 } from '../../src/model/quantize';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { WanVaeDecoder } from '../../src/decoder';
import { compare } from '../helpers/compare';
import { getTestDevice } from '../helpers/gpu';
import { needF16 } from '../helpers/need';

const gpu = await getTestDevice();

describe('int8 weights in conv3d-mma blocked order', () => {
  it('packInt8Blocked = quantizeInt8 (q and s_o) re-blocked, padding 0', () => {
    const cout = 20, cin = 35, kt = 3, ks = 3, taps = kt * ks * ks;
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
    const ob = Math.ceil(cout / 16), cb = Math.ceil(cin / 16);
    for (let i = 0; i < blocked.length; i++) {
      const o = ((Math.floor(i / (cb * 256)) % ob) << 4) + ((i & 255) >> 4);
      expect(Math.fround(q[i]! * s[o]!)).toBe(deq[i]);
    }
  });
});

async function decodeWith(mma: boolean, stream = false): Promise<{ video: Float32Array; weights: number }> {
  const weights = syntheticWeights({ version: '2.1', dim: 8, zDim: 4, seed: 5 });
  const cfg = inferConfig(weights);
  const T = 2, h = 2, w = 2;
  const o: PlanOptions = { frames: T, h, w, cache: 'on', precision: 'f16', weightsPrecision: 'int8', tensorCores: mma, weightsStream: stream, weightsStreamSlots: stream ? 2 : undefined };
  const p = plan(cfg, o);
  expect(!!p.opts.tensorCores).toBe(mma);
  const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuningFor(gpu!.info), mma: mma ? { subgroupSize: 32, emulate: true } : null });
  const frames: Float32Array[] = [];
  expect(dec.arena.bytes.weights).toBe(p.memory.weights);
  expect(dec.arena.bytes.total).toBe(p.memory.total);
  try {
    await dec.decode(syntheticLatents(4, T, h, w), (f) => void frames.push(f.rgb));
  } finally {
    dec.dispose();
  }
  const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  let k = 0;
  for (const f of frames) (out.set(f, k), (k += f.length));
  return { video: out, weights: p.memory.weights };
}

describe('the facade plans int8 weights on tensor cores', () => {
  // the H200 run of fc373eb decoded int8 on the portable conv: WanVaeDecoder.plan still required f16
  // weights for tensor cores (a plan without them has no operand copy and the portable int8 bytes)
  it('f16 storage + int8 weights: tensorCores kept (by default and on), dropped with off / f32 storage', () => {
    const dec = new WanVaeDecoder(syntheticWeights({ version: '2.1', dim: 8, zDim: 4, seed: 5 }, { values: false }));
    const shape = [4, 2, 2, 2] as [number, number, number, number];
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8' }).opts.tensorCores).toBe(true);
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8', tensorCores: true }).memory.activations).toBeGreaterThan(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8', tensorCores: false }).memory.activations);
    expect(dec.plan(shape, { precision: 'f16', weightsPrecision: 'int8', tensorCores: false }).opts.tensorCores).toBe(false);
    expect(dec.plan(shape, { precision: 'f32', weightsPrecision: 'int8' }).opts.tensorCores).toBe(false);
  });
});

describe('decode with int8 weights on the tensor-core path (emulated GEMM)', () => {
  it('equals the portable int8 decode (>= 60 dB); weights planned = allocated, about half the f16 blocked bytes', async (ctx) => {
    needF16(ctx, gpu);
    const ref = await decodeWith(false);
    const got = await decodeWith(true);
    const cmp = compare(got.video, ref.video);
    const weights = syntheticWeights({ version: '2.1', dim: 8, zDim: 4, seed: 5 });
    const f16mma = plan(inferConfig(weights), { frames: 2, h: 2, w: 2, cache: 'on', precision: 'f16', tensorCores: true }).memory.weights;
    console.info(`int8 mma-emu decode: max|err| ${cmp.maxAbs.toExponential(2)}, PSNR ${cmp.psnr.toFixed(1)} dB vs portable int8; weights ${got.weights} B (f16 blocked ${f16mma} B, portable int8 ${ref.weights} B)`);
    expect(got.video.length).toBe(ref.video.length);
    expect(cmp.psnr).toBeGreaterThanOrEqual(60);
    expect(got.weights).toBeLessThan(0.6 * f16mma);
    // the int8 blocked weights streamed through a 2-slot ring (slots rewritten inside every run): the same
    // frames bit for bit (a slot sized or offset by the portable int8 layout would change them or fail)
    const streamed = await decodeWith(true, true);
    expect(streamed.weights).toBeLessThan(got.weights);
    expect(compare(streamed.video, got.video).maxAbs).toBe(0);
  });
});
