// The GPU preparation of tensor-core conv weights (src/runtime/exec/weights.ts prepareBlockedWeights,
// shaders/weights-block.wgsl) against the JS path it replaces: for every weight layout the decoder uses
// on tensor cores (3x3x3, the 2-D resample 3x3, time_conv 3x1x1, 1x1 shortcuts / attention / conv2,
// channel counts off 16, the 3- and 12-channel heads), the bytes in the GPU buffer must EQUAL
// storageBytes(packConvWeightBlocked(w), 'f16'), bit for bit.
// How a wrong implementation fails: the values are random f32 bit patterns over the whole f16 range (and
// below it), plus the rounding edges (ties to even both ways, the largest finite half and the first value
// that rounds to inf, subnormal halves, values under 2^-25, -0, +-inf, NaN of both signs): truncating,
// rounding ties away, f16() of the implementation, flushing subnormals each change some of them; every
// value is distinct, so a wrong tap / block / row / channel index moves a value; the weight buffers are
// filled with 0xAB bytes first, so a word left unwritten (the zero padding of cout and cin) shows. The
// staging is small so weights split across chunks mid-block, several weights share a chunk and one
// weight's row does not fit at all (the JS fallback); a chunk-boundary error misplaces rows.
import { describe, expect, it } from 'vitest';
import { halfEdgeValues } from '../helpers/half';
import { packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { blockChunks, type BlockedShape } from '../../src/kernels/weights-block';
import { prepareBlockedWeights, type BlockedWeightJob } from '../../src/runtime/exec/weights';
import { storageBytes } from '../../src/runtime/f16';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan } from '../../src/plan/planner';
import { inferConfig } from '../../src/model/config';
import { syntheticWeights } from '../../src/model/synthetic';
import { conv3dTuningFor } from '../../src/kernels/conv3d';
import { needF16 } from '../helpers/need';
import { getTestDevice, readBytes } from '../helpers/gpu';
import { needDevice } from '../helpers/need';

const gpu = await getTestDevice();

// [cout, cin, taps]: every conv shape kind of the Wan decoders, small
const shapes: BlockedShape[] = [
  { cout: 20, cin: 20, taps: 27 }, // residual 3x3x3, one block and a tail on both sides
  { cout: 7, cin: 5, taps: 27 },
  { cout: 32, cin: 16, taps: 9 }, // the resample Conv2d 3x3
  { cout: 34, cin: 17, taps: 3 }, // time_conv 3x1x1
  { cout: 13, cin: 10, taps: 1 }, // shortcut 1x1
  { cout: 48, cin: 48, taps: 1 }, // conv2 of Wan2.2, attention to_qkv / proj are 1x1 too
  { cout: 3, cin: 16, taps: 27 }, // the Wan2.1 head
  { cout: 12, cin: 18, taps: 27 }, // the Wan2.2 head (patch 2)
  { cout: 16, cin: 400, taps: 27 }, // one row of 10800 words: larger than the test staging (JS fallback)
];

describe('blockChunks: every row of every weight once, chunks bounded', () => {
  it('covers each weight row by row (padding rows in the last part), within the staging and the dispatches per chunk', () => {
    // a wrong split (a row twice or missed, a chunk over the staging) fails the coverage / bound checks
    for (const [words, maxParts] of [
      [3000, 3],
      [10800, 1],
      [1e9, 64],
      [541, 2],
    ] as const) {
      const { chunks, tooLarge } = blockChunks(shapes, words, maxParts);
      expect(tooLarge).toEqual(shapes.flatMap((s, j) => (s.cin * s.taps > words ? [j] : [])));
      const rows = shapes.map(() => [] as number[]);
      for (const c of chunks) {
        expect(c.length).toBeLessThanOrEqual(maxParts);
        let end = 0;
        for (const p of c) {
          const s = shapes[p.job]!;
          expect(p.src0).toBe(end); // staged rows packed back to back
          end += p.staged * s.cin * s.taps;
          for (let o = p.o0; o < p.o0 + p.n; o++) rows[p.job]!.push(o);
          expect(p.staged).toBe(Math.min(p.n, s.cout - p.o0));
        }
        expect(end).toBeLessThanOrEqual(words);
      }
      shapes.forEach((s, j) => expect(rows[j]).toEqual(tooLarge.includes(j) ? [] : Array.from({ length: Math.ceil(s.cout / 16) * 16 }, (_, o) => o)));
    }
  });
});

describe('prepareBlockedWeights (GPU) = storageBytes(packConvWeightBlocked(w), f16) (JS)', () => {
  for (const [label, stagingWords, parts] of [
    ['staging of 3000 words, 3 dispatches per chunk', 3000, 3],
    ['one staging for all but the 10800-word row, 1 dispatch per chunk', 10000, 1],
  ] as const)
    it(label, async (ctx) => {
      const { device, cache } = needDevice(ctx, gpu);
      const created: GPUBuffer[] = [];
      const buffer = (size: number, usage: number) => {
        const b = device.createBuffer({ size, usage });
        created.push(b);
        return b;
      };
      const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
      try {
        const jobs: BlockedWeightJob[] = shapes.map((s, j) => {
          const blocked = s.taps * Math.ceil(s.cout / 16) * Math.ceil(s.cin / 16) * 256;
          const buf = buffer(blocked * 2, STORAGE);
          device.queue.writeBuffer(buf, 0, new Uint8Array(blocked * 2).fill(0xab));
          return { ...s, key: `w${j}`, buf, data: halfEdgeValues(s.cout * s.cin * s.taps, 11 + j) };
        });
        const want = jobs.map((j) => storageBytes(packConvWeightBlocked(j.data, j.cout, j.cin, j.taps, 1), 'f16'));
        const staging = buffer(stagingWords * 4, STORAGE);
        const uniforms = buffer(parts * 256, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
        const all = [...jobs];
        device.pushErrorScope('validation');
        const last = await prepareBlockedWeights(device, cache, jobs, staging, uniforms, 256);
        expect((await device.popErrorScope())?.message).toBeUndefined();
        // the last weight's row (400 x 27 words) is over either staging: JS; the rest on the GPU
        expect(last).toMatchObject({ gpu: shapes.length - 1, js: 1 });
        expect(last.chunks).toBeGreaterThan(stagingWords === 3000 ? 8 : 4);
        const got = await Promise.all([...all.map((j) => j.buf), staging].map((b) => readBytes(device, b)));
        all.forEach((j, i) => {
          const g = new Uint16Array(got[i]!.buffer),
            w = new Uint16Array(want[i]!.buffer);
          const bad = g.findIndex((v, k) => v !== w[k]);
          expect(bad === -1 ? 'identical' : `${j.key} [${j.cout}, ${j.cin}, ${j.taps}] half ${bad}: GPU 0x${g[bad]!.toString(16)}, JS 0x${w[bad]!.toString(16)}`).toBe('identical');
        });
        // the staging is left as created: zeros (it is the decoder's operand copy)
        expect(got[all.length]!.every((b) => b === 0)).toBe(true);
      } finally {
        for (const b of created) b.destroy();
      }
    });
});

describe('GpuDecoder.create prepares the tensor-core weights on the GPU', () => {
  it('every conv weight buffer equals the JS-prepared one; nothing allocated beyond the plan (peak = planned)', async (ctx) => {
    // a decoder built with weightPrep 'js' is the reference; a buffer prepared wrongly, or a weight left
    // to the JS path silently (last.gpu), or a staging buffer of its own (arena peak) fails here
    const { device, info } = needF16(ctx, gpu);
    const weights = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 5 });
    const p = plan(inferConfig(weights), { frames: 1, h: 2, w: 3, cache: 'on', precision: 'f16', tensorCores: true, upPhases: true });
    const build = async (mode: 'gpu' | 'js') => {
      return await GpuDecoder.create(device, p, weights, { tuning: conv3dTuningFor(info), mma: { subgroupSize: 32, emulate: true }, weightPrep: mode });
    };
    const js = await build('js');
    const dec = await build('gpu');
    try {
      const bufs = (d: GpuDecoder) => (d as unknown as { res: { weights: Map<string, GPUBuffer> } }).res.weights;
      // the conv weights this plan uploads (a 1-frame plan runs no time_conv); the upsample Conv2ds' four-phase
      // weights (plan/conv-form.ts upPhases: 16 taps made from the 3x3 rows before the GPU blocks them) under their own key
      const convs = [...bufs(dec).keys()].filter((k) => (k.endsWith('.weight') && weights.map.get(k)!.shape.length >= 4) || k.endsWith('.weight.up2'));
      expect(convs.length).toBeGreaterThan(30);
      expect(convs.filter((k) => k.endsWith('.up2'))).toHaveLength(3);
      expect(dec.build.prep.gpu).toBe(convs.length);
      expect(js.build.prep).toMatchObject({ mode: 'js', gpu: 0 });
      expect(dec.arena.peak).toBe(p.memory.total);
      for (const k of convs) expect(Buffer.from(await readBytes(device, bufs(dec).get(k)!)).equals(Buffer.from(await readBytes(device, bufs(js).get(k)!))), k).toBe(true);
    } finally {
      dec.dispose();
      js.dispose();
    }
  });
});
