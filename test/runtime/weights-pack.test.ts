// The GPU preparation of the portable convs' weights (src/runtime/exec/weights-pack.ts,
// shaders/weights-pack.wgsl) against the JS path it replaces: for every conv layout of the decoders
// (3x3x3, the resample 3x3, time_conv 3x1x1, 1x1, cout off 4, the 3- and 12-channel heads), in f32 and
// f16 storage, the bytes in the GPU buffer must EQUAL storageBytes(packConvWeight(w), elem), bit for bit.
// How a wrong implementation fails: every value is a distinct f32 bit pattern (f16: over the whole half
// range plus the rounding edges), so a wrong tap / channel / row index or a wrong rounding changes some
// word; the weight buffers are filled with 0xAB bytes first, so an unwritten word (the zero padding of
// cout to 4) shows; the staging is small, so weights split across chunks (f16: a pair split between two
// dispatches would lose a half), several share a chunk and one does not fit at all (the JS fallback);
// the staging must be left zero (it is an activation slot of the plan).
import { describe, expect, it } from 'vitest';
import { halfEdgeValues } from '../helpers/half';
import { isBrowser } from '../helpers/env';
import { packConvWeight } from '../../src/kernels/conv3d';
import type { BlockedShape } from '../../src/kernels/weights-block';
import { packChunks } from '../../src/kernels/weights-pack';
import type { BlockedWeightJob } from '../../src/runtime/exec/weights';
import { preparePackedWeights } from '../../src/runtime/exec/weights-pack';
import { storageBytes } from '../../src/runtime/f16';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan } from '../../src/plan/planner';
import { inferConfig } from '../../src/model/config';
import { syntheticWeights } from '../../src/model/synthetic';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { getTestDevice, readBytes } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';

const gpu = await getTestDevice();

// [cout, cin, taps]: every conv shape kind of the Wan decoders, small
const shapes: BlockedShape[] = [
  { cout: 20, cin: 20, taps: 27 }, // residual 3x3x3
  { cout: 7, cin: 5, taps: 27 }, // cout off 4
  { cout: 32, cin: 16, taps: 9 }, // the resample Conv2d 3x3
  { cout: 34, cin: 17, taps: 3 }, // time_conv 3x1x1
  { cout: 13, cin: 10, taps: 1 }, // shortcut 1x1
  { cout: 3, cin: 16, taps: 27 }, // the Wan2.1 head
  { cout: 12, cin: 18, taps: 27 }, // the Wan2.2 head (patch 2)
  { cout: 4, cin: 100, taps: 27 }, // 4 rows of 2700 words: larger than the test staging (JS fallback)
];

describe('packChunks: every output channel of every weight once, in groups of 4, chunks bounded', () => {
  it('covers each weight (padding channels in its last part), within the staging and the dispatches per chunk', () => {
    // a wrong split (a channel twice or missed, a group of 4 split, a chunk over the staging) fails here
    for (const [words, maxParts] of [
      [3000, 3],
      [10000, 1],
      [1e9, 64],
      [541, 2],
      [2160, 5],
    ] as const) {
      const { chunks, tooLarge } = packChunks(shapes, words, maxParts);
      expect(tooLarge).toEqual(shapes.flatMap((s, j) => (4 * s.cin * s.taps > words ? [j] : [])));
      const chans = shapes.map(() => [] as number[]);
      for (const c of chunks) {
        expect(c.length).toBeLessThanOrEqual(maxParts);
        let end = 0;
        for (const p of c) {
          const s = shapes[p.job]!;
          expect(p.src0).toBe(end);
          expect(p.o0 % 4).toBe(0);
          expect(p.n % 4).toBe(0);
          end += p.staged * s.cin * s.taps;
          for (let o = p.o0; o < p.o0 + p.n; o++) chans[p.job]!.push(o);
          expect(p.staged).toBe(Math.min(p.n, s.cout - p.o0));
        }
        expect(end).toBeLessThanOrEqual(words);
      }
      shapes.forEach((s, j) => expect(chans[j]).toEqual(tooLarge.includes(j) ? [] : Array.from({ length: Math.ceil(s.cout / 4) * 4 }, (_, o) => o)));
    }
  });
});

describe('preparePackedWeights (GPU) = storageBytes(packConvWeight(w), elem) (JS)', () => {
  for (const elem of ['f32', 'f16'] as const)
    for (const [label, stagingWords, parts] of [
      ['staging of 3000 words, 3 dispatches per chunk', 3000, 3],
      ['staging of 10000 words, 1 dispatch per chunk', 10000, 1],
    ] as const)
      it(`${elem}, ${label}`, async (ctx) => {
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
            const bytes = s.taps * s.cin * Math.ceil(s.cout / 4) * 4 * (elem === 'f16' ? 2 : 4);
            const buf = buffer(bytes, STORAGE);
            device.queue.writeBuffer(buf, 0, new Uint8Array(bytes).fill(0xab));
            return { ...s, key: `w${j}`, buf, data: halfEdgeValues(s.cout * s.cin * s.taps, 7 + j), portable: elem };
          });
          const want = jobs.map((j) => storageBytes(packConvWeight(j.data, j.cout, j.cin, j.taps, 1), elem));
          const staging = buffer(stagingWords * 4, STORAGE);
          const uniforms = buffer(parts * 256, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
          const all = [...jobs];
          device.pushErrorScope('validation');
          const last = await preparePackedWeights(device, cache, jobs, staging, uniforms, 256);
          expect((await device.popErrorScope())?.message).toBeUndefined();
          expect(last).toMatchObject({ gpu: shapes.length - 1, js: 1 });
          expect(last.chunks).toBeGreaterThan(stagingWords === 3000 ? 8 : 4);
          const got = await Promise.all([...all.map((j) => j.buf), staging].map((b) => readBytes(device, b)));
          all.forEach((j, i) => {
            const g = new Uint16Array(got[i]!.buffer),
              w = new Uint16Array(want[i]!.buffer);
            expect(g.length).toBe(w.length);
            const bad = g.findIndex((v, k) => v !== w[k]);
            expect(bad === -1 ? 'identical' : `${j.key} [${j.cout}, ${j.cin}, ${j.taps}] half-word ${bad}: GPU 0x${g[bad]!.toString(16)}, JS 0x${w[bad]!.toString(16)}`).toBe('identical');
          });
          expect(got[all.length]!.every((b) => b === 0)).toBe(true);
        } finally {
          for (const b of created) b.destroy();
        }
      });
});

// Node (lavapipe) only: in the browser project SwiftShader compiles the GPU tuning's conv pipelines of two
// decoders for ~25 s of CI; the kernel itself is checked there by the preparePackedWeights cases above
describe('GpuDecoder.create packs the portable conv weights on the GPU', () => {
  for (const elem of ['f32', 'f16'] as const)
    it.skipIf(isBrowser)(`${elem}: every conv weight buffer equals the JS-packed one; nothing allocated beyond the plan (peak = planned)`, async (ctx) => {
      // the decoder built with weightPrep 'js' is the reference; a wrongly packed buffer, a weight left
      // to JS silently (last.gpu) or a staging of its own (arena peak) fails here. GPU tuning: the
      // conv3d-tiled convs of a GPU adapter read this layout too.
      const { device } = elem === 'f16' ? needF16(ctx, gpu) : needDevice(ctx, gpu);
      const weights = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 5 });
      const p = plan(inferConfig(weights), { frames: 1, h: 4, w: 6, cache: 'on', precision: elem });
      const build = async (mode: 'gpu' | 'js') => {
        return await GpuDecoder.create(device, p, weights, { tuning: { ...conv3dTuning.gpu }, weightPrep: mode });
      };
      const js = await build('js');
      const dec = await build('gpu');
      try {
        const bufs = (d: GpuDecoder) => (d as unknown as { res: { weights: Map<string, GPUBuffer> } }).res.weights;
        const convs = [...bufs(dec).keys()].filter((k) => k.endsWith('.weight') && weights.map.get(k)!.shape.length >= 4);
        expect(convs.length).toBeGreaterThan(30);
        // this decoder's own counts (GpuDecoder.build.pack)
        expect(dec.build.pack.gpu + dec.build.pack.js).toBe(convs.length);
        expect(dec.build.pack.gpu).toBeGreaterThan(convs.length / 2);
        expect(dec.arena.peak).toBe(p.memory.total);
        for (const k of convs) expect(firstDifference(await readBytes(device, bufs(dec).get(k)!), await readBytes(device, bufs(js).get(k)!)), k).toBe(-1);
        // a CPU adapter's tuning (the GPU is this CPU): every weight packed in JS, no staging used
        if (elem === 'f32') {
          const cpu = await GpuDecoder.create(device, p, weights, { tuning: { ...conv3dTuning.cpu } });
          cpu.dispose();
          expect(cpu.build.pack).toMatchObject({ gpu: 0, js: convs.length, chunks: 0 });
          expect(dec.build.pack.gpu).toBeGreaterThan(convs.length / 2); // unchanged by another decoder's build
        }
      } finally {
        dec.dispose();
        js.dispose();
      }
    });
});

/** The first byte index where `a` and `b` differ (a length difference counts at the shorter length), or -1 (no Node `Buffer`: this file runs in the browser too). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
