// Node only (Dawn + lavapipe; the browser runs the same executor). Weight streaming (--weights-stream; plan/weight-stream.ts, runtime/exec/weight-stream.ts):
// - the plan: every conv weight has a place in one group, inside it, 256-aligned and not overlapping the
//   others; no group is larger than a ring slot; the GPU weights are the ring plus the resident rest;
// - the decode: bit-identical to resident weights (whole frames; int8 weights in exact tiles, tile-major
//   with a CPU store, a ring of 2 slots), the arena's peak = the planned bytes, and the bytes the decoder uploads = the plan's
//   replay of the decode order. A wrong offset or binding size, a group skipped because its slot was
//   thought to hold it, or a write ordered before the work that still reads the slot's previous group,
//   each changes the frames (the generated model has more groups than ring slots, so slots are rewritten
//   inside every program run; the test checks that too).
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import type { Frame } from '../../src/runtime/assembler';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { runOrder, segmentGroups, STREAM_ALIGN } from '../../src/plan/weight-stream';
import { weightBuffers } from '../../src/plan/step-kinds';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 4 });
const cfg = inferConfig(weights);

describe('weight stream plan', () => {
  it.for(['2.1', '2.2'] as const)('Wan%s 480x832-class plan: every conv weight placed once, aligned, inside its group; ring + rest = GPU weights', (v) => {
    const c = inferConfig(syntheticWeights(OFFICIAL[v], { values: false }));
    const h = v === '2.1' ? 60 : 44,
      w = v === '2.1' ? 104 : 80;
    const base: PlanOptions = { frames: 5, h, w, cache: 'on', precision: 'f32', tile: { th: Math.ceil(h / 2), tw: Math.ceil(w / 3), mode: 'exact', order: 'tile-major' } };
    const resident = plan(c, base);
    const t0 = performance.now();
    const p = plan(c, { ...base, weightsStream: true, weightsStreamSlots: 2 });
    const ms = performance.now() - t0;
    const sp = p.weightStream!;
    const convKeys = weightBuffers(
      Object.values(p.programs)
        .flat()
        .flatMap((x) => x.prog.steps),
    )
      .filter((x) => x.conv)
      .map((x) => x.key);
    expect([...sp.entries.keys()].sort()).toEqual(convKeys.sort());
    for (const [g, bytes] of sp.groups.entries()) {
      expect(bytes).toBeLessThanOrEqual(sp.slotBytes[g % sp.slots]!);
      const es = [...sp.entries.values()].filter((e) => e.group === g).sort((a, b) => a.offset - b.offset);
      expect(es.length).toBeGreaterThan(0);
      for (const [i, e] of es.entries()) {
        expect(e.offset % STREAM_ALIGN).toBe(0);
        expect(e.offset + e.bytes).toBeLessThanOrEqual(bytes);
        if (i) expect(e.offset).toBeGreaterThanOrEqual(es[i - 1]!.offset + es[i - 1]!.bytes);
      }
    }
    expect(p.memory.weights).toBe(resident.memory.weights - sp.residentBytes + sp.slotBytes.reduce((a, b) => a + b, 0));
    expect(p.memory.weights).toBeLessThan(resident.memory.weights / 4);
    // groups follow first use: every program meets its groups first in ascending order (the higher levels
    // then repeat theirs once per frame of the chunk: graph.ts runs them frame by frame)
    for (const pp of Object.values(p.programs).flat()) {
      const first = [...new Set(segmentGroups(pp.prog, sp.entries))];
      expect(first).toEqual([...first].sort((a, b) => a - b));
    }
    // bus bytes: at least every group once, at most every group of every run
    const runs = runOrder(p);
    const most = runs.reduce((a, r) => a + segmentGroups(r, sp.entries).reduce((b, g) => b + sp.groups[g]!, 0), 0);
    expect(sp.busBytes).toBeGreaterThanOrEqual(sp.groups.reduce((a, b) => a + b, 0));
    expect(sp.busBytes).toBeLessThanOrEqual(most);
    // the default ring (no slot count): no program run uploads a group twice, so each run uploads at most its distinct groups
    const auto = plan(c, { ...base, weightsStream: true }).weightStream!;
    const distinct = runs.reduce((a, r) => a + [...new Set(segmentGroups(r, auto.entries))].reduce((b, g) => b + auto.groups[g]!, 0), 0);
    expect(auto.slots).toBe(auto.slotsNoRepeat);
    expect(auto.busBytes).toBeLessThanOrEqual(distinct);
    expect(auto.busBytes).toBeLessThan(sp.busBytes);
    console.info(
      `Wan${v} ${h}x${w}x5, 6 tiles: GPU weights ${(resident.memory.weights / 2 ** 20).toFixed(1)} -> ${(p.memory.weights / 2 ** 20).toFixed(1)} MiB (${sp.groups.length} groups, ring of ${sp.slots}: ${(sp.slotBytes[0]! / 2 ** 20).toFixed(1)} MiB), bus ${(sp.busBytesPerChunk / 2 ** 20).toFixed(0)} MiB per chunk; default ring of ${auto.slots}: ${(auto.slotBytes.reduce((a, b) => a + b, 0) / 2 ** 20).toFixed(0)} MiB, bus ${(auto.busBytesPerChunk / 2 ** 20).toFixed(0)} MiB per chunk, plan ${ms.toFixed(0)} ms`,
    );
  });
});

describe('weight stream decode (generated dim-4 model)', () => {
  const T = 3,
    h = 6,
    w = 6;
  const latents = syntheticLatents(4, T, h, w);
  const cases: [string, Partial<PlanOptions>][] = [
    ['whole frames', {}],
    ['int8 weights, exact tiles 2x2, tile-major, CPU store, ring of 2', { weightsPrecision: 'int8', tile: { th: 3, tw: 3, mode: 'exact', order: 'tile-major', store: 'cpu' }, weightsStreamSlots: 2 }],
  ];
  it.for(cases)('%s: frames bit-identical to resident weights, peak = planned, uploads = planned', async ([, o], ctx) => {
    const { device } = await needGpu(ctx);
    const decode = async (stream: boolean) => {
      const p = plan(cfg, { frames: T, h, w, cache: 'on', precision: 'f32', ...o, weightsStream: stream, weightsStreamSlots: stream ? o.weightsStreamSlots : undefined });
      const d = await GpuDecoder.create(device, p, weights);
      const frames: Frame[] = [];
      try {
        await d.decode(latents, (f) => frames.push(f));
        return { p, frames, peak: d.arena.peak, up: d.weightStream ? { ...d.weightStream } : null };
      } finally {
        d.dispose();
      }
    };
    const a = await decode(false);
    const b = await decode(true);
    const sp = b.p.weightStream!;
    expect(sp.groups.length).toBeGreaterThan(sp.slots); // slots are rewritten within a run
    expect(b.frames.length).toBe(a.frames.length);
    for (const [i, f] of b.frames.entries()) expect(Buffer.from(f.rgb.buffer).equals(Buffer.from(a.frames[i]!.rgb.buffer))).toBe(true);
    expect(b.peak).toBe(b.p.memory.total);
    expect(b.p.memory.total).toBeLessThan(a.p.memory.total);
    expect(b.up!.uploadedBytes).toBe(sp.busBytes);
    expect(b.up!.uploads).toBe(sp.uploads);
  });
});
