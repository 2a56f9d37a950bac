// attention on tensor cores (src/kernels/attention-mma.ts) against the plain f64 reference of the attention
// core (src/cpu/ops.ts attentionCore), as test/kernels/attention.test.ts checks shaders/attention.wgsl. The
// generated kernel runs emulated (its matrix operations on plain code, shaders/attention-mma-emu.wgsl: the
// same tile walk, offsets, softmax, rescaling and epilogue; any adapter) in f32 and f16 storage, and, where
// the adapter offers 16x16x16 f16 -> f32 subgroup matrices, as itself (no CI platform has them: skipped there
// with the reason; the H200 probe bench/probes/attention-mma.ts checks it against shaders/attention.wgsl).
// Tolerances: f32 |err| <= 1e-5 + 1e-4·|ref| and NMSE <= 1e-7 (P in f32, as the portable kernel); f16 NMSE <= 1e-4
// (inputs rounded for the reference too; P rounded to f16 before P·V, as on tensor cores).
import { describe, expect, it } from 'vitest';
import { attentionCore } from '../../src/cpu/ops';
import type { Elem, KernelDef } from '../../src/gpu/kernel';
import type { AttentionParams } from '../../src/kernels/attention';
import { attentionCombine, attentionSplitElems } from '../../src/kernels/attention-combine';
import { attentionPack } from '../../src/kernels/attention-pack';
import { ATTENTION_MMA_MEASURED, attentionMma, attentionMmaFits, attentionMmaShapeFor, attentionMmaSmem, type AttentionMmaDebug, type AttentionMmaShape } from '../../src/kernels/attention-mma';
import { expectClose } from '../helpers/compare';
import { getTestDevice, roundToElem, withDevice } from '../helpers/gpu';
import { needDevice, needF16, notOnThisAdapter } from '../helpers/need';
import { randn } from '../helpers/random';

const gpu = await getTestDevice();

interface Case {
  c: number;
  n: number;
  std: number;
  /** key scale growing along the keys: later blocks' scores exceed the running max by more than TAU (rescaling) */
  ramp?: boolean;
}
const cases: Case[] = [
  { c: 16, n: 16, std: 1 }, // one tile of everything
  { c: 32, n: 48, std: 1 }, // a partial key block (48 = 16 KB with KB 2: 1.5 blocks)
  { c: 48, n: 80, std: 3 }, // scores ~ N(0, 9²·48/48): the running max moves
  { c: 32, n: 144, std: 1, ramp: true }, // the max grows block after block: the O tiles rescaled
  { c: 64, n: 32, std: 2 }, // two channel groups at ct 2
];
const shapes: AttentionMmaShape[] = [
  { ct: 1, kb: 2 },
  { ct: 2, kb: 1 },
  { ct: 1, kb: 3, twoPass: true },
  // S's operands staged through workgroup memory (dc 32 at c 48: a half chunk), O tiles row-major
  { ct: 1, kb: 2, stage: true },
  { ct: 2, kb: 1, stage: true, dc: 16, oRow: true },
  { ct: 1, kb: 2, twoPass: true, oRow: true },
  // the keys in ranges (dispatch z), then attention-combine: 2 ranges; 3 at kb 1 (c64 n32: a range without keys);
  // the two-pass form in 2 ranges; N baked
  { ct: 1, kb: 2, split: 2 },
  { ct: 2, kb: 1, split: 3, oRow: true },
  { ct: 1, kb: 1, twoPass: true, split: 2 },
  { ct: 1, kb: 2, nConst: true },
  // Q, K, V from the tile-order copy (attention-pack's layout, packQkvTiles below), alone and split
  { ct: 1, kb: 2, packed: true },
  { ct: 2, kb: 1, packed: true, split: 2, oRow: true },
];
const name = (k: Case) => `c${k.c} n${k.n} std${k.std}${k.ramp ? ' ramp' : ''}`;
const shapeName = (s: AttentionMmaShape) =>
  `${s.twoPass ? 'two-pass' : 'one-pass'} ${s.ct}x${s.kb}${s.stage ? ` staged ${s.dc ?? 32}` : ''}${s.oRow ? ' O row-major' : ''}${s.split ? ` split ${s.split}` : ''}${s.nConst ? ' N baked' : ''}${s.packed ? ' packed' : ''}`;

/** attention-pack's layout on the CPU: qkv [3C][N] -> tile (r / 16, t / 16) of 256 at (r / 16 · N / 16 + t / 16) · 256, (r, t) at 16 (r % 16) + t % 16 */
function packQkvTiles(qkv: Float32Array, c: number, n: number): Float32Array {
  const out = new Float32Array(3 * c * n);
  for (let r = 0; r < 3 * c; r++) for (let t = 0; t < n; t++) out[(Math.floor(r / 16) * (n / 16) + Math.floor(t / 16)) * 256 + (r % 16) * 16 + (t % 16)] = qkv[r * n + t]!;
  return out;
}

function inputs(k: Case): Float32Array {
  const qkv = randn(3 * k.c * k.n, 43, k.std);
  // ramp: key n scaled by 1 + 3 n / N (the maximum score of a query grows along the key blocks)
  if (k.ramp) for (let d = 0; d < k.c; d++) for (let j = 0; j < k.n; j++) qkv[(k.c + d) * k.n + j]! *= 1 + (3 * j) / k.n;
  return qkv;
}

async function runCase(k: Case, def: KernelDef<AttentionParams>, elem: Elem, sg: number, shape?: AttentionMmaShape) {
  const qkv = roundToElem(inputs(k), elem);
  const scale = 1 / Math.sqrt(k.c);
  const want = Float32Array.from(attentionCore(qkv, k.c, k.n, scale));
  const split = shape?.split ?? 1;
  const ov = { SG: sg, ...(shape?.nConst ? { NS: k.n } : {}) };
  const src = shape?.packed ? packQkvTiles(qkv, k.c, k.n) : qkv;
  const got = await withDevice(async (s) => {
    // o (and the split's part and statistics) start as NaN: every element must be written
    const o = s.upload(new Float32Array(k.c * k.n).fill(NaN), elem, 'o');
    if (split === 1) {
      await s.run(def, { c: k.c, n: k.n, scale }, ov, elem, [s.upload(src, elem, 'qkv'), o]);
      return s.read(o, elem, k.c * k.n);
    }
    const e = attentionSplitElems(k, split);
    const part = s.upload(new Float32Array(e.part).fill(NaN), elem, 'part');
    const ml = s.upload(new Float32Array(e.ml).fill(NaN), 'f32', 'ml');
    await s.run(def, { c: k.c, n: k.n, scale }, ov, elem, [s.upload(src, elem, 'qkv'), part, ml]);
    await s.run(attentionCombine, { c: k.c, n: k.n, scale, split }, {}, elem, [part, ml, o]);
    return s.read(o, elem, k.c * k.n);
  });
  const tol = elem === 'f32' ? { atol: 1e-5, rtol: 1e-4, nmse: 1e-7 } : { nmse: 1e-4 };
  const r = expectClose(got, want, { ...tol, label: `${def.id} ${name(k)} ${elem}` });
  console.info(`${def.id} ${name(k)} ${elem}: max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

/**
 * What the debug epilogue (AttentionMmaDebug) writes at N <= 16·KB (one key block), in f64 from the same
 * inputs: o[(q0 + r)·16·KB + j] = S[q0 + r, j] = Σ_d q[d, q0 + r]·k[d, j] (scores) or
 * exp(scale·S - max_j scale·S) (probs; the first block's max is the row's), 0 for keys j >= N.
 */
function debugRef(qkv: Float32Array, c: number, n: number, kb: number, scale: number, out: AttentionMmaDebug['out']): Float64Array {
  const w = 16 * kb;
  const r = new Float64Array(n * w);
  for (let q = 0; q < n; q++) {
    let m = -Infinity;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let d = 0; d < c; d++) s += qkv[d * n + q]! * qkv[(c + d) * n + j]!;
      r[q * w + j] = s;
      m = Math.max(m, s * scale);
    }
    if (out === 'probs') for (let j = 0; j < n; j++) r[q * w + j] = Math.exp(r[q * w + j]! * scale - m);
  }
  return r;
}

const debugShapes: AttentionMmaShape[] = [
  { ct: 1, kb: 2 },
  { ct: 1, kb: 2, stage: true },
  { ct: 1, kb: 2, twoPass: true },
  { ct: 2, kb: 1 },
];
// one key block each: c16 n32 at kb 2 (the H200 probe's case: two query tiles, two key tiles), n16 at kb 2 (key
// tile 1 guarded out: zeros), c32 (two channel steps; at ct 1 two channel groups, the second writing nothing)
const debugCases = [
  { c: 16, n: 32, std: 1 },
  { c: 32, n: 16, std: 2 },
  { c: 32, n: 32, std: 1 },
];
const debugRuns = debugShapes.flatMap((s) =>
  debugCases.filter((k) => attentionMmaFits(k, s.ct) && k.n <= 16 * s.kb).flatMap((k) => (['scores', 'probs'] as const).map((out) => [`${shapeName(s)} ${name(k)} ${out}`, s, k, out] as const)),
);

async function runDebug(k: Case, s: AttentionMmaShape, debug: AttentionMmaDebug, elem: Elem) {
  const qkv = roundToElem(inputs(k), elem);
  const scale = 1 / Math.sqrt(k.c);
  const w = 16 * s.kb;
  const want = debugRef(qkv, k.c, k.n, s.kb, scale, debug.out);
  const def = attentionMma(s, { emulate: true, debug });
  const got = await withDevice(async (g) => {
    const o = g.upload(new Float32Array(k.n * w).fill(NaN), elem, 'o');
    await g.run(def, { c: k.c, n: k.n, scale }, { SG: 32 }, elem, [g.upload(qkv, elem, 'qkv'), o]);
    return g.read(o, elem, k.n * w);
  });
  // the rows of query tile q0 only where it is a constant (the others keep their NaN)
  const rows = debug.q0 === undefined ? [0, k.n] : [debug.q0, debug.q0 + 16];
  const [a, b] = [rows[0]! * w, rows[1]! * w];
  const tol = elem === 'f32' ? { atol: 1e-5, rtol: 1e-5 } : { nmse: 1e-6 };
  const r = expectClose(got.subarray(a, b), Float32Array.from(want.subarray(a, b)), { ...tol, label: `${def.id} ${name(k)} ${elem}` });
  console.info(`${def.id} ${name(k)} ${elem}: max|err| ${r.maxAbs.toExponential(2)}, nmse ${r.nmse.toExponential(2)}`);
}

const runs = shapes.flatMap((s) => cases.filter((k) => attentionMmaFits(k, s.ct)).map((k) => [`${shapeName(s)} ${name(k)}`, s, k] as const));

describe('attention-mma', () => {
  it.for(runs)('emulated f32 %s', async ([, s, k], ctx) => {
    needDevice(ctx, gpu);
    await runCase(k, attentionMma(s, { emulate: true }), 'f32', 32, s);
  });
  it.for(runs)('emulated f16 %s', async ([, s, k], ctx) => {
    needF16(ctx, gpu);
    await runCase(k, attentionMma(s, { emulate: true }), 'f16', 32, s);
  });
  it.for(runs)('subgroup matrices f16 %s', async ([, s, k], ctx) => {
    needF16(ctx, gpu);
    if (!gpu?.mma) notOnThisAdapter(ctx, 'no 16x16x16 f16 subgroup matrices on this adapter');
    await runCase(k, attentionMma(s), 'f16', gpu.mma.subgroupSize, s);
  });
  it('the debug epilogue off: the generated WGSL and id are those of the call without the option', () => {
    for (const s of [...shapes.filter((x) => !x.split), { ct: 12, kb: 4 }, { ct: 12, kb: 2, stage: true, dc: 64, oRow: true }])
      for (const emulate of [false, true]) {
        const plain = attentionMma(s, { emulate });
        const off = attentionMma(s, { emulate, debug: undefined });
        expect(off.wgsl).toBe(plain.wgsl);
        expect(off.id).toBe(plain.id);
        expect(attentionMma(s, emulate ? { emulate } : undefined).wgsl).toBe(plain.wgsl);
        expect(plain.wgsl).toContain('  epilogue(q0, c0, lid);\n}');
        expect(plain.wgsl).not.toMatch(/debug/);
        expect(plain.wgsl).toContain('let q0 = wg.x * 16u;');
        // on: only the epilogue call (and, with q0, the query tile line) replaced; a separate pipeline id
        const on = attentionMma(s, { emulate, debug: { out: 'probs', q0: 16 } });
        expect(on.id).toBe(`${plain.id}-dbg-p-q16`);
        const back = on.wgsl.replace(/ {2}\/\/ debug \(probs\)[^]*?\n {2}\}\n\}/, '  epilogue(q0, c0, lid);\n}').replace('let q0 = 16u; // debug: a constant query tile', 'let q0 = wg.x * 16u;');
        expect(back).toBe(plain.wgsl);
      }
    expect(() => attentionMma({ ct: 1, kb: 2 }, { debug: { out: 'scores', q0: 8 } })).toThrow(/debug query tile/);
  });
  it.for(['f32', 'f16'] as const)('attention-pack %s: qkv into tile order as the CPU layout', async (elem, ctx) => {
    if (elem === 'f16') needF16(ctx, gpu);
    else needDevice(ctx, gpu);
    const [c, n] = [32, 48];
    const qkv = roundToElem(randn(3 * c * n, 7, 1), elem);
    const got = await withDevice(async (s) => {
      const out = s.upload(new Float32Array(3 * c * n).fill(NaN), elem, 'packed');
      await s.run(attentionPack, { c, n }, {}, elem, [s.upload(qkv, elem, 'qkv'), out]);
      return s.read(out, elem, 3 * c * n);
    });
    expect(got).toEqual(packQkvTiles(qkv, c, n));
    expect(() => attentionPack.dispatch({ c: 24, n: 48 }, {})).toThrow(/multiples of 16/);
    expect(() => attentionMma({ ct: 1, kb: 2, packed: true, stage: true })).toThrow(/direct form only/);
    // the tensor-core kernel (not only the twin) reads the copy's tiles at stride 16: Q, K and Vᵀ loads
    const loads = (w: string) => [...w.matchAll(/subgroupMatrixLoad<[^(]*\(&qkv, [^;]*?, (n|16u)\)/g)].map((m) => m[1]);
    const pk = loads(attentionMma({ ct: 2, kb: 2, packed: true }).wgsl);
    expect(pk.length).toBe(1 + 2 + 2 * 2); // one Q tile, kb K tiles, kb x ct Vᵀ tiles
    expect(new Set(pk)).toEqual(new Set(['16u']));
    expect(new Set(loads(attentionMma({ ct: 2, kb: 2 }).wgsl))).toEqual(new Set(['n']));
  });
  it('split over keys: the split epilogue, a third binding (ml), dispatch z = the ranges; N baked: the override NS, checked at dispatch', () => {
    const sp = attentionMma({ ct: 2, kb: 1, split: 3 });
    expect(sp.id).toBe('attention-mma-1p-2x1-k3');
    expect(sp.wgsl).toContain('  epilogue(q0, wg.z * ch + c0, lid);\n  split_stats(q0, c0, wg.z, lid);\n}');
    expect(sp.wgsl).toContain('let k_end = min(n, k_beg + span);');
    expect(sp.bindings.map((b) => b.name)).toEqual(['qkv', 'o', 'ml']);
    expect(sp.dispatch({ c: 64, n: 48, scale: 1 }, { SG: 32 })).toEqual([3, 2, 3]);
    expect(attentionMma({ ct: 2, kb: 1 }).bindings.map((b) => b.name)).toEqual(['qkv', 'o']);
    expect(() => attentionMma({ ct: 1, kb: 2, split: 2 }, { debug: { out: 'probs' } })).toThrow(/debug epilogues/);
    expect(() => attentionMma({ ct: 1, kb: 2, split: 0 })).toThrow(/key ranges/);
    const nc = attentionMma({ ct: 1, kb: 2, nConst: true });
    expect(nc.id).toBe('attention-mma-1p-1x2-nc');
    expect(nc.wgsl).toContain('let n = NS;');
    expect(nc.dispatch({ c: 16, n: 32, scale: 1 }, { SG: 32, NS: 32 })).toEqual([2, 1, 1]);
    expect(() => nc.dispatch({ c: 16, n: 48, scale: 1 }, { SG: 32, NS: 32 })).toThrow(/baked for N 32, the frame has 48/);
  });
  it('debug layout options: ids, the common part edited only where asked, bounds checked', () => {
    const s: AttentionMmaShape = { ct: 1, kb: 2 };
    const plain = attentionMma(s);
    // the 16-byte flag by default; flag4 the old 4-byte one (the H200's shifted S store)
    expect(plain.wgsl).toContain('var<workgroup> flag_s: vec4<u32>;');
    expect(plain.wgsl).not.toMatch(/flag_s = [01]u/);
    const f = attentionMma(s, { debug: { flag4: true } });
    expect(f.id).toBe(`${plain.id}-dbg-f4`);
    expect(f.wgsl).toContain('var<workgroup> flag_s: u32;');
    expect(f.wgsl).toContain('workgroupUniformLoad(&flag_s) != 0u');
    expect(f.wgsl).not.toMatch(/flag_s\.x/);
    expect(f.wgsl).toContain('  epilogue(q0, c0, lid);\n}');
    const st = attentionMma(s, { debug: { out: 'raw', st: 40, sOff: 3 } });
    expect(st.id).toBe(`${plain.id}-dbg-r-o3-st40`);
    expect(st.wgsl).toContain('const ST: u32 = 40u;');
    expect(st.wgsl).toContain('subgroupMatrixStore<row_major>(&s_s, 19u, s_1, ST)');
    expect(st.wgsl).toContain('s_s[e] = f32(1000u + e);');
    const col = attentionMma(s, { debug: { out: 'scores', sCol: true } });
    expect(col.wgsl).toContain('subgroupMatrixStore<col_major>(&s_s, 256u, s_1, 16u)');
    expect(attentionMma(s, { emulate: true, debug: { out: 'scores', sCol: true } }).wgsl).toContain('fn dbg_emu_store_s_col(');
    expect(plain.wgsl).not.toContain('dbg_');
    expect(() => attentionMma(s, { debug: { out: 'raw', sOff: 5 } })).toThrow(/store offset/);
    expect(() => attentionMma(s, { debug: { out: 'raw', st: 30 } })).toThrow(/s_s stride/);
  });
  it('debug raw dump emulated f32: the sentinel where the S store does not write, S where it does (row-major, col-major, offset, stride)', async (ctx) => {
    needDevice(ctx, gpu);
    const k = { c: 16, n: 32, std: 1 };
    const qkv = inputs(k);
    const S = debugRef(qkv, k.c, k.n, 2, 1 / 4, 'scores');
    for (const debug of [{ out: 'raw' }, { out: 'raw', sOff: 3 }, { out: 'raw', sCol: true, st: 40 }, { out: 'raw', flag4: true, st: 32 }] as AttentionMmaDebug[]) {
      const st = debug.st ?? 36;
      const def = attentionMma({ ct: 1, kb: 2 }, { emulate: true, debug });
      const got = await withDevice(async (g) => {
        const o = g.upload(new Float32Array(k.n * st).fill(NaN), 'f32', 'o');
        await g.run(def, { c: k.c, n: k.n, scale: 1 / 4 }, { SG: 32 }, 'f32', [g.upload(qkv, 'f32', 'qkv'), o]);
        return g.read(o, 'f32', k.n * st);
      });
      const want = new Float32Array(k.n * st);
      for (let w = 0; w < 2; w++) for (let e = 0; e < 16 * st; e++) want[w * 16 * st + e] = 1000 + e;
      for (let t = 0; t < k.n; t++)
        for (let j = 0; j < 32; j++) {
          const p = (debug.sCol ? 256 * (j >> 4) + (j & 15) * 16 + (t % 16) : (t % 16) * st + j) + (debug.sOff ?? 0);
          want[(t - (t % 16)) * st + p] = S[t * 32 + j]!;
        }
      expectClose(got, want, { atol: 1e-5, rtol: 1e-5, label: def.id });
    }
  });
  it('debug layout options emulated f16: the 4-byte flag and another s_s stride leave S, P and O right', async (ctx) => {
    needF16(ctx, gpu);
    const k = { c: 16, n: 32, std: 1 };
    for (const opt of [{ flag4: true }, { st: 40 }] as AttentionMmaDebug[]) {
      await runDebug(k, { ct: 1, kb: 2 }, { ...opt, out: 'scores' }, 'f16');
      await runDebug(k, { ct: 1, kb: 2, stage: true }, { ...opt, out: 'probs' }, 'f16');
      await runCase(k, attentionMma({ ct: 1, kb: 2 }, { emulate: true, debug: opt }), 'f16', 32);
    }
    await runDebug(k, { ct: 1, kb: 2 }, { out: 'scores', sCol: true }, 'f16');
  });
  it.for(debugRuns)('debug epilogue emulated f32 %s', async ([, s, k, out], ctx) => {
    needDevice(ctx, gpu);
    await runDebug(k, s, { out }, 'f32');
  });
  it.for(debugRuns)('debug epilogue emulated f16 %s', async ([, s, k, out], ctx) => {
    needF16(ctx, gpu);
    await runDebug(k, s, { out }, 'f16');
  });
  it('debug epilogue emulated f16, a constant query tile (q0 16) of c16 n32', async (ctx) => {
    needF16(ctx, gpu);
    await runDebug({ c: 16, n: 32, std: 1 }, { ct: 1, kb: 2 }, { out: 'scores', q0: 16 }, 'f16');
    await runDebug({ c: 16, n: 32, std: 1 }, { ct: 1, kb: 2, stage: true }, { out: 'probs', q0: 16 }, 'f16');
  });
  it('rejects shapes off the 16-grid and emulation below 32 invocations', () => {
    const def = attentionMma({ ct: 2, kb: 2 });
    expect(() => def.dispatch({ c: 40, n: 32, scale: 1 }, {})).toThrow(/multiples of 16/);
    expect(() => def.dispatch({ c: 32, n: 40, scale: 1 }, {})).toThrow(/multiples of 16/);
    expect(() => def.dispatch({ c: 48, n: 32, scale: 1 }, {})).toThrow(/C \/ 16 of 2/);
    expect(def.dispatch({ c: 64, n: 48, scale: 1 }, {})).toEqual([3, 2, 1]);
    expect(() => attentionMma({ ct: 1, kb: 1 }, { emulate: true }).dispatch({ c: 16, n: 16, scale: 1 }, { SG: 16 })).toThrow(/SG >= 32/);
    expect(() => attentionMma({ ct: 0, kb: 1 })).toThrow(/channel tiles/);
    expect(() => attentionMma({ ct: 1, kb: 1, stage: true, dc: 24 })).toThrow(/staged channels/);
  });
  it("the decoder's choice: a measured shape for the head dim and N on the 16-grid, else the portable kernel", () => {
    const table = { 384: [{ minN: 0, shape: { ct: 12, kb: 2, stage: true, oRow: true } }] };
    const id = (p: { c: number; n: number }, emulate: boolean, t?: typeof table) => {
      const s = attentionMmaShapeFor(p, t);
      return s ? attentionMma(s, { emulate }).id : null;
    };
    expect(id({ c: 384, n: 6240 }, false, table)).toBe('attention-mma-1p-12x2-s32-or');
    expect(id({ c: 384, n: 6240 }, true, table)).toBe('attention-mma-1p-12x2-s32-or-emu');
    expect(id({ c: 384, n: 6241 }, false, table)).toBeNull();
    expect(id({ c: 1024, n: 3520 }, false, table)).toBeNull();
    // by N: the last row whose minN is at most N; none below the first row's minN
    const byN = {
      64: [
        { minN: 32, shape: { ct: 2, kb: 2 } },
        { minN: 96, shape: { ct: 4, kb: 2, split: 4 } },
      ],
    };
    expect(attentionMmaShapeFor({ c: 64, n: 16 }, byN)).toBeNull();
    expect(attentionMmaShapeFor({ c: 64, n: 32 }, byN)).toEqual({ ct: 2, kb: 2 });
    expect(attentionMmaShapeFor({ c: 64, n: 80 }, byN)).toEqual({ ct: 2, kb: 2 });
    expect(attentionMmaShapeFor({ c: 64, n: 96 }, byN)).toEqual({ ct: 4, kb: 2, split: 4 });
    expect(attentionMmaShapeFor({ c: 64, n: 4096 }, byN)).toEqual({ ct: 4, kb: 2, split: 4 });
    // measured correct and faster (H200 2026-12-04, H100 2026-12-06): Wan2.1's C 384, its keys in 4 ranges from 720x1280's N;
    // Wan2.2's C 1024 runs shaders/attention.wgsl
    expect(ATTENTION_MMA_MEASURED).toEqual({
      384: [
        { minN: 0, shape: { ct: 12, kb: 2 } },
        { minN: 14400, shape: { ct: 12, kb: 2, split: 4 } },
      ],
    });
    expect(id({ c: 384, n: 60 * 104 }, false)).toBe('attention-mma-1p-12x2');
    expect(id({ c: 384, n: 90 * 160 }, false)).toBe('attention-mma-1p-12x2-k4');
    expect(id({ c: 1024, n: 3520 }, false)).toBeNull();
  });
  it('workgroup storage of the Wan shapes fits 48 KiB', () => {
    expect(attentionMmaSmem({ ct: 24, kb: 4 }, 'f16')).toBeLessThanOrEqual(48 * 1024);
    expect(attentionMmaSmem({ ct: 16, kb: 4, stage: true, dc: 64 }, 'f16')).toBeLessThanOrEqual(48 * 1024);
  });
});
