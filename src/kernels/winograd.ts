// The non-fused Winograd conv (what cuDNN's WINOGRAD_NONFUSED and ncnn do) for convs with 3x3 spatial
// taps: three kernels per band of r x r output tiles, sharing one Params (shaders/winograd-common.wgsl):
//   1. winograd-in   V[e][k][tile] = (B^T d_k B)[e], k = (dt - tap0)*cin + c, d = the (r+2)^2 input
//      patch of channel c of frame dt (read as conv3d reads it: cache ring / x, zero border, nearest-2x
//      for UP, RMS_norm + SiLU fused on load)
//   2. winograd-gemm M[e][o][tile] = sum_k U[e][tap0*cin + k][o] V[e][k][tile]: E batched GEMMs generated
//      with conv3d-tiled's straight-line recipe (named accumulators, vec4 operands, double-buffered
//      workgroup staging; its multiply() is shared), U = G g G^T prepared once at upload (float64)
//   3. winograd-out  y[o][tile pixels] = (A^T M[.][o][tile] A) + b[o] (+ residual), cropped at odd edges
// Multiplies per output: F(2x2,3x3) 16/4 = 4 instead of 9 (2.25x fewer), F(4x4,3x3) 36/16 (4x fewer).
// V and M live in one scratch buffer sized for a band of `band` tiles, so the scratch stays under a cap
// however large the frame: the step dispatches the three kernels once per band (winograd-plan.ts: which
// convs, the bands, the scratch).
// Pure description: no GPU objects.
import common from '../../shaders/winograd-common.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, type Elem, type KernelDef, type ParamDef } from '../gpu/kernel';
import type { Conv3dParams } from './conv3d';
import { acc, comp, geom, multiply, range, tiledShapeError, type Geom, type TiledShape } from './conv3d-tiled';
import { sandwichWgsl, WINO_MATS, winoPositions, type WinoR, type WinoScratch } from './winograd-transforms';

export type { WinoScratch } from './winograd-transforms';

/**
 * The GEMM block (TiledShape) and, with h16, the products of each BK step summed in the storage type
 * (f16 in f16 plans: packed half FMAs on GPUs with fast f16, operands staged as f16) and added to the f32
 * accumulators once per step (BK products per f16 partial sum).
 */
export interface WinoGemmShape extends TiledShape {
  h16?: boolean;
}

export interface WinoParams extends Conv3dParams {
  /** first tile of the band and tiles in it (row-major over ceil(h/r) x ceil(w/r)) */
  t0: number;
  nt: number;
  /** element offset of M in the scratch (= E * KT * cin * band, a multiple of 4) */
  m_off: number;
}

/**
 * The uniform Params of the Winograd kernels (shaders/winograd-common.wgsl), winograd-u's and winograd-mma's too: a band's thirteen fields, then the conv's form (WINO_CARRIED: kt, up, has_res) carried from
 * the overrides KT, UP, HAS_RES. A kernel whose loops or unrolled code depend on one bakes it (the GEMMs bake KT,
 * the tensor-core input transform KT and UP); where it is only scalar arithmetic or a branch it is
 * read from Params, so one pipeline serves every value: winograd-in (KT, UP), winograd-u (KT) and winograd-out
 * (all three; HAS_RES in its write, once per output value). With conv3d-tiled's kt and has_res, the stock Wan2.1 480p plan compiles 16 pipelines, 23 before.
 */
export const WINO_PARAMS: readonly ParamDef<WinoParams>[] = [
  ...(['cin', 'cout', 'h', 'w', 'x_off', 'prev2_off', 'prev1_off', 'res_off', 'y_off', 'tap0', 't0', 'nt', 'm_off'] as const).map((name) => ({ name, type: 'u32' as const })),
  { name: 'kt', type: 'u32', override: 'KT' },
  { name: 'up', type: 'u32', override: 'UP' },
  { name: 'has_res', type: 'u32', override: 'HAS_RES' },
];
/** The conv's form carried in WINO_PARAMS, with defaults: each kernel bakes some (winoBakedWgsl), reads the rest from Params. */
export const WINO_CARRIED: Readonly<Record<string, number>> = { KT: 3, UP: 0, HAS_RES: 0 };
/** WINO_CARRIED without `baked`: a kernel's `uniforms`. */
export const winoUniforms = (...baked: string[]): Record<string, number> => Object.fromEntries(Object.entries(WINO_CARRIED).filter(([k]) => !baked.includes(k)));
/** The override declarations of the WINO_CARRIED values a kernel bakes (appended to its text). */
export const winoBakedWgsl = (...baked: string[]): string => baked.map((k) => `override ${k}: u32 = ${WINO_CARRIED[k]};\n`).join('');
const OVERRIDES = { KT: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0 };
// each kernel declares only the overrides its code reads: pipelines differ only where the code does
// (the GEMM compiles once per KT, not once per residual / norm / upsample combination)
const IN_OV = { NORM: 0, SILU: 0 };
const GEMM_OV = { KT: 3 };
const OUT_OV = {};

/** The overrides of winograd-in, -gemm and -out for a conv's KT, UP, HAS_RES, NORM, SILU. */
export function winoOverrides(o: { KT: number; UP: number; HAS_RES: number; NORM: number; SILU: number }): { in: Record<string, number>; gemm: Record<string, number>; out: Record<string, number> } {
  return { in: { KT: o.KT, UP: o.UP, NORM: o.NORM, SILU: o.SILU }, gemm: { KT: o.KT }, out: { HAS_RES: o.HAS_RES } };
}
/**
 * The operand value of `ld()` in the kernels that read the conv input (winograd-in, winograd-mma-in):
 * channel c at element offset o of a frame at base, from the cache ring or x, RMS_norm (the frame's inverse-RMS row
 * after its cin channels) and SiLU on load for NORM=1 / SILU=1; leaves it in `v` (f32). The caller computes o.
 */
export const WINO_OPERAND_WGSL = `  var v: f32;
  var inv = 1.0;
  if (from_cache) {
    v = f32(cache[base + c * hw_in + o]);
    if (NORM == 1u) { inv = f32(cache[base + prm.cin * hw_in + o]); }
  } else {
    v = f32(x[base + c * hw_in + o]);
    if (NORM == 1u) { inv = f32(x[base + prm.cin * hw_in + o]); }
  }
  if (NORM == 1u) {
    v = v * inv * f32(gamma[c]);
    if (SILU == 1u) { v = v / (1.0 + exp(-v)); }
  }`;

const WG = 64;

const stride = (nt: number) => Math.ceil(nt / 4) * 4;

/** Throws the one-line error of a dispatch whose params and overrides the Winograd kernels cannot run. */
function checkWinoOv(id: string, p: WinoParams, o: Record<string, number>): void {
  const bad = (why: string) => new DecoderError('bad-input', `${id} ${JSON.stringify({ ...p, ...o })}: ${why}`);
  if (o.KT !== 1 && o.KT !== 3) throw bad('KT must be 1 or 3');
  if (p.tap0 >= o.KT!) throw bad('tap0 must be < KT');
  if (o.UP && (p.h % 2 || p.w % 2)) throw bad('UP=1 needs an even output size');
  if (p.m_off % 4) throw bad('m_off must be a multiple of 4');
  if (![0, 1, 2].includes(o.HAS_RES ?? 0)) throw bad('HAS_RES must be 0, 1 (res binding) or 2 (in place, from y)');
}

const sAlias = (sc: WinoScratch) => `alias S = ${sc === 'f32' ? 'f32' : 'Elem'}; // scratch and U element`;

/** Tiles per invocation of winograd-in / winograd-out: 1, or 2 / 4 consecutive tiles of the band (V and M read and written as vec2 / vec4). */
export type WinoTiles = 1 | 2 | 4;

const vecOf = (T: WinoTiles, e: string) => (T === 1 ? e : `vec${T}<${e}>`);

/**
 * Names of tile q's values in the transforms' code: the 1-tile kernels keep the names (and so the text) of the
 * kernels measured before tiles per invocation existed (d_0_0, v, t, live, ...), T > 1 suffixes them per tile.
 */
const tileName = (T: WinoTiles, base: string, q: number, sep = '_') => (T === 1 ? base : `${base}${sep}${q}`);

/** winograd-in of F(r x r, 3x3): one invocation per (T consecutive tiles of the band, k); writes E values (of T tiles each) of V. */
function inWgsl(r: WinoR, sc: WinoScratch, T: WinoTiles): string {
  const n = r + 2;
  const nm = (b: string, q: number) => tileName(T, b, q);
  const d = (q: number) => (i: number, j: number) => `${tileName(T, 'd', q, '')}_${i}_${j}`;
  const tl = T === 1 ? 'tl' : 'tl0';
  const tiles = range(T).map((q) => {
    const loads = range(n).flatMap((i) => range(n).map((j) => `  let ${d(q)(i, j)} = ld(from_cache, base, c, hw_in, ${nm('y0', q)} + ${i}, ${nm('x0', q)} + ${j});`));
    return `  let ${nm('t', q)} = prm.t0 + ${T === 1 ? 'tl' : `tl0 + ${q}u`};
  let ${nm('live', q)} = ${T === 1 ? 'tl' : `tl0 + ${q}u`} < prm.nt;
  let ${nm('y0', q)} = i32((${nm('t', q)} / tw) * R) - 1;
  let ${nm('x0', q)} = i32((${nm('t', q)} % tw) * R) - 1;
${loads.join('\n')}
${sandwichWgsl(WINO_MATS[r].bt, d(q), tileName(T, 'v', q, ''), '  ')}`;
  });
  const val = (q: number, i: number, j: number) => `S(select(0.0, ${tileName(T, 'v', q, '')}_${i}_${j}, ${nm('live', q)}))`;
  const writes = range(n).flatMap((i) =>
    range(n).map((j) =>
      T === 1
        ? `  s[(${i * n + j}u * kc + k) * sv + tl] = ${val(0, i, j)};`
        : `  s[(${i * n + j}u * kc + k) * sq + gid.x] = vec${T}<S>(${range(T)
            .map((q) => val(q, i, j))
            .join(', ')});`,
    ),
  );
  return `alias Elem = f32;
// generated by src/kernels/winograd.ts: winograd-in F(${r}x${r},3x3), scratch ${sc}${T > 1 ? `, ${T} tiles per invocation` : ''}
${sAlias(sc)}
const R: u32 = ${r}u;${T > 1 ? `\nconst TPI: u32 = ${T}u; // tiles per invocation` : ''}
@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> gamma: array<Elem>;
@group(0) @binding(3) var<storage, read_write> s: array<${vecOf(T, 'S')}>;

// The conv operand of channel c at output-resolution pixel (sy, sx) of a frame at base: 0 outside the
// frame (PyTorch pads the normalised tensor), in[sy>>1][sx>>1] for UP=1, normalised on load for NORM=1.
fn ld(from_cache: bool, base: u32, c: u32, hw_in: u32, sy: i32, sx: i32) -> f32 {
  if (sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) { return 0.0; }
  var o = u32(sy) * prm.w + u32(sx);
  if (prm.up == 1u) { o = u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u); }
${WINO_OPERAND_WGSL}
  return v;
}

@compute @workgroup_size(${WG}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let sv = band_stride();${T > 1 ? `\n  let sq = sv / TPI; // row stride of V in vec${T}s` : ''}
  let ${tl} = gid.x${T > 1 ? ' * TPI' : ''};
  if (${tl} >= sv) { return; }
  let kc = (prm.kt - prm.tap0) * prm.cin;
  let k = gid.y;
  let dt = prm.tap0 + k / prm.cin;
  let c = k % prm.cin;
  let from_cache = dt + 1u < prm.kt;
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  let hw_in = select(prm.h * prm.w, (prm.h >> 1u) * (prm.w >> 1u), prm.up == 1u);
  let tw = (prm.w + R - 1u) / R;
${tiles.join('\n')}
${writes.join('\n')}
}
`;
}

/** winograd-out of F(r x r, 3x3): one invocation per (T consecutive tiles of the band, output channel o). */
function outWgsl(r: WinoR, sc: WinoScratch, T: WinoTiles): string {
  const n = r + 2;
  const m = (q: number) => (i: number, j: number) => `${tileName(T, 'm', q, '')}_${i}_${j}`;
  // T > 1: tile q's output transform and writes (tiles past the band's end skipped)
  const tile = (q: number) => {
    const puts = range(r).flatMap((i) => range(r).map((j) => `    put(o, py0_${q} + ${i}u, px0_${q} + ${j}u, y${q}_${i}_${j} + bias);`));
    return `${sandwichWgsl(WINO_MATS[r].at, m(q), `y${q}`, '  ')}
  let t_${q} = prm.t0 + tl0 + ${q}u;
  let py0_${q} = (t_${q} / tw) * R;
  let px0_${q} = (t_${q} % tw) * R;
  if (tl0 + ${q}u < prm.nt) {
${puts.join('\n')}
  }`;
  };
  // 1 tile: M read straight into m_i_j; T tiles: one vecT per position, tile q's values its components
  const loads =
    T === 1
      ? range(n).flatMap((i) => range(n).map((j) => `  let m_${i}_${j} = f32(s[mb + ${i * n + j}u * es]);`))
      : [
          ...range(n).flatMap((i) => range(n).map((j) => `  let mv_${i}_${j} = s[mb + ${i * n + j}u * es];`)),
          ...range(T).flatMap((q) => range(n).flatMap((i) => range(n).map((j) => `  let ${m(q)(i, j)} = f32(mv_${i}_${j}.${'xyzw'[q]});`))),
        ];
  return `alias Elem = f32;
// generated by src/kernels/winograd.ts: winograd-out F(${r}x${r},3x3), scratch ${sc}${T > 1 ? `, ${T} tiles per invocation` : ''}
${sAlias(sc)}
const R: u32 = ${r}u;${T > 1 ? `\nconst TPI: u32 = ${T}u; // tiles per invocation` : ''}
@group(0) @binding(0) var<storage, read> s: array<${vecOf(T, 'S')}>;
@group(0) @binding(1) var<storage, read> b: array<Elem>;
@group(0) @binding(2) var<storage, read> res: array<Elem>;
@group(0) @binding(3) var<storage, read_write> y: array<Elem>;

fn put(o: u32, py: u32, px: u32, v0: f32) {
  if (py >= prm.h || px >= prm.w) { return; }
  let i = o * prm.h * prm.w + py * prm.w + px;
  var v = v0;
  if (prm.has_res == 1u) { v += f32(res[prm.res_off + i]); }
  if (prm.has_res == 2u) { v += f32(y[prm.y_off + i]); }
  y[prm.y_off + i] = Elem(v);
}

@compute @workgroup_size(${WG}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let ${T === 1 ? 'tl' : 'tl0'} = gid.x${T > 1 ? ' * TPI' : ''};
  let o = gid.y;
  if (${T === 1 ? 'tl' : 'tl0'} >= prm.nt || o >= prm.cout) { return; }
${
  T === 1
    ? `  let sv = band_stride();
  let es = prm.cout * sv;
  let mb = prm.m_off + o * sv + tl;`
    : `  let sq = band_stride() / TPI; // row stride of M in vec${T}s
  let es = prm.cout * sq;
  let mb = prm.m_off / TPI + o * sq + gid.x;`
}
${loads.join('\n')}
${
  T === 1
    ? `${sandwichWgsl(WINO_MATS[r].at, m(0), 'y', '  ')}
  let tw = (prm.w + R - 1u) / R;
  let t = prm.t0 + tl;
  let py0 = (t / tw) * R;
  let px0 = (t % tw) * R;
  let bias = f32(b[o]);
${range(r)
  .flatMap((i) => range(r).map((j) => `  put(o, py0 + ${i}u, px0 + ${j}u, y_${i}_${j} + bias);`))
  .join('\n')}`
    : `  let tw = (prm.w + R - 1u) / R;
  let bias = f32(b[o]);
${range(T).map(tile).join('\n')}`
}
}
`;
}

/** WGSL staging GEMM step `s` from storage into la_* (U) / lb_* (V quads). */
function gemmLoad(g: Geom, s: string): string {
  const a = range(g.la).map((r) => {
    const body = `let kk = k0 + e / BM4; la_${r} = select(vec4<T>(0.0), vec4<T>(u[(ub + min(kk, kc - 1u)) * cout4 + min(m40 + e % BM4, cout4 - 1u)]), kk < kc);`;
    return (r + 1) * g.nt <= g.bk * g.bm4 ? `      { let e = lin + ${r * g.nt}u; ${body} }` : `      { let e = lin + ${r * g.nt}u; if (e < BK * BM4) { ${body} } }`;
  });
  const b = range(g.lb).map((r) => `      { let kk = k0 + bk0 + ${r * g.rb}u; lb_${r} = select(vec4<T>(0.0), vec4<T>(s[vb + min(kk, kc - 1u) * sv4 + min(q0 + bq, sv4 - 1u)]), kk < kc); }`);
  return `    {
      let k0 = (${s}) * BK;
${a.join('\n')}
${b.join('\n')}
    }`;
}

function gemmStore(g: Geom, buf: string): string {
  return [
    ...range(g.la).map((r) =>
      (r + 1) * g.nt <= g.bk * g.bm4
        ? `    a_s[${buf} * BK * BM4 + lin + ${r * g.nt}u] = la_${r};`
        : `    if (lin + ${r * g.nt}u < BK * BM4) { a_s[${buf} * BK * BM4 + lin + ${r * g.nt}u] = la_${r}; }`,
    ),
    ...range(g.lb).map((r) => `    b_s[${buf} * BK * BN4 + (bk0 + ${r * g.rb}u) * BN4 + bq] = lb_${r};`),
  ].join('\n');
}

/** M written as vec4 along 4 consecutive tiles of one channel, tiles beyond the band's stride skipped. */
function gemmEpilogue(g: Geom): string {
  return range(g.tm4)
    .flatMap((j) =>
      range(4).map(
        (q) => `  {
    let o = (m40 + lid.y + ${j * g.wgM}u) * 4u + ${q}u;
    if (o < prm.cout) {
${range(g.tn4)
  .map(
    (gq) =>
      `      { let quad = q0 + lid.x + ${gq * g.wgN}u; if (quad < sv4) { s[mo + o * sv4 + quad] = vec4<S>(vec4<f32>(${range(4)
        .map((c) => `${acc(j, 4 * gq + c)}.${comp[q]}`)
        .join(', ')})); } }`,
  )
  .join('\n')}
    }
  }`,
      ),
    )
    .join('\n');
}

/**
 * h16's multiply: the staged step's BK products summed per accumulator in T (f16 in f16 plans) from zero,
 * then added to the f32 accumulator (conv3d-tiled's multiply() order otherwise).
 */
function multiplyH16(g: Geom): string {
  const P = range(4 * g.tn4);
  const h = (j: number, p: number) => `h_${j}_${p}`;
  return [
    ...range(g.tm4).flatMap((j) => P.map((p) => `      var ${h(j, p)} = vec4<T>(0.0);`)),
    `      for (var k = 0u; k < BK; k++) {`,
    `        let ai = bc * BK * BM4 + k * BM4 + lid.y;`,
    `        let bi = bc * BK * BN4 + k * BN4 + lid.x;`,
    ...range(g.tm4).map((j) => `        let a_${j} = a_s[ai + ${j * g.wgM}u];`),
    ...range(g.tn4).map((q) => `        let b_${q} = b_s[bi + ${q * g.wgN}u];`),
    ...range(g.tm4).flatMap((j) => P.map((p) => `        ${h(j, p)} = fma(a_${j}, vec4<T>(b_${p >> 2}.${comp[p & 3]}), ${h(j, p)});`)),
    `      }`,
    ...range(g.tm4).flatMap((j) => P.map((p) => `      ${acc(j, p)} += vec4<f32>(${h(j, p)});`)),
  ].join('\n');
}

/** winograd-gemm: M_e = U_e^T V_e for e = wg.z; conv3d-tiled's loop with plain vec4 operand loads. */
function gemmWgsl(t: WinoGemmShape, sc: WinoScratch): string {
  const g = geom(t);
  return `alias Elem = f32;
// generated by src/kernels/winograd.ts: winograd-gemm ${JSON.stringify(t)}, scratch ${sc}
${sAlias(sc)}
alias T = ${t.h16 ? 'Elem' : 'f32'}; // staged operands (h16: and the per-step partial sums)
const WG_N: u32 = ${g.wgN}u;
const WG_M: u32 = ${g.wgM}u;
const BK: u32 = ${g.bk}u;
const BM4: u32 = ${g.bm4}u; // vec4 output-channel groups per workgroup
const BN4: u32 = ${g.bn4}u; // tile quads per workgroup
@group(0) @binding(0) var<storage, read_write> s: array<vec4<S>>; // V [E][kc][sv4], M at m_off/4: [E][cout][sv4]
@group(0) @binding(1) var<storage, read> u: array<vec4<S>>; // U [E][KT*cin][cout4]
var<workgroup> a_s: array<vec4<T>, ${2 * g.bk * g.bm4}>; // [2][BK][BM4] U
var<workgroup> b_s: array<vec4<T>, ${2 * g.bk * g.bn4}>; // [2][BK][BN4] V (4 tiles per vec4)

@compute @workgroup_size(${g.wgN}, ${g.wgM}, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let e = wg.z;
  let sv4 = band_stride() / 4u;
  let kc = (KT - prm.tap0) * prm.cin;
  let cout4 = (prm.cout + 3u) / 4u;
  let q0 = wg.x * BN4;
  let m40 = wg.y * BM4;
  let lin = lid.y * WG_N + lid.x;
  let bq = lin % BN4;
  let bk0 = lin / BN4;
  let vb = e * kc * sv4;
  let ub = (e * KT + prm.tap0) * prm.cin;
  let mo = prm.m_off / 4u + e * prm.cout * sv4;
  let steps = (kc + BK - 1u) / BK;
${range(g.tm4)
  .flatMap((j) => range(4 * g.tn4).map((p) => `  var ${acc(j, p)} = vec4<f32>(0.0);`))
  .join('\n')}
${range(g.la)
  .map((r) => `  var la_${r} = vec4<T>(0.0);`)
  .join('\n')}
${range(g.lb)
  .map((r) => `  var lb_${r} = vec4<T>(0.0);`)
  .join('\n')}
${gemmLoad(g, '0u')}
${gemmStore(g, '0u')}
  workgroupBarrier();
  for (var st = 0u; st < steps; st++) {
    let more = st + 1u < steps;
    if (more) {
${gemmLoad(g, 'st + 1u')}
    }
    {
      let bc = st & 1u;
${t.h16 ? multiplyH16(g) : multiply(g)}
    }
    if (more) {
      let bs = (st + 1u) & 1u;
${gemmStore(g, 'bs')}
    }
    workgroupBarrier();
  }
${gemmEpilogue(g)}
}
`;
}

const defs = new Map<string, KernelDef<WinoParams>>();
function cached(id: string, make: () => KernelDef<WinoParams>): KernelDef<WinoParams> {
  let d = defs.get(id);
  if (!d) defs.set(id, (d = make()));
  return d;
}

/** winograd-in F(r x r, 3x3), T tiles per invocation. Bindings: x, cache, gamma (as conv3d), s (scratch, V written). */
export function winogradIn(r: WinoR, sc: WinoScratch = 'elem', T: WinoTiles = 1): KernelDef<WinoParams> {
  const id = `winograd-in${r}${T > 1 ? `-t${T}` : ''}${sc === 'f32' ? '-s32' : ''}`;
  return cached(id, () => ({
    id,
    wgsl: `${inWgsl(r, sc, T)}\n${common}`,
    bindings: [
      { name: 'x', access: 'read' },
      { name: 'cache', access: 'read' },
      { name: 'gamma', access: 'read' },
      { name: 's', access: 'read_write' },
    ],
    params: WINO_PARAMS,
    overrides: IN_OV,
    uniforms: winoUniforms(),
    dispatch(p, ov) {
      const o = { ...OVERRIDES, ...ov };
      checkWinoOv(id, p, o);
      return [Math.ceil(stride(p.nt) / T / WG), (o.KT - p.tap0) * p.cin, 1];
    },
    cost(p, ov, elem: Elem = 'f32') {
      const o = { ...OVERRIDES, ...ov };
      const kc = (o.KT - p.tap0) * p.cin;
      const e = elemBytes(elem),
        se = sc === 'f32' ? 4 : e;
      return { flops: 0, bytes: kc * p.nt * ((r + 2) ** 2 * se + r * r * e) };
    },
  }));
}

/** winograd-out F(r x r, 3x3), T tiles per invocation. Bindings: s (scratch, M read), b, res, y (as conv3d). */
export function winogradOut(r: WinoR, sc: WinoScratch = 'elem', T: WinoTiles = 1): KernelDef<WinoParams> {
  const id = `winograd-out${r}${T > 1 ? `-t${T}` : ''}${sc === 'f32' ? '-s32' : ''}`;
  return cached(id, () => ({
    id,
    wgsl: `${outWgsl(r, sc, T)}\n${common}`,
    bindings: [
      { name: 's', access: 'read' },
      { name: 'b', access: 'read' },
      { name: 'res', access: 'read' },
      { name: 'y', access: 'read_write' },
    ],
    params: WINO_PARAMS,
    overrides: OUT_OV,
    uniforms: winoUniforms(),
    dispatch(p, ov) {
      checkWinoOv(id, p, { ...OVERRIDES, ...ov });
      return [Math.ceil(p.nt / T / WG), p.cout, 1];
    },
    cost(p, ov, elem: Elem = 'f32') {
      const o = { ...OVERRIDES, ...ov };
      const e = elemBytes(elem),
        se = sc === 'f32' ? 4 : e;
      return { flops: 0, bytes: p.cout * p.nt * ((r + 2) ** 2 * se + r * r * e * (o.HAS_RES ? 2 : 1)) };
    },
  }));
}

/**
 * winograd-gemm of F(r x r, 3x3) with GEMM block `t` (TiledShape: 4*wgM*tm4 output channels x
 * 4*wgN*tn4 tiles per workgroup, BK rows of k per step). Bindings: s (V read, M written), u (U).
 * cost.flops: the DIRECT conv's FLOPs for the band's tiles (r*r pixels each), so rates compare with conv3d.
 */
export function winogradGemm(r: WinoR, t: WinoGemmShape, sc: WinoScratch = 'elem'): KernelDef<WinoParams> {
  const id = `winograd-gemm${r}-${t.wgN}x${t.wgM}-${t.tm4}x${t.tn4}-bk${t.bk}${t.fma ? '-fma' : ''}${t.unroll ? '-unroll' : ''}${t.h16 ? '-h16' : ''}${sc === 'f32' ? '-s32' : ''}`;
  return cached(id, () => ({
    id,
    wgsl: `${gemmWgsl(t, sc)}\n${common}\n${winoBakedWgsl('KT')}`,
    bindings: [
      { name: 's', access: 'read_write' },
      { name: 'u', access: 'read' },
    ],
    params: WINO_PARAMS,
    overrides: GEMM_OV,
    uniforms: winoUniforms('KT'),
    dispatch(p, ov) {
      checkWinoOv(id, p, { ...OVERRIDES, ...ov });
      return [Math.ceil(stride(p.nt) / 4 / (t.wgN * t.tn4)), Math.ceil(p.cout / (4 * t.wgM * t.tm4)), winoPositions(r)];
    },
    cost(p, ov, elem: Elem = 'f32') {
      const o = { ...OVERRIDES, ...ov };
      const kc = (o.KT - p.tap0) * p.cin;
      const se = sc === 'f32' ? 4 : elemBytes(elem);
      return { flops: 2 * p.cout * kc * 9 * p.nt * r * r, bytes: se * winoPositions(r) * (kc * p.nt + kc * p.cout + p.cout * p.nt) };
    },
  }));
}

/**
 * Block shapes timed against the decoder's by bench/probes/wino-gemm.ts (block = 4*wgM*tm4 output channels x
 * 4*wgN*tn4 tiles; "tAxB" = A channels x B tiles per invocation; u = the BK loop written out, kN = BK of N):
 * larger register tiles (fewer workgroup-memory reads per multiply-add), wider tile blocks, other BK.
 */
export const WINO_GEMM_CANDIDATES: [string, WinoGemmShape][] = [
  ['c96t4x8u', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true, unroll: true }],
  ['c96t4x16', { wgN: 16, wgM: 24, tm4: 1, tn4: 4, bk: 12, fma: true }],
  ['c96t8x8', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true }],
  ['c96t8x8u', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true, unroll: true }],
  ['c96t8x8k24u', { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 24, fma: true, unroll: true }],
  ['c96t8x8w32', { wgN: 32, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true }],
  ['c96t8x16k9', { wgN: 16, wgM: 12, tm4: 2, tn4: 4, bk: 9, fma: true }],
  ['c96t8x16', { wgN: 16, wgM: 12, tm4: 2, tn4: 4, bk: 12, fma: true }],
  ['c96t8x16u', { wgN: 16, wgM: 12, tm4: 2, tn4: 4, bk: 12, fma: true, unroll: true }],
  ['c96t12x8', { wgN: 16, wgM: 8, tm4: 3, tn4: 2, bk: 16, fma: true }],
  ['c96t12x16', { wgN: 16, wgM: 8, tm4: 3, tn4: 4, bk: 8, fma: true }],
  ['c64t8x8', { wgN: 16, wgM: 8, tm4: 2, tn4: 2, bk: 16, fma: true }],
  ['c128t8x8u', { wgN: 16, wgM: 16, tm4: 2, tn4: 2, bk: 16, fma: true, unroll: true }],
  ['c128t8x8k8', { wgN: 16, wgM: 16, tm4: 2, tn4: 2, bk: 8, fma: true }],
  ['c128t16x8', { wgN: 16, wgM: 8, tm4: 4, tn4: 2, bk: 16, fma: true }],
  ['c128t8x16k8', { wgN: 16, wgM: 16, tm4: 2, tn4: 4, bk: 8, fma: true }],
  ['c128t8x16', { wgN: 16, wgM: 16, tm4: 2, tn4: 4, bk: 16, fma: true }],
  ['c128t16x16k8', { wgN: 16, wgM: 8, tm4: 4, tn4: 4, bk: 8, fma: true }],
];

/** Workgroup memory of a GEMM block: the two staging buffers of U and V, bytes at f32 (h16 in f16 plans: half). */
export const winoGemmSmem = (t: WinoGemmShape): number => 2 * t.bk * (t.wgM * t.tm4 + t.wgN * t.tn4) * 16;

/**
 * The decoder's GEMM block per output-channel class, in order of preference (the first that the adapter's
 * invocation and workgroup-memory limits allow): 96-channel multiples (Wan2.1), 128 (Wan2.2, 384), 64, else 16.
 */
export const WINO_GEMM_TABLE: { div: number; shapes: WinoGemmShape[] }[] = [
  {
    div: 96,
    shapes: [
      { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true },
      { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true },
    ],
  },
  { div: 128, shapes: [{ wgN: 16, wgM: 16, tm4: 2, tn4: 2, bk: 16, fma: true }] },
  { div: 64, shapes: [{ wgN: 16, wgM: 16, tm4: 1, tn4: 2, bk: 16, fma: true }] },
  { div: 1, shapes: [{ wgN: 16, wgM: 4, tm4: 1, tn4: 2, bk: 8, fma: true }] },
];

/**
 * The GEMM block for `cout` output channels (WINO_GEMM_TABLE): the first shape of the first class dividing
 * cout that fits `maxInvocations` and `maxWorkgroupBytes` (default 32 KiB: what Dawn's Vulkan backend offers
 * on lavapipe, below the H200's 48 KiB).
 */
export function winoGemmShape(cout: number, maxInvocations = 256, maxWorkgroupBytes = 32768): WinoGemmShape | null {
  for (const { div, shapes } of WINO_GEMM_TABLE) {
    if (cout % div) continue;
    const t = shapes.find((s) => !tiledShapeError(s, maxInvocations) && winoGemmSmem(s) <= maxWorkgroupBytes);
    if (t) return t;
  }
  return null;
}
