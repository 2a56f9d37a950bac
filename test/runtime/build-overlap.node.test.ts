// The build overlapped with the first chunk (runtime/gpu-decoder.ts `overlap`, exec/encode.ts readyEnd /
// stepReady): GpuDecoder.create resolves once the weights are prepared, while pipelines still compile,
// and the first run is submitted range by range of steps whose pipelines are compiled.
// Measured here: the build's timeline (BuildReport.events) against the first chunk's submissions, and the
// frames against a decoder built the old way (every pipeline compiled before the first chunk).
// How a wrong implementation fails: a step submitted before its pipeline was compiled has no pipeline
// (Dawn: validation error, or a TypeError recording it); the late pipeline (the output kernel, the last
// step of every program, held back here by 300 ms so that the order does not depend on this machine's
// load) must come after the first submission of chunk 0, or nothing overlapped; a wrong split (uniform slots, ring counters, the staging
// copy in another range than the last, a store write lost, a weight preparation's staging (the largest
// activation slot, the tensor-core operand copy) overwritten after chunk 0 started) changes frames,
// compared bit for bit; a
// decoder that leaves pipelines compiling after its decode resolved leaves the report incomplete.
import { describe, expect, it } from 'vitest';
import { conv3dTuning, conv3dTuningFor } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 5 });
const cfg = inferConfig(weights);
const T = 3,
  h = 3,
  w = 16;
const latents = syntheticLatents(4, T, h, w); // 9 frames: chunk 0 gives 1, later chunks 4
const cases: [string, PlanOptions][] = [
  ['whole frames, Winograd where planned', { frames: T, h, w, cache: 'on', precision: 'f32', conv: 'auto' }],
  ['whole frames, every 3x3 conv as F(4x4)', { frames: T, h, w, cache: 'on', precision: 'f32', conv: 'winograd4' }],
  ['tile-major tiles (cpu store)', { frames: T, h, w, cache: 'on', precision: 'f32', tile: { th: 3, tw: 8, mode: 'exact', order: 'tile-major', store: 'cpu' } }],
  ['f16, tensor cores (emulated)', { frames: T, h, w, cache: 'on', precision: 'f16', tensorCores: true }],
];
const HELD_MS = 300;

describe('the build overlapped with the first chunk', () => {
  for (const [name, opts] of cases)
    it(`${name}: chunk 0 starts before the last pipeline; frames equal the non-overlapped build`, async (ctx) => {
      const { device, info } = await needGpu(ctx);
      const p = plan(cfg, opts);
      const mma = opts.tensorCores ? { subgroupSize: 32, emulate: true } : null;
      // tensor cores: the adapter's tuning (as their tests); portable: the GPU tuning, so that the weights are prepared through the largest slot
      const tuning = mma ? conv3dTuningFor(info) : { ...conv3dTuning.gpu };
      const collect = async (dec: GpuDecoder) => {
        const frames: Float32Array[] = [];
        await dec.decode(latents, (f) => void frames.push(f.rgb));
        return frames;
      };
      const ref = await GpuDecoder.create(device, p, weights, { tuning, mma, overlap: false });
      const want = await collect(ref);
      expect(ref.build.overlappedSubmits).toBe(0);
      ref.dispose();
      // the output kernel's pipeline held back (as a slow compile would be)
      const pipe = device.createComputePipelineAsync;
      device.createComputePipelineAsync = function (this: GPUDevice, d: GPUComputePipelineDescriptor) {
        const made = pipe.call(this, d);
        return String(d.label).startsWith('output|') ? made.then((x) => new Promise<GPUComputePipeline>((ok) => setTimeout(() => ok(x), HELD_MS))) : made;
      } as GPUDevice['createComputePipelineAsync'];
      let dec: GpuDecoder;
      try {
        dec = await GpuDecoder.create(device, p, weights, { tuning, mma });
      } finally {
        delete (device as Partial<GPUDevice>).createComputePipelineAsync;
      }
      try {
        const got = await collect(dec);
        const ev = dec.build.events;
        const at = (re: RegExp) => ev.filter((e) => re.test(e.what)).map((e) => e.ms);
        const head = at(/^pipeline output\|/).sort((a, b) => a - b);
        const submits0 = ev.filter((e) => /^submit 0 /.test(e.what));
        const ready = at(/^ready$/)[0]!;
        const compiled = at(/^pipelines compiled$/)[0]!;
        console.log(
          `${name}: ready ${ready.toFixed(0)} ms, output pipeline ${head.map((x) => x.toFixed(0)).join(', ')} ms, all compiled ${compiled.toFixed(0)} ms; chunk 0: ${submits0
            .map((e) => `${e.what.slice(9)} at ${e.ms.toFixed(0)}`)
            .join('; ')}; placed ${at(/^placed 0$/)[0]?.toFixed(0)} ms; ${dec.build.overlappedSubmits} submissions while compiling`,
        );
        expect(head.length).toBeGreaterThan(0);
        // create returned before the output pipeline was there, chunk 0 was submitted before it too
        expect(ready).toBeLessThan(head[0]!);
        expect(submits0[0]!.ms).toBeLessThan(head[0]!);
        expect(dec.build.overlappedSubmits).toBeGreaterThan(0);
        // the ranges of chunk 0 cover its program's steps in order, once (tile-major: its latent part, then tile 0)
        const ranges = submits0.map((e) => /steps (\d+)-(\d+)/.exec(e.what)!.slice(1).map(Number) as [number, number]);
        const firstProg = p.programs.first![0]!.prog;
        let next = 0;
        for (const [a, b] of ranges.slice(0, ranges.findIndex(([, b]) => b === firstProg.steps.length - 1) + 1)) {
          expect(a).toBe(next);
          next = b + 1;
        }
        expect(next).toBe(firstProg.steps.length);
        // the output step went out after its pipeline
        const headStep = firstProg.steps.findIndex((s) => s.kind === 'output');
        // (tile-major: the output runs in the tile programs, after the latent part)
        if (headStep >= 0) {
          const headSubmit = submits0.find((e) => {
            const [a, b] = /steps (\d+)-(\d+)/.exec(e.what)!.slice(1).map(Number) as [number, number];
            return a <= headStep && headStep <= b;
          })!;
          expect(headSubmit.ms).toBeGreaterThanOrEqual(head[0]!);
        }
        // complete once the decode resolved
        expect(dec.build.totalMs).toBeGreaterThanOrEqual(head[0]!);
        expect(got.length).toBe(want.length);
        got.forEach((f, i) => expect(Buffer.from(f.buffer).equals(Buffer.from(want[i]!.buffer))).toBe(true));
      } finally {
        dec.dispose();
      }
    });
});
