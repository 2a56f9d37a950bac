// Winograd U made per conv call (src/plan/conv-form.ts WinoPlan.u = 'call'): the conv holds its f32 3x3 rows, and
// winograd-u (kernels/winograd-weights.ts winogradWeightsCall) writes U into a step-local scratch in an activation
// slot (planner.ts assignSlots) before the GEMM of the conv's first band.
//  1. the kernel: U = the upload's U (exec/wino-weights.ts, the same transform code) bit for bit, F(2x2) and F(4x4),
//     kt 3 and 1, cout not a multiple of 4 (the padded columns written zero into a NaN-filled scratch); a band
//     other than the first dispatches nothing (the scratch stays as it was);
//  2. the planner (no GPU): Wan2.1 480x832x81 f32 default under 4.5 GiB (4608 MiB) with U per call, against the
//     held plan; the weight bytes differ by exactly every U less every row; every scratch sits past the tensors of
//     its slot live at its step, inside the slot; f16 storage keeps F(2x2) (f16 U, 8/9 of the rows) held; tensor-core
//     plans have no Winograd conv and plan the same bytes either way;
//  3. whole decodes (generated Wan2.1 decoder at dim 24, 2 latent frames, norm fused, the GPU tuning: the held U made
//     by the GPU kernel too; f32, and f16 storage with F(4x4)'s f32 U): U per call against U held, every output
//     float equal bit for bit, peak GPU = planned.
// Why a wrong implementation fails: U's values are O(0.1-1) and equality is exact; a scratch placed over a live
// tensor, a U written for the wrong conv's rows / shape or after its GEMM, or a first band taken for another,
// changes the video; a planner that placed no scratch fails the placement checks (and the executor throws).
import { describe, expect, it } from 'vitest';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { winoWeightLength, type WinoR } from '../../src/kernels/winograd-transforms';
import { winogradWeightsCall } from '../../src/kernels/winograd-weights';
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { assignWinoU, winoPlanFor, winoRowsBytes, winoUBytes, type WinoUOption } from '../../src/plan/conv-form';
import type { ConvStep, Step } from '../../src/plan/graph';
import { plan, type Plan, type PlanOptions } from '../../src/plan/planner';
import { kindOf, stepScratchBytes } from '../../src/plan/step-kinds';
import type { BlockedWeightJob } from '../../src/runtime/exec/weights';
import { prepareWinoWeights } from '../../src/runtime/exec/wino-weights';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice, needF16 } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();
const MiB = 2 ** 20;

const steps = (p: Plan): Step[] =>
  Object.values(p.programs)
    .flat()
    .flatMap((pp) => pp.prog.steps);
const winoConvs = (p: Plan) => steps(p).filter((s): s is ConvStep => s.kind === 'conv' && !!s.wino);

describe('winograd-u: U made per call = the upload U, bit for bit', () => {
  const cases: { r: WinoR; cout: number; cin: number; kt: number }[] = [
    { r: 2, cout: 10, cin: 5, kt: 3 },
    { r: 4, cout: 7, cin: 6, kt: 1 },
    { r: 4, cout: 16, cin: 8, kt: 3 },
  ];
  it.for(cases.map((c) => [`F(${c.r}x${c.r}) cout${c.cout} cin${c.cin} kt${c.kt}`, c] as const))('%s', async ([name, c], ctx) => {
    needDevice(ctx, gpu);
    const w = randn(c.cout * c.cin * c.kt * 9, 7 + c.cout, 0.3);
    const n = winoWeightLength(c.r, c.cout, c.cin, c.kt);
    const { held, call, later } = await withDevice(async (s) => {
      // the upload's U (whole weight in one part), into a zeroed buffer as the arena creates it
      const heldBuf = s.zeros(n, 4, 'U held');
      const staging = s.zeros(c.cout * c.cin * c.kt * 9, 4, 'staging');
      const uniforms = s.device.createBuffer({ label: 'uniforms', size: 256, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      const job: BlockedWeightJob = { key: 'u', buf: heldBuf, data: w, cout: c.cout, cin: c.cin, taps: c.kt * 9, wino: c.r };
      const counts = await prepareWinoWeights(s.device, s.gpu.cache, [job], staging, uniforms);
      expect(counts.gpu).toBe(1);
      uniforms.destroy();
      // per call: from the rows as a weight buffer into a NaN-filled scratch (a slot's stale contents)
      const rows = s.upload(w, 'f32', 'rows');
      const def = winogradWeightsCall(c.r, 'elem');
      const p = { cin: c.cin, cout: c.cout, h: 8, w: 8, x_off: 0, prev2_off: 0, prev1_off: 0, res_off: 0, y_off: 0, tap0: 0, t0: 0, nt: 4, m_off: 0 };
      const callBuf = s.upload(new Float32Array(n).fill(NaN), 'f32', 'U scratch');
      await s.run(def, p, { KT: c.kt }, 'f32', [rows, callBuf]);
      // a later band (t0 > 0): no work
      const laterBuf = s.upload(new Float32Array(n).fill(NaN), 'f32', 'U scratch, later band');
      expect(def.dispatch({ ...p, t0: 128 }, { KT: c.kt })).toEqual([0, 0, 0]);
      return { held: await s.read(heldBuf, 'f32', n), call: await s.read(callBuf, 'f32', n), later: await s.read(laterBuf, 'f32', n) };
    });
    const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);
    expect(held.some((v) => v !== 0)).toBe(true);
    expect(bits(call)).toEqual(bits(held));
    expect(later.every((v) => Number.isNaN(v))).toBe(true);
    console.info(`winograd-u ${name}: ${n} values equal to the upload's bit for bit`);
  });
});

describe('planner: U per call', () => {
  const cfg21 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
  const at = (precision: 'f32' | 'f16', winoU: WinoUOption, extra: Partial<PlanOptions> = {}) => plan(cfg21, { frames: 21, h: 60, w: 104, cache: 'on', precision, conv: 'auto', winoU, ...extra });

  /** Every step scratch inside its slot, past every tensor of that slot live at its step (and 256-aligned). */
  function checkPlacement(p: Plan): number {
    let n = 0;
    for (const pp of Object.values(p.programs).flat()) {
      if (!pp.scratchOf) continue;
      const live = new Map<number, [number, number]>();
      pp.prog.steps.forEach((s, i) => {
        for (const v of kindOf(s).views(s)) {
          const r = live.get(v.t.id) ?? [i, i];
          live.set(v.t.id, [Math.min(r[0], i), Math.max(r[1], i)]);
        }
      });
      pp.prog.steps.forEach((s, i) => {
        const bytes = stepScratchBytes(s, p.elemBytes);
        const place = pp.scratchOf![i];
        expect(!!place, `${s.label}: scratch placed`).toBe(bytes > 0);
        if (!place) return;
        n++;
        expect(place.offset % 256).toBe(0);
        expect(place.offset + bytes).toBeLessThanOrEqual(p.slots[place.slot]!.bytes);
        for (const t of pp.prog.tensors) {
          const r = live.get(t.id);
          if (t.io || !r || r[0] > i || r[1] < i || pp.slotOf[t.id] !== place.slot) continue;
          expect(t.elems * p.elemBytes, `${s.label}: tensor ${t.id} live in the scratch's slot`).toBeLessThanOrEqual(place.offset);
        }
      });
    }
    return n;
  }

  it('Wan2.1 480x832x81 f32 default: under 4608 MiB with U per call; weights differ by every U less every row', () => {
    const held = at('f32', 'held');
    const call = at('f32', 'auto');
    const convs = winoConvs(call);
    expect(winoConvs(held).some((s) => s.wino?.u)).toBe(false);
    expect(convs.length).toBeGreaterThan(0);
    expect(convs.every((s) => s.wino?.u === 'call')).toBe(true); // f32: F(4x4) U is 4x the rows, F(2x2) 16/9
    // weight bytes: U (each U key once) replaced by the rows (each weight once)
    const u = new Map<string, number>(),
      rows = new Map<string, number>();
    for (const s of convs) (u.set(`${s.wkey}.${s.wino!.r}`, winoUBytes(s.wino!, s, 4)), rows.set(s.wkey, winoRowsBytes(s)));
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    expect(held.memory.weights - call.memory.weights).toBe(sum(u) - sum(rows));
    // the scratch costs at most the largest U in slot bytes (most of it finds room in the slots as they are)
    const slotGrowth = call.memory.activations - held.memory.activations;
    expect(slotGrowth).toBeGreaterThanOrEqual(0);
    expect(slotGrowth).toBeLessThan(Math.max(...u.values()));
    expect(call.memory.total).toBeLessThan(4608 * MiB);
    expect(checkPlacement(call)).toBeGreaterThan(0);
    console.info(
      `Wan2.1 480x832x81 f32: held ${(held.memory.total / MiB).toFixed(1)} MiB (weights ${(held.memory.weights / MiB).toFixed(1)}), U per call ${(call.memory.total / MiB).toFixed(1)} MiB (weights ${(call.memory.weights / MiB).toFixed(1)}, slots +${(slotGrowth / MiB).toFixed(1)})`,
    );
  });

  it('f16 storage: F(4x4) (f32 U) per call, F(2x2) (f16 U) held; tensor-core plans the same bytes either way', () => {
    const held = at('f16', 'held');
    const call = at('f16', 'auto');
    const convs = winoConvs(call);
    expect(convs.filter((s) => s.wino!.r === 4).every((s) => s.wino!.u === 'call')).toBe(true);
    expect(convs.filter((s) => s.wino!.r === 2).every((s) => !s.wino!.u)).toBe(true);
    expect(convs.some((s) => s.wino!.r === 2)).toBe(true);
    expect(call.memory.total).toBeLessThan(held.memory.total);
    expect(checkPlacement(call)).toBeGreaterThan(0);
    // 'call' forces F(2x2) too (rows 4 B per weight against U's 3.6 B): more weight bytes than 'auto'
    const forced = at('f16', 'call');
    expect(winoConvs(forced).every((s) => s.wino!.u === 'call')).toBe(true);
    expect(forced.memory.weights).toBeGreaterThan(call.memory.weights);
    const tc = [at('f16', 'held', { tensorCores: true }), at('f16', 'auto', { tensorCores: true })];
    expect(winoConvs(tc[1]!)).toHaveLength(0);
    expect(tc[1]!.memory.total).toBe(tc[0]!.memory.total);
    console.info(
      `Wan2.1 480x832x81 f16 portable: held ${(held.memory.total / MiB).toFixed(1)} MiB, U per call ${(call.memory.total / MiB).toFixed(1)} MiB; tensor cores ${(tc[0]!.memory.total / MiB).toFixed(1)} MiB`,
    );
  });

  it("'auto' keeps U held where the rows and one U cost more than U: a plan of one Winograd conv", () => {
    const shape = { ks: 3, kt: 3, cin: 96, cout: 96, h: 60, w: 104 };
    const one = { kind: 'conv', wkey: 'decoder.conv', form: 'winograd' as const, ...shape, wino: winoPlanFor(4, shape)! };
    assignWinoU([one], 'auto', 4); // rows + its U (the scratch) > its U
    expect(one.wino.u).toBeUndefined();
    const two = [one, { ...one, wkey: 'decoder.conv2', wino: winoPlanFor(4, shape)! }];
    assignWinoU(two, 'auto', 4); // 2 rows + one U < two U
    expect(two.map((s) => s.wino.u)).toEqual(['call', 'call']);
    const held = { ...one, wkey: 'decoder.conv3', wino: winoPlanFor(4, shape)! };
    assignWinoU([held], 'held', 4);
    expect(held.wino.u).toBeUndefined();
    assignWinoU([held], 'call', 4);
    expect(held.wino.u).toBe('call');
  });
});

describe('whole decodes: U per call against U held, bit for bit', () => {
  it.for([
    ['winograd4', 4, 'f32'],
    ['winograd', 2, 'f32'],
    ['winograd4', 4, 'f16'],
  ] as const)('--conv %s (F(%d)), %s storage, GPU tuning: every output float equal, peak = planned', async ([conv, r, precision], ctx) => {
    if (precision === 'f16') needF16(ctx, gpu);
    else needDevice(ctx, gpu);
    const weights = syntheticWeights({ version: '2.1', dim: 24, zDim: 16, seed: 9 });
    const cfg = inferConfig(weights);
    const run = async (winoU: WinoUOption) => {
      const p = plan(cfg, { frames: 2, h: 3, w: 4, cache: 'on', precision, norm: 'fused', conv, winoU });
      const dec = await GpuDecoder.create(gpu!.device, p, weights, { tuning: conv3dTuning.gpu });
      const frames: Float32Array[] = [];
      try {
        await dec.decode(syntheticLatents(16, 2, 3, 4), (f) => void frames.push(f.rgb.slice()));
        return { p, frames, peak: dec.arena.peak, wino: dec.build.wino };
      } finally {
        dec.dispose();
      }
    };
    const held = await run('held');
    const call = await run('call');
    const perCall = winoConvs(call.p).filter((s) => s.wino!.u === 'call' && s.wino!.r === r).length;
    expect(perCall).toBeGreaterThan(3);
    // scratch past live tensors of its slot (offset > 0): a wrong offset or size would overwrite them
    const places = Object.values(call.p.programs)
      .flat()
      .flatMap((pp) => pp.scratchOf ?? [])
      .filter((x) => !!x);
    expect(places.filter((x) => x.offset > 0).length).toBeGreaterThan(0);
    expect(winoConvs(held.p).some((s) => s.wino!.u)).toBe(false);
    expect(held.wino.gpu).toBeGreaterThan(3); // the held U made by the GPU kernel (the same transform code)
    expect(call.wino.gpu + call.wino.js).toBe(0); // nothing prepared at upload: every U made per call
    expect(call.frames.length).toBe(held.frames.length);
    for (const [i, f] of call.frames.entries()) expect(new Uint32Array(f.buffer), `frame ${i}`).toEqual(new Uint32Array(held.frames[i]!.buffer));
    expect(held.peak).toBe(held.p.memory.total);
    expect(call.peak).toBe(call.p.memory.total);
    console.info(
      `dim 24 --conv ${conv} ${precision}: ${perCall} conv steps with U per call (${places.filter((x) => x.offset > 0).length} of their scratches past live tensors), ${call.frames.length} frames equal bit for bit; peak = planned ${call.peak} B (held ${held.peak} B)`,
    );
  });
});
