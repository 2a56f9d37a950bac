// conv3d-mma's GEMM generated as straight-line WGSL for one result-tile shape (TM x TN) and one loop
// order, instead of shaders/conv3d-mma.wgsl's loops over arrays of subgroup matrices. Why: the looped
// shader's speed depends on whether the compiler unrolls those loops and keeps the matrix arrays in
// registers (2x2 tiles ran at 20-38 TFLOP/s where 3x2 ran at 70-89, 4x4 at 21-32 in the probes, H200
// 2026-12-01, e96e7c0): here every operand and accumulator is its own named value (a_0, r_1, c_0_1, ...), so
// no array can end up in local memory. Same bindings, Params, operand layouts, tile walk and epilogue
// (shaders/conv3d-mma-common.wgsl, with its TM / TN constants set to this shape).
// Loop orders (K = cin per tap, 27 taps for the 3x3x3 conv):
//   'tap-cb'  for dt, dy, dx { for cb { ... } }   (the looped shader's order)
//   'cb-tap'  for dt, cb { for dy, dx { ... } }   the 9 spatial taps of one channel block read a
//             3-row x (16*TN + 2)-pixel window of the operand copy one after another (the x taps are
//             16-element offsets of each other), so the right operands come from L1 instead of L2.
// RING=1 (a cached conv whose ring holds packed frames, plan/conv-form.ts packedRing): the temporal taps
// t-2, t-1 read the right operands from the `ring` binding, t from s (the dt loop is generated once per binding).
// Results equal conv3d-mma's up to the f32 summation order ('cb-tap' sums in another order).
// `phases` (the upsample Conv2d, plan/conv-form.ts upPhases): a nearest-2x upsample followed by a 3x3 conv
// is four 2x2 convs of the low-resolution input, one per output phase (py, px) (each output pixel's 3x3 window
// covers 2x2 input pixels, so the taps landing on one input pixel sum into one weight: conv-layout.ts
// upPhaseWeight). The GEMM then reads the low-resolution operand copy (a KS 3 pack without UP: padding 1) at the
// taps (py + ty, px + tx), ty, tx in {0, 1}, phase = workgroup_id.z, weight tap 4 * phase + 2 * ty + tx, and the
// epilogue writes output pixel (2r + py, 2x + px) (PH = 1, shaders/conv3d-mma-common.wgsl): 16 multiply-adds per
// input pixel and channel pair where the upsampled 3x3 conv does 36, and an operand copy a quarter of the size.
// `emulate`: the same generated main with its five matrix operations spelled as plain code
// (shaders/conv3d-mma-flat-emu.wgsl), for adapters without subgroup matrices (CI on lavapipe /
// SwiftShader): the shipped tiling, operand offsets and loop order run there against the CPU reference.
import src from '../../shaders/conv3d-mma.wgsl?raw';
import emuOps from '../../shaders/conv3d-mma-flat-emu.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { wgslConst, type KernelDef } from '../gpu/kernel';
import type { Conv3dParams } from './conv3d';
import common from '../../shaders/conv3d-mma-common.wgsl?raw';
import paramsWgsl from '../../shaders/conv3d-mma-params.wgsl?raw';
import { conv3dMma, conv3dMmaTiles, mmaTilesFor } from './conv3d-mma';

export type MmaOrder = 'tap-cb' | 'cb-tap';

export interface MmaShape {
  tm: number;
  tn: number;
  order: MmaOrder;
}

const range = (n: number) => [...Array(n).keys()];

/** How the generated main spells the matrix type and operations (offsets in elements, stride 16). */
interface MatrixOps {
  /** the type of one 16x16 f32 result */
  result: string;
  /** left (weights wt, row-major) and right (column-major, from `src`: the operand copy s or a packed ring) operand at an element offset */
  left(off: string): string;
  right(off: string, src: OperandSrc): string;
  /** c + a * b (b loaded from `src`) */
  mma(a: string, b: string, c: string, src: OperandSrc): string;
  /** result c into c_s at element offset off, row-major */
  store(off: string, c: string): string;
}

/** The binding a right operand is read from: the operand copy, or (RING=1, frames t-2 and t-1) the conv's packed ring. */
type OperandSrc = 's' | 'ring';

const L = 'subgroup_matrix_left<Elem, 16, 16>',
  R = 'subgroup_matrix_right<Elem, 16, 16>';

/** WGSL subgroup matrices (tensor cores) */
const tensorCoreOps: MatrixOps = {
  result: 'subgroup_matrix_result<f32, 16, 16>',
  left: (off) => `subgroupMatrixLoad<${L}, row_major>(&wt, ${off}, 16u)`,
  right: (off, src) => `subgroupMatrixLoad<${R}, col_major>(&${src}, ${off}, 16u)`,
  mma: (a, b, c) => `subgroupMatrixMultiplyAccumulate(${a}, ${b}, ${c})`,
  store: (off, c) => `subgroupMatrixStore<row_major>(&c_s, ${off}, ${c}, 16u)`,
};

/** plain code (shaders/conv3d-mma-flat-emu.wgsl): an operand is its offset, a result EMU_Q values per invocation */
const EMU_Q = wgslConst(emuOps, 'EMU_Q');
const emulatedOps: MatrixOps = {
  result: 'array<f32, EMU_Q>',
  left: (off) => off,
  right: (off) => off,
  mma: (a, b, c, src) => `emu_mma${src === 'ring' ? '_ring' : ''}(${a}, ${b}, ${c}, lid)`,
  store: (off, c) => `emu_store(${off}, ${c}, lid)`,
};

/** The generated `main` of one shape (WGSL; the enable line and Elem alias come from conv3d-mma.wgsl's header, or the emulation's). */
export function flatGemmMain({ tm, tn, order }: MmaShape, ops: MatrixOps = tensorCoreOps, phases = false): string {
  const I = range(tm),
    J = range(tn);
  const body = (aBase: (i: number) => string, bBase: (j: number) => string, ind: string, src: OperandSrc) =>
    [
      ...I.map((i) => `${ind}let a_${i} = ${ops.left(aBase(i))};`),
      ...J.map((j) => `${ind}let r_${j} = ${ops.right(bBase(j), src)};`),
      ...I.flatMap((i) => J.map((j) => `${ind}c_${i}_${j} = ${ops.mma(`a_${i}`, `r_${j}`, `c_${i}_${j}`, src)};`)),
    ].join('\n');
  // the temporal taps read from `src`: RING=1 reads t-2, t-1 from the packed ring and t from s; else all from s
  // (KT, RING: constants, shaders/conv3d-mma-common.wgsl: without a ring the first loop is dead code)
  const dts = (src: OperandSrc) => (src === 'ring' ? 'var dt = select(KT, prm.tap0, RING == 1u); dt + 1u < KT; dt++' : 'var dt = select(prm.tap0, max(prm.tap0, KT - 1u), RING == 1u); dt < KT; dt++');
  // phases: KT 1 (the upsample Conv2d), the 2 x 2 taps of output phase ph = wg.z; the channel blocks outer as 'cb-tap'
  const phaseLoops = `  let py = wg.z / 2u;
  let px = wg.z % 2u;
  for (var cb = 0u; cb < g.cb; cb++) {
    for (var ty = 0u; ty < 2u; ty++) {
      for (var tx = 0u; tx < 2u; tx++) {
        let tap = wg.z * 4u + ty * 2u + tx;
${body(
  (i) => `a_off(g, tap, ob0 + ${i}u) + cb * 256u`,
  (j) => `b_off(g, 0u, py + ty, px + tx, n_${j}) + cb * bs`,
  '        ',
  's',
)}
      }
    }
  }`;
  const loops = (src: OperandSrc) =>
    order === 'tap-cb'
      ? `  for (${dts(src)}) {
    for (var dy = 0u; dy < KS; dy++) {
      for (var dx = 0u; dx < KS; dx++) {
        let tap = (dt * KS + dy) * KS + dx;
${I.map((i) => `        let ao_${i} = a_off(g, tap, ob0 + ${i}u);`).join('\n')}
${J.map((j) => `        let bo_${j} = b_off(g, dt, dy, dx, n_${j});`).join('\n')}
        for (var cb = 0u; cb < g.cb; cb++) {
${body(
  (i) => `ao_${i} + cb * 256u`,
  (j) => `bo_${j} + cb * bs`,
  '          ',
  src,
)}
        }
      }
    }
  }`
      : `  for (${dts(src)}) {
    for (var cb = 0u; cb < g.cb; cb++) {
      for (var dy = 0u; dy < KS; dy++) {
        for (var dx = 0u; dx < KS; dx++) {
          let tap = (dt * KS + dy) * KS + dx;
${body(
  (i) => `a_off(g, tap, ob0 + ${i}u) + cb * 256u`,
  (j) => `b_off(g, dt, dy, dx, n_${j}) + cb * bs`,
  '          ',
  src,
)}
        }
      }
    }
  }`;
  return `@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = geo();
  let n0 = wg.x * TN;
  let ob0 = wg.y * TM;
  // pixel blocks of this group (the tail repeats the last one; not stored)
${J.map((j) => `  let n_${j} = min(n0 + ${j}u, g.tiles - 1u);`).join('\n')}
${I.flatMap((i) => J.map((j) => `  var c_${i}_${j}: ${ops.result};`)).join('\n')}
  let bs = b_cb_stride(g);
${phases ? phaseLoops : `${loops('ring')}\n${loops('s')}`}
${I.flatMap((i) => J.map((j) => `  ${ops.store(`${(i * tn + j) * 256}u`, `c_${i}_${j}`)};`)).join('\n')}
  workgroupBarrier();
  epilogue(g, ob0, n0, ${phases ? 'wg.z' : '0u'}, lid);
}
`;
}

/**
 * conv3dMma as straight-line WGSL for one shape: the same KernelDef (bindings, params, overrides,
 * dispatch and cost of conv3dMmaTiles(conv3dMma, tm, tn)) with its source replaced, under its own id.
 * `emulate`: the same main on plain code (shaders/conv3d-mma-flat-emu.wgsl; id + '-emu'), any adapter with SG >= 32.
 */
export function conv3dMmaFlat(shape: MmaShape, { emulate = false, phases = false }: { emulate?: boolean; phases?: boolean } = {}): KernelDef<Conv3dParams> {
  const { tm, tn, order } = shape;
  if (!(Number.isInteger(tm) && Number.isInteger(tn) && tm >= 1 && tn >= 1 && tm * tn <= 16)) throw new DecoderError('bad-input', `conv3d-mma-flat: ${tm} x ${tn} result tiles (at most 16)`);
  if (order !== 'tap-cb' && order !== 'cb-tap') throw new DecoderError('bad-input', `conv3d-mma-flat: loop order '${String(order)}' is not tap-cb or cb-tap`);
  // dispatch and cost of this tile shape (conv3dMmaTiles allows tm * tn <= 8: build from the 1 x 1 one)
  const tiles = conv3dMmaTiles(conv3dMma, 1, 1);
  const dispatch: KernelDef<Conv3dParams>['dispatch'] = (p, ov) => {
    const sg = ov.SG ?? 32;
    if (emulate && !(256 % sg === 0 && 256 / sg <= EMU_Q))
      throw new DecoderError('bad-input', `conv3d-mma-flat emulation: subgroup size SG ${sg} must divide 256 into at most ${EMU_Q} values per invocation`);
    if (ov.RING && (ov.KT ?? 3) !== 3) throw new DecoderError('bad-input', `conv3d-mma-flat: a packed ring (RING=1) needs KT 3, got ${ov.KT}`);
    if (phases && ((ov.KT ?? 3) !== 1 || (ov.KS ?? 3) !== 3 || ov.UP || ov.RING))
      throw new DecoderError('bad-input', `conv3d-mma-flat phases: the upsample Conv2d's low-resolution form (KT 1, KS 3, UP 0, no ring), got KT ${ov.KT} KS ${ov.KS} UP ${ov.UP} RING ${ov.RING}`);
    const [x, y, z] = tiles.dispatch(p, { ...ov, RING: 0 });
    // phases: the four output phases along z (the low-resolution frame's tiles each)
    return [Math.ceil(x / tn), Math.ceil(y / tm), phases ? 4 * z : z];
  };
  // conv3d-mma.wgsl's header (enable, Elem) without its looped main, or the emulation's (Elem and its
  // matrix operations); then the common part with TM / TN set
  const header = emulate ? emuOps : src.slice(0, src.indexOf('@compute'));
  const shared = common
    .replace(/^const TM: u32 = \d+;/m, `const TM: u32 = ${tm};`)
    .replace(/^const TN: u32 = \d+;/m, `const TN: u32 = ${tn};`)
    .replace(/^const PH: u32 = \d+;/m, `const PH: u32 = ${phases ? 1 : 0};`);
  if (
    !(emulate || header.includes('enable chromium_experimental_subgroup_matrix')) ||
    ![`const TM: u32 = ${tm};`, `const TN: u32 = ${tn};`, `const PH: u32 = ${phases ? 1 : 0};`].every((l) => shared.includes(l))
  )
    throw new DecoderError('bad-input', 'conv3d-mma-flat: shaders/conv3d-mma.wgsl / conv3d-mma-common.wgsl no longer have the expected header and TM / TN / PH lines');
  const id = `conv3d-mma-flat-${order}-${tm}x${tn}${phases ? '-up2' : ''}${emulate ? '-emu' : ''}`;
  const wgsl = `${header}${flatGemmMain(shape, emulate ? emulatedOps : tensorCoreOps, phases)}\n${shared}\n${paramsWgsl}`;
  // phases (p: the low-resolution frame): 16 weight taps per input pixel where the KS 3 count has 9; the output frame
  // is 4x the input's (3 more frames of output bytes)
  const cost: KernelDef<Conv3dParams>['cost'] = phases
    ? (p, ov, elem) => {
        const c = conv3dMma.cost(p, ov, elem);
        return { flops: (c.flops * 16) / 9, bytes: c.bytes + 3 * p.cout * p.h * p.w * (elem === 'f32' ? 4 : 2) };
      }
    : conv3dMma.cost;
  return { ...conv3dMma, id, wgsl, dispatch, cost };
}

/**
 * The GEMM the decoder runs for one conv call: the straight-line form in the 'cb-tap' order at
 * mmaTilesFor's tile shape; where `emulate`, that same GEMM on plain code (conv3dMmaFlat's emulation: any adapter, slow).
 * Why (H200, 2026-12-01, 3ced731, GEMM alone, bench/results/h200/mma-2026-12-01-3ced731/): cb-tap 3x2 ran at
 * 90.7 / 126.2 / 130.9 / 103.5 TFLOP/s at the four ANCHORS shapes (96ch 480x832, 192ch 240x416, 384ch
 * 120x208, 384ch 60x104) and 119.0 / 130.4 / 127.8 at Wan2.2's 256ch 352x640, 512ch 176x320, 1024ch
 * 88x160, against 90.4 / 79.4 (4x2) / 76.1 / 84 (e96e7c0) and 66.2 / 72.2 / 71.7 for the looped GEMM; the
 * tap-cb order was no faster than the looped shader (67-91), wider tiles lost in both orders (4x2 / 2x4
 * 66-118, 3x4 26-106, 4x4 30-80).
 */
export const MMA_ORDER: MmaOrder = 'cb-tap';

/** `phases`: the upsample Conv2d's four output phases from the low-resolution frame p (conv3dMmaFlat's `phases`). */
export function mmaGemm(p: { cin: number; cout: number; h: number; w: number }, ks: number, emulate: boolean, phases = false): KernelDef<Conv3dParams> {
  const [tm, tn] = mmaTilesFor(p, ks, phases ? 4 : 1);
  return conv3dMmaFlat({ tm, tn, order: MMA_ORDER }, { emulate, phases });
}
