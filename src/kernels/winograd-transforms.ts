// Winograd F(r x r, 3x3) transform matrices (Lavin & Gray 2015) and what is built from them, for the
// non-fused Winograd conv (src/kernels/winograd.ts): the float64 weight transform U = G g G^T done
// once at weight upload, and straight-line WGSL for the input transform V = B^T d B and the output
// transform Y = A^T M A (zeros skipped, +-1 written as additions). Conv here is cross-correlation, as
// PyTorch's: Y[i][j] = sum_{u,v<3} g[u][v] d[i+u][j+v] for the (r+2)x(r+2) input patch d. Pure TS.
import { DecoderError } from '../gpu/errors';

/** Output tile side r of F(r x r, 3x3): 2 (16 transform positions) or 4 (36). */
export type WinoR = 2 | 4;

/**
 * Element type of the scratch (V, M) and of U: 'f32', or 'elem' = the plan's storage type (f16 storage
 * plans then keep V, M and U in f16: half the scratch and U bytes; every transform and the GEMM's sums
 * stay f32). In f32 plans both are the same kernels. Planned by plan/conv-form.ts, compiled by kernels/winograd.ts.
 */
export type WinoScratch = 'f32' | 'elem';

interface Mats {
  /** B^T: (r+2) x (r+2) */
  bt: number[][];
  /** G: (r+2) x 3 */
  g: number[][];
  /** A^T: r x (r+2) */
  at: number[][];
}

export const WINO_MATS: Record<WinoR, Mats> = {
  2: {
    bt: [
      [1, 0, -1, 0],
      [0, 1, 1, 0],
      [0, -1, 1, 0],
      [0, 1, 0, -1],
    ],
    g: [
      [1, 0, 0],
      [0.5, 0.5, 0.5],
      [0.5, -0.5, 0.5],
      [0, 0, 1],
    ],
    at: [
      [1, 1, 1, 0],
      [0, 1, -1, -1],
    ],
  },
  4: {
    bt: [
      [4, 0, -5, 0, 1, 0],
      [0, -4, -4, 1, 1, 0],
      [0, 4, -4, -1, 1, 0],
      [0, -2, -1, 2, 1, 0],
      [0, 2, -1, -2, 1, 0],
      [0, 4, 0, -5, 0, 1],
    ],
    g: [
      [1 / 4, 0, 0],
      [-1 / 6, -1 / 6, -1 / 6],
      [-1 / 6, 1 / 6, -1 / 6],
      [1 / 24, 1 / 12, 1 / 6],
      [1 / 24, -1 / 12, 1 / 6],
      [0, 0, 1],
    ],
    at: [
      [1, 1, 1, 1, 1, 0],
      [0, 1, -1, 2, -2, 0],
      [0, 1, 1, 4, 4, 0],
      [0, 1, -1, 8, -8, 1],
    ],
  },
};

/** Transform positions E = (r+2)^2. */
export const winoPositions = (r: WinoR): number => (r + 2) ** 2;

/** Elements of U: [E][kt*cin][cout4*4]. */
export function winoWeightLength(r: WinoR, cout: number, cin: number, kt: number): number {
  return winoPositions(r) * kt * cin * Math.ceil(cout / 4) * 4;
}

/** Bytes the per-call weight transform (winograd-weights.ts winogradWeightsCall) moves per conv call: the f32 rows read, U (E values per weight, `uBytes` each) written. */
export const winoCallBytes = (r: WinoR, cout: number, cin: number, kt: number, uBytes: number): number => cout * cin * kt * (4 * 9 + uBytes * winoPositions(r));

/**
 * PyTorch weight [cout, cin, kt, 3, 3] (the upsample Conv2d's [cout, cin, 3, 3] is kt = 1) -> U =
 * G g G^T per (o, c, dt) in float64, rounded once to f32, laid out [E][dt*cin + c][cout4*4] (cout
 * zero-padded to a multiple of 4; the GEMM reads rows of it as vec4 along cout).
 */
export function packWinogradWeight(w: Float32Array, r: WinoR, cout: number, cin: number, kt: number): Float32Array<ArrayBuffer> {
  if (w.length !== cout * cin * kt * 9) throw new DecoderError('bad-input', `packWinogradWeight: ${w.length} values for [${cout}, ${cin}, ${kt}, 3, 3]`);
  const n = r + 2,
    E = n * n,
    co4 = Math.ceil(cout / 4) * 4,
    rows = kt * cin;
  const G = Float64Array.from(WINO_MATS[r].g.flat()); // [n][3]
  const out = new Float32Array(E * rows * co4);
  const t = new Float64Array(n * 3);
  const es = rows * co4; // stride of one transform position in out
  // rows outer, output channels inner: each position's writes are contiguous along o (the cold start's
  // share: 73 M Wan2.1 weights; o outer wrote 16-36 values ~rows*co4 apart each)
  for (let c = 0; c < cin; c++)
    for (let dt = 0; dt < kt; dt++) {
      const row = dt * cin + c;
      for (let o = 0; o < cout; o++) {
        const b = ((o * cin + c) * kt + dt) * 9;
        const g00 = w[b]!,
          g01 = w[b + 1]!,
          g02 = w[b + 2]!,
          g10 = w[b + 3]!,
          g11 = w[b + 4]!,
          g12 = w[b + 5]!,
          g20 = w[b + 6]!,
          g21 = w[b + 7]!,
          g22 = w[b + 8]!;
        // t = G g: n x 3
        for (let i = 0; i < n; i++) {
          const a = G[i * 3]!,
            bb = G[i * 3 + 1]!,
            cc = G[i * 3 + 2]!;
          t[i * 3] = a * g00 + bb * g10 + cc * g20;
          t[i * 3 + 1] = a * g01 + bb * g11 + cc * g21;
          t[i * 3 + 2] = a * g02 + bb * g12 + cc * g22;
        }
        // U = t G^T: n x n, position (i, j) at out[((i*n + j) * rows + row) * co4 + o]
        let at = row * co4 + o;
        for (let i = 0; i < n; i++) {
          const t0 = t[i * 3]!,
            t1 = t[i * 3 + 1]!,
            t2 = t[i * 3 + 2]!;
          for (let j = 0; j < n; j++, at += es) out[at] = t0 * G[j * 3]! + t1 * G[j * 3 + 1]! + t2 * G[j * 3 + 2]!;
        }
      }
    }
  return out;
}

/** A WGSL sum of coef * name terms, zeros skipped, +-1 without a multiply. */
export function lin(coefs: number[], names: string[]): string {
  const terms: string[] = [];
  coefs.forEach((c, i) => {
    if (c === 0) return;
    const lit = Number.isInteger(c) ? `${Math.abs(c)}.0` : `${Math.abs(c)}`;
    const t = Math.abs(c) === 1 ? names[i]! : `${lit} * ${names[i]}`;
    terms.push(terms.length ? `${c < 0 ? ' - ' : ' + '}${t}` : c < 0 ? `-${t}` : t);
  });
  return terms.length ? terms.join('') : '0.0';
}

/**
 * Straight-line WGSL computing out = L X L^T for a square input of named values (`x(i, j)`, n x n):
 * L is m x n; declares `let ${out}_i_j` (m x m) through temporaries `${out}t_i_j` (m x n).
 */
export function sandwichWgsl(L: number[][], x: (i: number, j: number) => string, out: string, indent: string): string {
  const m = L.length,
    n = L[0]!.length;
  const lines: string[] = [];
  const range = (k: number) => [...Array(k).keys()];
  // t = L X: t[i][j] = sum_k L[i][k] X[k][j]
  for (const i of range(m))
    for (const j of range(n))
      lines.push(
        `let ${out}t_${i}_${j} = ${lin(
          L[i]!,
          range(n).map((k) => x(k, j)),
        )};`,
      );
  // out = t L^T: out[i][j] = sum_k t[i][k] L[j][k]
  for (const i of range(m))
    for (const j of range(m))
      lines.push(
        `let ${out}_${i}_${j} = ${lin(
          L[j]!,
          range(n).map((k) => `${out}t_${i}_${k}`),
        )};`,
      );
  return lines.map((l) => indent + l).join('\n');
}
