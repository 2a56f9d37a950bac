// Offloaded caches (PlanOptions.cacheOffload, src/runtime/exec/cache-park.ts): frame-major exact tiles
// whose cache rings are parked in CPU memory between each tile's runs give the same frames as the same
// tiling with every tile's rings resident (max |err| 0) and as whole frames; the GPU holds one tile's
// rings (+ their readback buffer) and allocates exactly the plan; the bytes uploaded into the shared
// rings are the plan's bus figure (half of Plan.bus.cache). Small: generated Wan2.1 decoder at dim 4,
// 3 latent frames of 3x24, 3 tiles of 3x8 latent px whose windows (core + 7 px halo, clipped) differ, so
// the three tiles' rings hold different values.
// Why a wrong implementation fails: a park that skipped the upload (each tile reading the previous
// tile's ring frames) is checked to differ below; a park that read back the wrong tile or the wrong
// offsets gives the same kind of difference; a planner that counted the rings of every tile, or forgot
// the readback buffer, fails allocated = planned.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { CachePark } from '../../src/runtime/exec/cache-park';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { plan, type Plan, type PlanOptions } from '../../src/plan/planner';
import { needGpu } from '../helpers/need';

const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 7 });
const cfg = inferConfig(weights);
const T = 3,
  h = 3,
  w = 24;
const latents = syntheticLatents(4, T, h, w);
const base: PlanOptions = { frames: T, h, w, cache: 'on', precision: 'f32' };
const tile = { th: 3, tw: 8, mode: 'exact', order: 'frame-major' } as const;

async function decode(device: GPUDevice, p: Plan, count?: { upload: number }): Promise<{ video: Float32Array; gpu: number }> {
  const dec = await GpuDecoder.create(device, p, weights);
  const frames: Float32Array[] = [];
  const q = device.queue;
  const write = q.writeBuffer;
  if (count)
    q.writeBuffer = function (this: GPUQueue, buf: GPUBuffer, off: number, data: BufferSource | SharedArrayBuffer, dataOff?: number, size?: number) {
      if (buf.label.includes('parked in CPU memory')) count.upload += size ?? 0;
      return write.call(this, buf, off, data as BufferSource, dataOff, size);
    } as GPUQueue['writeBuffer'];
  try {
    await dec.decode(latents, (f) => void frames.push(f.rgb));
    const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
    frames.reduce((o, f) => (out.set(f, o), o + f.length), 0);
    return { video: out, gpu: dec.arena.bytes.total };
  } finally {
    q.writeBuffer = write;
    dec.dispose();
  }
}

const maxAbs = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), a.length === b.length ? 0 : Infinity);

afterEach(() => vi.restoreAllMocks());

describe('cache offload', () => {
  it('plans one tile of rings on the GPU and every tile in CPU memory; refuses orders without tile rings', () => {
    const resident = plan(cfg, { ...base, tile });
    const off = plan(cfg, { ...base, tile, cacheOffload: true });
    const tileRings = resident.rings.filter((r) => r.tile !== null);
    expect(new Set(tileRings.map((r) => r.tile)).size).toBe(3);
    const parked = tileRings.reduce((a, r) => a + r.bytes, 0);
    expect(off.host.cache).toBe(parked);
    expect(off.host.store).toBe(0);
    expect(off.host.total).toBe(parked + off.host.frames);
    // GPU: the latent-rate rings + one buffer per ring slot (the largest tile's) instead of three
    const perSlot = new Map<string, number>();
    for (const r of tileRings) perSlot.set(r.key.replace(/^t\d+\./, ''), Math.max(perSlot.get(r.key.replace(/^t\d+\./, '')) ?? 0, r.bytes));
    const latentRings = resident.memory.cache - parked;
    expect(off.memory.cache).toBe(latentRings + [...perSlot.values()].reduce((a, b) => a + b, 0));
    expect(off.memory.cache).toBeLessThan(resident.memory.cache);
    // the readback buffer holds the largest ring; each tile's rings go through it in batches that fit
    expect(off.parkStagingBytes).toBe(Math.max(...tileRings.map((r) => r.bytes)));
    // one parked entry per tile, each with its rings (an empty park list would skip the loop below)
    expect(off.park!.map((t) => t.tile)).toEqual([0, 1, 2]);
    for (const t of off.park!) {
      expect(t.bytes).toBe(tileRings.filter((r) => r.tile === t.tile).reduce((a, r) => a + r.bytes, 0));
      for (let b = 0; b < t.batches; b++) expect(t.rings.filter((r) => r.batch === b).reduce((a, r) => a + r.bytes, 0)).toBeLessThanOrEqual(off.parkStagingBytes);
      expect(t.batches).toBeGreaterThan(1);
    }
    expect(off.memory.staging - resident.memory.staging).toBe(off.parkStagingBytes);
    // rings come back after chunks 0..T-2 and go up before chunks 1..T-1
    expect(off.bus.cache).toBe(2 * (T - 1) * parked);
    expect(resident.bus.cache).toBe(0);
    expect(() => plan(cfg, { ...base, tile: { ...tile, order: 'tile-major' }, cacheOffload: true })).toThrow(/frame-major tiling and the cache on/);
    expect(() => plan(cfg, { ...base, cacheOffload: true })).toThrow(/whole frames/);
  });

  it('is exact: the same frames as every tile resident and as whole frames; allocated = planned; uploads = the plan', async (ctx) => {
    const { device } = await needGpu(ctx);
    const whole = await decode(device, plan(cfg, base));
    const resident = await decode(device, plan(cfg, { ...base, tile }));
    const pOff = plan(cfg, { ...base, tile, cacheOffload: true });
    const count = { upload: 0 };
    const off = await decode(device, pOff, count);
    console.log(
      `cache offload (dim 4, ${T}x${h}x${w}, 3 tiles): GPU ${off.gpu} B vs ${resident.gpu} B resident; host ${pOff.host.cache} B parked; uploaded ${count.upload} B (plan ${pOff.bus.cache / 2})`,
    );
    expect(maxAbs(resident.video, whole.video)).toBe(0);
    expect(maxAbs(off.video, resident.video)).toBe(0);
    expect(off.gpu).toBe(pOff.memory.total);
    expect(count.upload).toBe(pOff.bus.cache / 2);

    // the negative control: without the upload each tile runs on the previous tile's ring frames
    vi.spyOn(CachePark.prototype, 'before').mockImplementation(() => undefined);
    const broken = await decode(device, pOff);
    expect(maxAbs(broken.video, resident.video)).toBeGreaterThan(1e-3);
  });
});
