// The operand layouts of the Winograd conv on tensor cores (src/kernels/winograd-mma.ts), in pure TS so the
// planner (plan/step-kinds.ts) can pack U without a shader module:
//   U  [E][kt][cout/16][cin/16][16 cout][16 cin]   f16, each 16x16 tile contiguous and row-major: the
//      GEMM's left operand of position e, temporal tap dt, output block ob, channel block cb
//   V  [E][(dt - tap0) * cin/16 + cb][sv][16 cin]  sv = the band's tiles rounded up to 16: the right
//      operand of 16 consecutive tiles is 256 contiguous elements read column-major (a tile's 16
//      channels contiguous), as conv3d-mma reads its operand copy
// cin and cout are multiples of 16 (conv-form.ts winoMmaPlanFor): U then has winoWeightLength's element count.
import { DecoderError } from '../gpu/errors';
import { winoPositions, type WinoR } from './winograd-transforms';

/** Element index of U[e][dt][o / 16][c / 16][o % 16][c % 16]. */
export function winoMmaWeightIndex(e: number, dt: number, o: number, c: number, cout: number, cin: number, kt: number): number {
  const obn = cout / 16,
    cbn = cin / 16;
  return ((((e * kt + dt) * obn + (o >> 4)) * cbn + (c >> 4)) * 16 + (o & 15)) * 16 + (c & 15);
}

/** packWinogradWeight's U ([E][kt*cin][cout4*4]) re-laid out as the tensor-core GEMM's left operand. */
export function winoMmaWeightLayout(u: Float32Array, r: WinoR, cout: number, cin: number, kt: number): Float32Array<ArrayBuffer> {
  if (cout % 16 || cin % 16) throw new DecoderError('bad-input', `winoMmaWeightLayout: cin ${cin} and cout ${cout} must be multiples of 16`);
  const E = winoPositions(r),
    rows = kt * cin;
  if (u.length !== E * rows * cout) throw new DecoderError('bad-input', `winoMmaWeightLayout: ${u.length} values for U of [${E}][${rows}][${cout}]`);
  const out = new Float32Array(u.length);
  for (let e = 0; e < E; e++)
    for (let dt = 0; dt < kt; dt++)
      for (let c = 0; c < cin; c++) {
        const src = (e * rows + dt * cin + c) * cout;
        for (let o = 0; o < cout; o++) out[winoMmaWeightIndex(e, dt, o, c, cout, cin, kt)] = u[src + o]!;
      }
  return out;
}
