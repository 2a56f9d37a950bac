// attention on tensor cores (WGSL subgroup matrices, 16x16x16 f16 products accumulated in f32): the single-head
// attention of shaders/attention.wgsl (same bindings, Params and result) as one kernel per frame, flash-attention
// style: per block of keys S = Qᵀ K on subgroup matrices, the softmax through workgroup memory, O += P Vᵀ on
// subgroup matrices (the N x N scores are never stored). The generated `main` is straight-line in its tiles
// (every tile a named value, as conv3d-mma-flat.ts: no arrays of subgroup matrices to end up in local memory);
// bindings, workgroup tiles, softmax and epilogue are shaders/attention-mma-common.wgsl.
// Shapes: `ct` output-channel tiles per workgroup (O = 16 queries x 16·ct channels in registers), `kb` key
// tiles per block, `twoPass` (exact max and sum first, then P·V without rescaling) or the one-pass form with
// lazy rescaling (common.wgsl says how); `split` key ranges over dispatch z (partial outputs, then
// attention-combine.ts), `nConst` N baked as a constant, `packed` Q, K, V from qkv's tile-order copy
// (attention-pack.ts; the tiles at stride 16).
// `emulate`: the same generated main with its matrix operations spelled as plain code
// (shaders/attention-mma-emu.wgsl), for adapters without subgroup matrices (CI on lavapipe / SwiftShader).
// Where it runs: f16 storage on adapters with subgroup matrices (the tensor-core conv's condition), C and N
// multiples of 16 (attentionMmaFits); shaders/attention.wgsl elsewhere.
import common from '../../shaders/attention-mma-common.wgsl?raw';
import emuOps from '../../shaders/attention-mma-emu.wgsl?raw';
import splitPart from '../../shaders/attention-mma-split.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, wgslConst, type Elem, type KernelDef } from '../gpu/kernel';
import type { AttentionParams } from './attention';
import { ATTENTION_MMA_MEASURED, attentionMmaFits, attentionMmaShapeFor, type AttentionMmaShape } from './attention-mma-measured';

export { ATTENTION_MMA_MEASURED, attentionMmaFits, attentionMmaShapeFor, type AttentionMmaShape };

/**
 * A diagnostic variant (probes and tests only; the decoder never sets it): the kernel unchanged up to its last
 * barrier, then, in place of the epilogue, the last block's workgroup tile `s_s` (raw scores Qᵀ K, f32, as Elem)
 * or `p_s` (P = exp(scale·S - m)) written to `o` as [query][16·KB keys]: element (q0 + r, j) at
 * o[(q0 + r)·16·KB + j] (o must hold N·16·KB elements), by the workgroups of the first channel group only.
 * `q0`: the query tile's first query as a constant instead of `wg.x * 16` (every workgroup then computes that tile).
 * `out` 'raw': s_s filled with the sentinel 1000 + e (element e) before the key loop, and all of it (16·ST
 * elements, padding columns included) written to o[q0·ST + e] (o: N·ST elements): where the S store wrote.
 * The layout options (with or without `out`; without it the real epilogue runs):
 * `sOff`: the S tiles stored at 16 j + sOff (row-major) or 256 j + sOff (sCol) instead of 16 j (0 .. ST - 16·KB;
 * the softmax still reads s_s at 16 j: only `raw` / `scores` rows are meaningful);
 * `sCol`: the S tiles stored col-major, stride 16, at 256 j (+ sOff); `scores` reads them back so (P, O: garbage);
 * `st`: s_s's row stride ST (16·KB .. 64, a multiple of 4; default 16·KB + 4), the whole kernel;
 * `flag4`: flag_s a 4-byte u32 (the layout before 2026-12-04, wrong on the H200: common.wgsl says why), the whole kernel.
 */
export interface AttentionMmaDebug {
  out?: 'scores' | 'probs' | 'raw';
  q0?: number;
  sOff?: number;
  sCol?: boolean;
  st?: number;
  flag4?: boolean;
}

const range = (n: number) => [...Array(n).keys()];

/** How the generated main spells the matrix types and operations (offsets in elements). */
interface MatrixOps {
  result: string;
  /** Q tile (left, col-major in qkv, stride N), K tile (right, row-major in qkv), P tile (left, row-major in p_s), Vᵀ tile (right, col-major in qkv) */
  q(off: string): string;
  k(off: string): string;
  /** staged Q tile (left, row-major in qs_s, stride QS), staged K tile (right, col-major in ks_s, stride QS) */
  qs(off: string): string;
  ks(off: string): string;
  p(off: string): string;
  v(off: string): string;
  /** c + a·b: `qk` for the scores, `pv` for the output */
  mma(kind: 'qk' | 'qks' | 'pv', a: string, b: string, c: string): string;
  /** a score tile into s_s (row-major, stride ST); an O tile into / from o_s (col-major, stride 16) */
  storeS(off: string, c: string): string;
  /** debug (AttentionMmaDebug.sCol): a score tile into s_s col-major, stride 16 */
  storeSCol(off: string, c: string): string;
  storeO(off: string, c: string): string;
  loadO(off: string): string;
}

const L = 'subgroup_matrix_left<Elem, 16, 16>',
  R = 'subgroup_matrix_right<Elem, 16, 16>',
  RES = 'subgroup_matrix_result<f32, 16, 16>';

// `stride`: of the Q, K, Vᵀ tiles in qkv (n, or 16u where the shape reads the packed copy)
const tensorCoreOps = (oRow: boolean, stride = 'n'): MatrixOps => ({
  result: RES,
  q: (off) => `subgroupMatrixLoad<${L}, col_major>(&qkv, ${off}, ${stride})`,
  k: (off) => `subgroupMatrixLoad<${R}, row_major>(&qkv, ${off}, ${stride})`,
  qs: (off) => `subgroupMatrixLoad<${L}, row_major>(&qs_s, ${off}, QS)`,
  ks: (off) => `subgroupMatrixLoad<${R}, col_major>(&ks_s, ${off}, QS)`,
  p: (off) => `subgroupMatrixLoad<${L}, row_major>(&p_s, ${off}, PT)`,
  v: (off) => `subgroupMatrixLoad<${R}, col_major>(&qkv, ${off}, ${stride})`,
  mma: (_kind, a, b, c) => `subgroupMatrixMultiplyAccumulate(${a}, ${b}, ${c})`,
  storeS: (off, c) => `subgroupMatrixStore<row_major>(&s_s, ${off}, ${c}, ST)`,
  storeSCol: (off, c) => `subgroupMatrixStore<col_major>(&s_s, ${off}, ${c}, 16u)`,
  storeO: (off, c) => `subgroupMatrixStore<${oRow ? 'row' : 'col'}_major>(&o_s, ${off}, ${c}, 16u)`,
  loadO: (off) => `subgroupMatrixLoad<${RES}, ${oRow ? 'row' : 'col'}_major>(&o_s, ${off}, 16u)`,
});

const EMU_Q = wgslConst(emuOps, 'EMU_Q');
const EMU_PACKED_LINE = 'const EMU_PACKED: u32 = 0;';
if (!emuOps.includes(EMU_PACKED_LINE)) throw new DecoderError('unsupported', `shaders/attention-mma-emu.wgsl: no '${EMU_PACKED_LINE}' line`);
const emulatedOps: MatrixOps = {
  result: 'array<f32, EMU_Q>',
  q: (off) => off,
  k: (off) => off,
  qs: (off) => off,
  ks: (off) => off,
  p: (off) => off,
  v: (off) => off,
  mma: (kind, a, b, c) => `emu_${kind}(${a}, ${b}, ${c}, lid)`,
  storeS: (off, c) => `emu_store_s(${off}, ${c}, lid)`,
  storeSCol: (off, c) => `dbg_emu_store_s_col(${off}, ${c}, lid)`,
  storeO: (off, c) => `emu_store_o(${off}, ${c}, lid)`,
  loadO: (off) => `emu_load_o(${off}, lid)`,
};

/** The generated `main` of one shape (`ops`: the tensor-core operations of the shape by default, the emulated ones for the twin). */
export function attentionMmaMain(
  { ct, kb, twoPass = false, stage = false, dc = 32, oRow = false, split = 1, nConst = false, packed = false }: AttentionMmaShape,
  ops: MatrixOps = tensorCoreOps(oRow, packed ? '16u' : 'n'),
  debug?: AttentionMmaDebug,
): string {
  const C = range(ct),
    K = range(kb);
  // the first element of the Q tile (channels d.., queries q0..), the K tile (channels d.., key tile j of the
  // block) and the Vᵀ tile (channel tile t of the group, key tile j): in qkv [3C][N], or in its tile-order copy
  // (packed: tile (row / 16, token / 16) of 256 elements at (row / 16 · N / 16 + token / 16) · 256)
  const tile = (row: string, tok: string) => `((${row}) / 16u * nt + (${tok}) / 16u) * 256u`;
  const at = packed
    ? { q: (d: string) => tile(d, 'q0'), k: (d: string, j: number) => tile(`ch + ${d}`, `k0 + ${16 * j}u`), v: (t: number, j: number) => tile(`2u * ch + c0 + ${16 * t}u`, `k0 + ${16 * j}u`) }
    : { q: (d: string) => `${d} * n + q0`, k: (d: string, j: number) => `(ch + ${d}) * n + k0 + ${16 * j}u`, v: (t: number, j: number) => `vb + ${16 * t}u * n + k0 + ${16 * j}u` };
  const sOff = debug?.sOff ?? 0;
  // key tile j of the block exists when k0 + 16 j < k_end (tile 0 always: k0 < k_end)
  const guard = (j: number, body: string, ind: string) => (j === 0 ? `${ind}{\n${body}\n${ind}}` : `${ind}if (k0 + ${16 * j}u < k_end) {\n${body}\n${ind}}`);
  const direct = (ind: string) => `${ind}for (var d = 0u; d < ch; d += 16u) {
${ind}  let a = ${ops.q(at.q('d'))};
${K.map((j) => guard(j, `${ind}    let b = ${ops.k(at.k('d', j))};\n${ind}    s_${j} = ${ops.mma('qk', 'a', 'b', `s_${j}`)};`, `${ind}  `)).join('\n')}
${ind}}`;
  // staged: chunk d0 in qs_s / ks_s, then its DC / 16 channel steps straight-line
  const staged = (ind: string) => `${ind}for (var d0 = 0u; d0 < ch; d0 += ${dc}u) {
${ind}  stage_qk(k0, d0, q0, lid);
${ind}  workgroupBarrier();
${range(dc / 16)
  .map((dd) =>
    [
      `${ind}  {`,
      `${ind}    let a = ${ops.qs(`${16 * dd}u`)};`,
      ...K.map((j) => guard(j, `${ind}      let b = ${ops.ks(`${16 * j}u * QS + ${16 * dd}u`)};\n${ind}      s_${j} = ${ops.mma('qks', 'a', 'b', `s_${j}`)};`, `${ind}    `)),
      `${ind}  }`,
    ].join('\n'),
  )
  .join('\n')}
${ind}  workgroupBarrier();
${ind}}`;
  const scores = (ind: string) => `${ind}${K.map((j) => `var s_${j} = ${ops.result}();`).join(' ')}
${stage ? staged(ind) : direct(ind)}
${K.map((j) => `${ind}${debug?.sCol ? ops.storeSCol(`${256 * j + sOff}u`, `s_${j}`) : ops.storeS(`${16 * j + sOff}u`, `s_${j}`)};`).join('\n')}
${ind}workgroupBarrier();`;
  const pv = (ind: string) =>
    K.map((j) => guard(j, [`${ind}  let p = ${ops.p(`${16 * j}u`)};`, ...C.map((t) => `${ind}  o_${t} = ${ops.mma('pv', 'p', ops.v(at.v(t, j)), `o_${t}`)};`)].join('\n'), ind)).join('\n');
  const storeO = (ind: string) => C.map((t) => `${ind}${ops.storeO(`${256 * t}u`, `o_${t}`)};`).join('\n');
  const loop = twoPass
    ? `  for (var k0 = k_beg; k0 < k_end; k0 += ${16 * kb}u) {
${scores('    ')}
    soft_stats(k0, k_end, lid);
  }
  for (var k0 = k_beg; k0 < k_end; k0 += ${16 * kb}u) {
${scores('    ')}
    soft_final(k0, k_end, lid);
${pv('    ')}
  }`
    : `  for (var k0 = k_beg; k0 < k_end; k0 += ${16 * kb}u) {
${scores('    ')}
    if (soft_lazy(k0, k_end, lid)) {
${storeO('      ')}
      workgroupBarrier();
      rescale_o(lid);
      workgroupBarrier();
${C.map((t) => `      o_${t} = ${ops.loadO(`${256 * t}u`)};`).join('\n')}
    }
${pv('    ')}
  }`;
  // the keys of this workgroup: all, or range wg.z of `split` (SPAN keys each, a multiple of the block)
  const keyRange =
    split > 1
      ? `  let span = ((n + ${16 * kb * split - 1}u) / ${16 * kb * split}u) * ${16 * kb}u;\n  let k_beg = wg.z * span;\n  let k_end = min(n, k_beg + span);`
      : '  let k_beg = 0u;\n  let k_end = n;';
  return `${nConst ? '// N baked (the pipeline of one frame size)\noverride NS: u32 = 16;\n\n' : ''}@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = ${nConst ? 'NS' : 'prm.n'};
  let ch = prm.c;
${keyRange}
  let q0 = ${debug?.q0 === undefined ? 'wg.x * 16u;' : `${debug.q0}u; // debug: a constant query tile`}
  let c0 = wg.y * ${16 * ct}u;
${
  packed
    ? '  // qkv is the tile-order copy: N / 16 token tiles per row of tiles\n  let nt = n / 16u;'
    : '  // Vᵀ tile t of key tile j: (k, c) = v[c0 + 16 t + c, k0 + 16 j + k] at vb + (16 t + c) n + k0 + 16 j + k\n  let vb = (2u * ch + c0) * n;'
}
  init_stats(lid);
${debug?.out === 'raw' ? '  // debug: s_s filled with a sentinel (1000 + e), to see where the S store writes\n  for (var e = lid; e < 16u * ST; e += SG) { s_s[e] = f32(1000u + e); }\n  workgroupBarrier();\n' : ''}  // every accumulator zeroed by its constructor: a subgroup matrix declared without an initializer is not zero
  // on the H200 (Dawn + NVIDIA 580; bench/probes/attention-mma-ops.ts, 2026-12-02: accumulated over the earlier values)
${C.map((t) => `  var o_${t} = ${ops.result}();`).join('\n')}
${loop}
${storeO('  ')}
  workgroupBarrier();
${debug?.out ? debugEpilogue(debug) : split > 1 ? '  epilogue(q0, wg.z * ch + c0, lid);\n  split_stats(q0, c0, wg.z, lid);' : '  epilogue(q0, c0, lid);'}
}
`;
}

/** AttentionMmaDebug's epilogue: s_s or p_s of the last block to o[(q0 + r)·16·KB + j], or all of s_s to o[q0·ST + e] */
function debugEpilogue({ out, sOff = 0, sCol = false }: AttentionMmaDebug): string {
  if (out === 'raw')
    return `  // debug (raw): all of s_s (16·ST elements) to o[q0·ST + e]
  if (c0 == 0u) {
    for (var e = lid; e < 16u * ST; e += SG) { o[q0 * ST + e] = Elem(s_s[e]); }
  }`;
  const at = sCol ? `(j / 16u) * 256u + (j % 16u) * 16u + r + ${sOff}u` : `r * ST + j + ${sOff}u`;
  const src = out === 'scores' ? `Elem(s_s[${sOff || sCol ? at : 'r * ST + j'}])` : 'p_s[r * PT + j]';
  return `  // debug (${out}): the last block's ${out === 'scores' ? 's_s' : 'p_s'} to o as [query][key] instead of O
  if (c0 == 0u) {
    for (var e = lid; e < 256u * KB; e += SG) {
      let r = e / (16u * KB);
      let j = e % (16u * KB);
      o[(q0 + r) * 16u * KB + j] = ${src};
    }
  }`;
}

/** AttentionMmaDebug's changes to the common part (st, flag4) and the emulated col-major S store (sCol) */
function debugCommon(shared: string, { st, flag4 }: AttentionMmaDebug): string {
  const edits: [string, string][] = [];
  if (st !== undefined) edits.push(['const ST: u32 = 16u * KB + 4u;', `const ST: u32 = ${st}u; // debug: the row stride of s_s`]);
  if (flag4)
    edits.push(
      ['var<workgroup> flag_s: vec4<u32>;', 'var<workgroup> flag_s: u32; // debug: 4 bytes'],
      ['{ flag_s.x = 0u; }', '{ flag_s = 0u; }'],
      ['{ flag_s.x = 1u; }', '{ flag_s = 1u; }'],
      ['workgroupUniformLoad(&flag_s).x != 0u', 'workgroupUniformLoad(&flag_s) != 0u'],
    );
  for (const [a, b] of edits) {
    if (!shared.includes(a)) throw new DecoderError('bad-input', `attention-mma: shaders/attention-mma-common.wgsl no longer has '${a}' (debug)`);
    shared = shared.replace(a, b);
  }
  return shared;
}

const DEBUG_EMU_STORE_S_COL = `
// debug (sCol): a score tile into s_s at off, col-major, stride 16
fn dbg_emu_store_s_col(off: u32, c: array<f32, EMU_Q>, lid: u32) {
  for (var q = 0u; q < 256u / SG; q++) {
    let e = lid + q * SG;
    s_s[off + (e % 16u) * 16u + e / 16u] = c[q];
  }
}
`;

/** Largest workgroup storage of one shape (bytes; the arrays of attention-mma-common.wgsl at SG invocations). */
export function attentionMmaSmem({ ct, kb, dc = 32 }: AttentionMmaShape, elem: Elem, sg = 32): number {
  const e = elemBytes(elem);
  return 16 * (16 * kb + 4) * 4 + 16 * (16 * kb + 8) * e + 256 * ct * 4 + (16 + 16 * kb) * (dc + 8) * e + 2 * sg * 4 + 3 * 16 * 4 + 4;
}

/**
 * The attention of one shape on subgroup matrices (or emulated): a KernelDef with attention's bindings and
 * Params, under its own id (the pipeline cache keys modules by id).
 */
export function attentionMma(shape: AttentionMmaShape, { emulate = false, debug }: { emulate?: boolean; debug?: AttentionMmaDebug } = {}): KernelDef<AttentionParams> {
  const { ct, kb, twoPass = false, stage = false, dc = 32, oRow = false, split = 1, nConst = false, packed = false } = shape;
  if (packed && stage) throw new DecoderError('bad-input', 'attention-mma: the packed copy is read by the direct form only (not with stage)');
  if (!(Number.isInteger(split) && split >= 1 && split <= 64)) throw new DecoderError('bad-input', `attention-mma: ${split} key ranges (1-64)`);
  if (split > 1 && debug?.out) throw new DecoderError('bad-input', 'attention-mma: the debug epilogues are of the unsplit kernel');
  if (!(Number.isInteger(ct) && Number.isInteger(kb) && ct >= 1 && kb >= 1 && ct <= 32 && kb <= 8))
    throw new DecoderError('bad-input', `attention-mma: ${ct} channel tiles x ${kb} key tiles (1-32 x 1-8)`);
  if (!(Number.isInteger(dc) && dc >= 16 && dc <= 128 && dc % 16 === 0)) throw new DecoderError('bad-input', `attention-mma: ${dc} staged channels (16-128, a multiple of 16)`);
  if (debug?.q0 !== undefined && !(Number.isInteger(debug.q0) && debug.q0 >= 0 && debug.q0 % 16 === 0))
    throw new DecoderError('bad-input', `attention-mma: debug query tile ${debug.q0} (a multiple of 16)`);
  const st = debug?.st ?? 16 * kb + 4;
  if (debug?.st !== undefined && !(Number.isInteger(st) && st >= 16 * kb && st <= 64 && st % 4 === 0))
    throw new DecoderError('bad-input', `attention-mma: debug s_s stride ${st} (16·KB .. 64, a multiple of 4)`);
  if (debug?.sOff !== undefined && !(Number.isInteger(debug.sOff) && debug.sOff >= 0 && debug.sOff <= st - 16 * kb))
    throw new DecoderError('bad-input', `attention-mma: debug S store offset ${debug.sOff} (0 .. ${st - 16 * kb})`);
  // the shape's constants into the common part
  let shared = common;
  for (const [k, v] of [
    ['CT', ct],
    ['KB', kb],
    ['DC', dc],
    ['O_ROW', oRow ? 1 : 0],
  ] as const) {
    shared = shared.replace(new RegExp(`^const ${k}: u32 = \\d+;`, 'm'), `const ${k}: u32 = ${v};`);
    if (!shared.includes(`const ${k}: u32 = ${v};`)) throw new DecoderError('bad-input', `attention-mma: shaders/attention-mma-common.wgsl no longer has the expected ${k} line`);
  }
  const header = emulate ? (packed ? emuOps.replace(EMU_PACKED_LINE, 'const EMU_PACKED: u32 = 1;') : emuOps) : 'enable chromium_experimental_subgroup_matrix;\nalias Elem = f32;\n';
  const dbg = debug
    ? `-dbg${debug.out ? `-${{ scores: 's', probs: 'p', raw: 'r' }[debug.out]}` : ''}${debug.q0 === undefined ? '' : `-q${debug.q0}`}${debug.sOff ? `-o${debug.sOff}` : ''}${debug.sCol ? '-col' : ''}${debug.st === undefined ? '' : `-st${debug.st}`}${debug.flag4 ? '-f4' : ''}`
    : '';
  const id = `attention-mma-${twoPass ? '2p' : '1p'}-${ct}x${kb}${stage ? `-s${dc}` : ''}${oRow ? '-or' : ''}${split > 1 ? `-k${split}` : ''}${nConst ? '-nc' : ''}${packed ? '-p' : ''}${emulate ? '-emu' : ''}${dbg}`;
  return {
    id,
    wgsl: `${header}\n${attentionMmaMain(shape, emulate ? emulatedOps : undefined, debug)}\n${debug ? debugCommon(shared, debug) : shared}${split > 1 ? `\n${splitPart}` : ''}${debug?.sCol && emulate ? DEBUG_EMU_STORE_S_COL : ''}`,
    // split: o is the part buffer [split][C][N] and ml the statistics [split][2][N] f32 (attentionSplitElems)
    bindings: [{ name: 'qkv', access: 'read' }, { name: 'o', access: 'read_write' }, ...(split > 1 ? [{ name: 'ml', access: 'read_write' } as const] : [])],
    params: [
      { name: 'c', type: 'u32' },
      { name: 'n', type: 'u32' },
      { name: 'scale', type: 'f32' },
    ],
    overrides: nConst ? { SG: 32, NS: 16 } : { SG: 32 },
    dispatch(p, ov) {
      const sg = ov.SG ?? 32;
      if (nConst && ov.NS !== p.n) throw new DecoderError('unsupported', `${id}: the pipeline is baked for N ${ov.NS ?? 16}, the frame has ${p.n}`);
      if (!attentionMmaFits(p, ct)) throw new DecoderError('unsupported', `${id}: C ${p.c} and N ${p.n} must be multiples of 16, C / 16 of ${ct}`);
      if (!(sg >= 16 && sg % 16 === 0 && 256 % sg === 0)) throw new DecoderError('unsupported', `${id}: subgroup size ${sg} (16, 32, 64, 128 or 256)`);
      if (emulate && 256 / sg > EMU_Q) throw new DecoderError('bad-input', `${id}: the emulation needs subgroup size SG >= ${256 / EMU_Q} (got ${sg})`);
      return [p.n / 16, p.c / 16 / ct, split];
    },
    cost(p, _ov, elem: Elem = 'f16') {
      // useful work: q·k and p·v, 2 multiply-adds per (query, key, channel); S again per channel group (and per pass)
      const groups = p.c / 16 / ct;
      const flops = 4 * p.n * p.n * p.c;
      const bytes = (p.c * p.n * (1 + (groups * (twoPass ? 2 : 1) + 1) * Math.ceil(p.n / 16)) + p.c * p.n) * elemBytes(elem);
      return { flops, bytes };
    },
  };
}
