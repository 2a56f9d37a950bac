// winograd-fused: the Winograd conv's input transform done in the GEMM's staging, so V never exists in
// global memory (the non-fused form, src/kernels/winograd.ts, writes V [E][kc][tiles] to the scratch
// in winograd-in and reads it back in winograd-gemm). Per band of r x r output tiles, two kernels:
//   1. winograd-fused  M[e][o][tile] = sum_k U[e][tap0*cin + k][o] V[e][k][tile] for the n = r+2
//      positions e = i*n + j of one row i of the transform (wg.z = i), V computed per staged step from
//      the input: for BK channels x BN tiles, the rows a of the (r+2)^2 patch where B^T[i][a] != 0 are
//      read (as winograd-in reads them: cache ring / x, zero border, nearest-2x for UP, RMS_norm + SiLU
//      on load), t[b] = sum_a B^T[i][a] d[a][b], V[i*n + j] = sum_b B^T[j][b] t[b] for every j.
//   2. winograd-out (src/kernels/winograd.ts), unchanged: Y = A^T M A + bias (+ residual).
// Why a row of positions per workgroup and not one position: the patch rows a workgroup reads serve the
// n positions of its row (a position alone would read ~the whole input once per position: 36x for
// F(4x4)); the price is n accumulator sets per invocation (tm4 x tn4 vec4 x 4 each).
// Scratch: M only, [E][cout][sv] at m_off (sv = the band's tiles rounded up to 4).
// Pure description: no GPU objects.
import common from '../../shaders/winograd-common.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { elemBytes, type Elem, type KernelDef } from '../gpu/kernel';
import { comp, range } from './conv3d-tiled';
import { checkWinoOv, WINO_OPERAND_WGSL, WINO_PARAMS, winoBakedWgsl, winoUniforms, type WinoParams } from './winograd';
import { lin, WINO_MATS, winoPositions, type WinoR, type WinoScratch } from './winograd-transforms';

/**
 * The fused GEMM's block: wgN x wgM invocations, each owning tm4 vec4 output-channel groups x tn4 tile quads for
 * every position j of the workgroup's row; BK input channels (rows of k) per staged step; unroll: the k loop
 * written out.
 */
export interface WinoFusedShape {
  wgN: number;
  wgM: number;
  tm4: number;
  tn4: number;
  bk: number;
  unroll?: boolean;
}

const OVERRIDES = { KT: 3, UP: 0, NORM: 0, SILU: 0 };

/** Workgroup memory of a fused block for F(r x r): U and V staging of n positions, double-buffered, bytes at f32. */
export const winoFusedSmem = (r: WinoR, t: WinoFusedShape): number => 2 * (r + 2) * t.bk * (t.wgM * t.tm4 + t.wgN * t.tn4) * 16;

/** Why a fused block cannot run under `maxInvocations` / `maxWorkgroupBytes`, or null. */
export function winoFusedShapeError(r: WinoR, t: WinoFusedShape, maxInvocations = 256, maxWorkgroupBytes = 32768): string | null {
  if (![t.wgN, t.wgM, t.tm4, t.tn4, t.bk].every((v) => Number.isInteger(v) && v >= 1)) return 'every size must be a positive integer';
  if (t.wgN * t.wgM > maxInvocations) return `${t.wgN * t.wgM} invocations > ${maxInvocations}`;
  const smem = winoFusedSmem(r, t);
  if (smem > maxWorkgroupBytes) return `${smem} B of workgroup memory > ${maxWorkgroupBytes}`;
  return null;
}

/** Rows a of B^T[i] with a nonzero coefficient, per i (padded to the longest with coefficient 0). */
function nonzeroRows(r: WinoR): { rows: number[][]; coefs: number[][]; nz: number } {
  const bt = WINO_MATS[r].bt;
  const nz = Math.max(...bt.map((row) => row.filter((c) => c !== 0).length));
  const rows = bt.map((row) => {
    const a = range(row.length).filter((k) => row[k] !== 0);
    while (a.length < nz) a.push(a[0]!);
    return a;
  });
  const coefs = bt.map((row, i) => rows[i]!.map((a, z) => (z < row.filter((c) => c !== 0).length ? row[a]! : 0)));
  return { rows, coefs, nz };
}

const num = (c: number) => (Number.isInteger(c) ? `${c}.0` : `${c}`);

interface G {
  n: number;
  bk: number;
  nz: number;
  nt: number;
  bm4: number;
  bn4: number;
  /** U vec4 and V items staged per invocation and step */
  la: number;
  lb: number;
}

function geomOf(r: WinoR, t: WinoFusedShape): G {
  const n = r + 2,
    nt = t.wgN * t.wgM,
    bm4 = t.wgM * t.tm4,
    bn4 = t.wgN * t.tn4;
  return { n, bk: t.bk, nz: nonzeroRows(r).nz, nt, bm4, bn4, la: Math.ceil((n * t.bk * bm4) / nt), lb: Math.ceil((t.bk * 4 * bn4) / nt) };
}

/** Staging loads of step `s` into registers: U vec4 (la_*) and the patch rows of each V item (d_*). */
function stageLoad(g: G, s: string): string {
  const a = range(g.la).map((q) => {
    const body = `let j = e_ / (BK * BM4); let rem = e_ % (BK * BM4); let kk = k0 + rem / BM4;
        la_${q} = select(vec4<T>(0.0), vec4<T>(u[(ub + j * KT * prm.cin + min(kk, kc - 1u)) * cout4 + min(m40 + rem % BM4, cout4 - 1u)]), kk < kc);`;
    return (q + 1) * g.nt <= g.n * g.bk * g.bm4 ? `      { let e_ = lin + ${q * g.nt}u; ${body} }` : `      { let e_ = lin + ${q * g.nt}u; if (e_ < N * BK * BM4) { ${body} } }`;
  });
  const b = range(g.lb).map((q) => {
    const loads = range(g.nz).flatMap((z) => range(g.n).map((bb) => `        d_${q}_${z}_${bb} = ldf(fc, base, c, hw_in, y0 + ra${z}, x0 + ${bb});`));
    return `      {
        let it = lin + ${q * g.nt}u;
        let kq = it / BN;
        let tq = it % BN;
        let kk = k0 + kq;
        let tl = q0 * 4u + tq;
        ok_${q} = it < BK * BN && kk < kc && tl < prm.nt;
        dst_${q} = kq * BN4 + tq / 4u;
        cmp_${q} = tq & 3u;
        let k1 = min(kk, kc - 1u);
        let dt = prm.tap0 + k1 / prm.cin;
        let c = k1 % prm.cin;
        let fc = dt + 1u < KT;
        let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), fc);
        let t = prm.t0 + min(tl, prm.nt - 1u);
        let y0 = i32((t / tw) * R) - 1;
        let x0 = i32((t % tw) * R) - 1;
${loads.join('\n')}
      }`;
  });
  return `    {
      let k0 = (${s}) * BK;
${a.join('\n')}
${b.join('\n')}
    }`;
}

/** The V items' transforms and both stores into buffer `buf`. */
function stageStore(r: WinoR, g: G, buf: string): string {
  const bt = WINO_MATS[r].bt;
  const a = range(g.la).map((q) =>
    (q + 1) * g.nt <= g.n * g.bk * g.bm4
      ? `    a_s[${buf} * N * BK * BM4 + lin + ${q * g.nt}u] = la_${q};`
      : `    if (lin + ${q * g.nt}u < N * BK * BM4) { a_s[${buf} * N * BK * BM4 + lin + ${q * g.nt}u] = la_${q}; }`,
  );
  const b = range(g.lb).map((q) => {
    const tb = range(g.n).map(
      (bb) =>
        `      let t_${bb} = ${range(g.nz)
          .map((z) => `rc${z} * d_${q}_${z}_${bb}`)
          .join(' + ')};`,
    );
    const vs = range(g.n).map(
      (j) =>
        `      b_s[(${buf} * N + ${j}u) * BK * BN4 + dst_${q}][cmp_${q}] = T(select(0.0, ${lin(
          bt[j]!,
          range(g.n).map((bb) => `t_${bb}`),
        )}, ok_${q}));`,
    );
    const guard = (q + 1) * g.nt <= g.bk * 4 * g.bn4 ? '' : `if (lin + ${q * g.nt}u < BK * BN) `;
    return `    ${guard}{\n${tb.join('\n')}\n${vs.join('\n')}\n    }`;
  });
  return [...a, ...b].join('\n');
}

function multiply(g: G, t: WinoFusedShape): string {
  const P = range(4 * t.tn4);
  const body = (k: string, ind: string) =>
    range(g.n)
      .flatMap((j) => [
        `${ind}{`,
        `${ind}  let ai = (bc * N + ${j}u) * BK * BM4 + ${k} * BM4 + lid.y;`,
        `${ind}  let bi = (bc * N + ${j}u) * BK * BN4 + ${k} * BN4 + lid.x;`,
        ...range(t.tm4).map((m) => `${ind}  let a_${m} = a_s[ai + ${m * t.wgM}u];`),
        ...range(t.tn4).map((q) => `${ind}  let b_${q} = b_s[bi + ${q * t.wgN}u];`),
        ...range(t.tm4).flatMap((m) => P.map((p) => `${ind}  c_${j}_${m}_${p} = fma(vec4<f32>(a_${m}), vec4<f32>(f32(b_${p >> 2}.${comp[p & 3]})), c_${j}_${m}_${p});`)),
        `${ind}}`,
      ])
      .join('\n');
  return t.unroll
    ? range(t.bk)
        .map((k) => `      {\n${body(`${k}u`, '        ')}\n      }`)
        .join('\n')
    : `      for (var k = 0u; k < BK; k++) {\n${body('k', '        ')}\n      }`;
}

function epilogue(g: G, t: WinoFusedShape): string {
  return range(g.n)
    .flatMap((j) =>
      range(t.tm4).flatMap((m) =>
        range(4).map(
          (q) => `  {
    let o = (m40 + lid.y + ${m * t.wgM}u) * 4u + ${q}u;
    let mo = prm.m_off / 4u + ((row * N + ${j}u) * prm.cout + o) * sv4;
    if (o < prm.cout) {
${range(t.tn4)
  .map(
    (gq) =>
      `      { let quad = q0 + lid.x + ${gq * t.wgN}u; if (quad < sv4) { s[mo + quad] = vec4<S>(vec4<f32>(${range(4)
        .map((c) => `c_${j}_${m}_${4 * gq + c}.${comp[q]}`)
        .join(', ')})); } }`,
  )
  .join('\n')}
    }
  }`,
        ),
      ),
    )
    .join('\n');
}

function fusedWgsl(r: WinoR, t: WinoFusedShape, sc: WinoScratch): string {
  const g = geomOf(r, t);
  const { rows, coefs } = nonzeroRows(r);
  const sw = range(g.n)
    .map(
      (i) =>
        `    case ${i}u: { ${range(g.nz)
          .map((z) => `ra${z} = ${rows[i]![z]}; rc${z} = ${num(coefs[i]![z]!)};`)
          .join(' ')} }`,
    )
    .join('\n');
  return `alias Elem = f32;
// generated by src/kernels/winograd-fused.ts: winograd-fused F(${r}x${r},3x3) ${JSON.stringify(t)}, scratch ${sc}
alias S = ${sc === 'f32' ? 'f32' : 'Elem'}; // M and U element
alias T = f32; // staged operands
const R: u32 = ${r}u;
const N: u32 = ${g.n}u; // positions per row of the transform
const WG_N: u32 = ${t.wgN}u;
const WG_M: u32 = ${t.wgM}u;
const BK: u32 = ${t.bk}u;
const BM4: u32 = ${g.bm4}u; // vec4 output-channel groups per workgroup
const BN4: u32 = ${g.bn4}u; // tile quads per workgroup
const BN: u32 = ${4 * g.bn4}u; // tiles per workgroup
@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> gamma: array<Elem>;
@group(0) @binding(3) var<storage, read_write> s: array<vec4<S>>; // M at m_off/4: [E][cout][sv4]
@group(0) @binding(4) var<storage, read> u: array<vec4<S>>; // U [E][KT*cin][cout4]
var<workgroup> a_s: array<vec4<T>, ${2 * g.n * t.bk * g.bm4}>; // [2][N][BK][BM4] U of the row's positions
var<workgroup> b_s: array<vec4<T>, ${2 * g.n * t.bk * g.bn4}>; // [2][N][BK][BN4] V (4 tiles per vec4)

// The conv operand of channel c at output-resolution pixel (sy, sx) of a frame at base, as winograd-in's ld():
// 0 outside the frame, in[sy>>1][sx>>1] for UP=1, normalised on load for NORM=1; without branches (the
// address clamped into the frame, the value selected).
fn ldf(from_cache: bool, base: u32, c: u32, hw_in: u32, sy: i32, sx: i32) -> f32 {
  let inside = sy >= 0 && sx >= 0 && sy < i32(prm.h) && sx < i32(prm.w);
  let yy = u32(clamp(sy, 0, i32(prm.h) - 1));
  let xx = u32(clamp(sx, 0, i32(prm.w) - 1));
  var o = yy * prm.w + xx;
  if (UP == 1u) { o = (yy >> 1u) * (prm.w >> 1u) + (xx >> 1u); }
${WINO_OPERAND_WGSL}
  return select(0.0, v, inside);
}

@compute @workgroup_size(${t.wgN}, ${t.wgM}, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = wg.z;
  let sv4 = band_stride() / 4u;
  let kc = (KT - prm.tap0) * prm.cin;
  let cout4 = (prm.cout + 3u) / 4u;
  let q0 = wg.x * BN4;
  let m40 = wg.y * BM4;
  let lin = lid.y * WG_N + lid.x;
  let ub = (row * N * KT + prm.tap0) * prm.cin;
  let steps = (kc + BK - 1u) / BK;
  let hw_in = select(prm.h * prm.w, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let tw = (prm.w + R - 1u) / R;
  // the patch rows of B^T row \`row\` with a nonzero coefficient (uniform over the workgroup)
${range(g.nz)
  .map((z) => `  var ra${z} = 0;\n  var rc${z} = 0.0;`)
  .join('\n')}
  switch (row) {
${sw}
    default: {}
  }
${range(g.n)
  .flatMap((j) => range(t.tm4).flatMap((m) => range(4 * t.tn4).map((p) => `  var c_${j}_${m}_${p} = vec4<f32>(0.0);`)))
  .join('\n')}
${range(g.la)
  .map((q) => `  var la_${q} = vec4<T>(0.0);`)
  .join('\n')}
${range(g.lb)
  .flatMap((q) => [`  var ok_${q} = false;`, `  var dst_${q} = 0u;`, `  var cmp_${q} = 0u;`, ...range(g.nz).flatMap((z) => range(g.n).map((bb) => `  var d_${q}_${z}_${bb} = 0.0;`))])
  .join('\n')}
${stageLoad(g, '0u')}
${stageStore(r, g, '0u')}
  workgroupBarrier();
  for (var st = 0u; st < steps; st++) {
    let more = st + 1u < steps;
    if (more) {
${stageLoad(g, 'st + 1u')}
    }
    {
      let bc = st & 1u;
${multiply(g, t)}
    }
    if (more) {
      let bs = (st + 1u) & 1u;
${stageStore(r, g, 'bs')}
    }
    workgroupBarrier();
  }
${epilogue(g, t)}
}
`;
}

const stride = (nt: number) => Math.ceil(nt / 4) * 4;

const defs = new Map<string, KernelDef<WinoParams>>();

/**
 * winograd-fused of F(r x r, 3x3) with block `t`. Bindings: x, cache, gamma (as conv3d), s (scratch: M written), u (U).
 * Overrides: KT, UP, NORM, SILU (what the input side reads). cost.flops: the DIRECT conv's FLOPs of the band's tiles.
 */
export function winogradFused(r: WinoR, t: WinoFusedShape, sc: WinoScratch = 'elem'): KernelDef<WinoParams> {
  const id = `winograd-fused${r}-${t.wgN}x${t.wgM}-${t.tm4}x${t.tn4}-bk${t.bk}${t.unroll ? '-unroll' : ''}${sc === 'f32' ? '-s32' : ''}`;
  let d = defs.get(id);
  if (d) return d;
  const err = winoFusedShapeError(r, t, 1024, 65536);
  if (err) throw new DecoderError('bad-input', `${id}: ${err}`);
  d = {
    id,
    wgsl: `${fusedWgsl(r, t, sc)}\n${common}\n${winoBakedWgsl('KT', 'UP')}`,
    bindings: [
      { name: 'x', access: 'read' },
      { name: 'cache', access: 'read' },
      { name: 'gamma', access: 'read' },
      { name: 's', access: 'read_write' },
      { name: 'u', access: 'read' },
    ],
    params: WINO_PARAMS,
    overrides: OVERRIDES,
    uniforms: winoUniforms('KT', 'UP'),
    dispatch(p, ov) {
      checkWinoOv(id, p, { ...OVERRIDES, ...ov });
      return [Math.ceil(stride(p.nt) / 4 / (t.wgN * t.tn4)), Math.ceil(p.cout / (4 * t.wgM * t.tm4)), r + 2];
    },
    cost(p, ov, elem: Elem = 'f32') {
      const o = { ...OVERRIDES, ...ov };
      const kc = (o.KT - p.tap0) * p.cin;
      const e = elemBytes(elem),
        se = sc === 'f32' ? 4 : e;
      // U once per position, the input once, M once
      return { flops: 2 * p.cout * kc * 9 * p.nt * r * r, bytes: se * winoPositions(r) * (kc * p.cout + p.cout * p.nt) + e * kc * p.nt * r * r };
    },
  };
  defs.set(id, d);
  return d;
}

/** Overrides of winograd-fused for a conv (winograd-out takes HAS_RES as in the non-fused form). */
export const winoFusedOverrides = (o: { KT: number; UP: number; NORM: number; SILU: number }): Record<string, number> => ({ KT: o.KT, UP: o.UP, NORM: o.NORM, SILU: o.SILU });

/** Blocks the probe (bench/probes/wino-fused.ts) times; the decoder's is winoFusedShape's. */
export const WINO_FUSED_CANDIDATES: [string, WinoFusedShape][] = [
  ['f96x64k4', { wgN: 16, wgM: 24, tm4: 1, tn4: 1, bk: 4 }],
  ['f96x64k6', { wgN: 16, wgM: 24, tm4: 1, tn4: 1, bk: 6 }],
  ['f96x64k4u', { wgN: 16, wgM: 24, tm4: 1, tn4: 1, bk: 4, unroll: true }],
  ['f96x32k8', { wgN: 8, wgM: 24, tm4: 1, tn4: 1, bk: 8 }],
  ['f48x64k8', { wgN: 16, wgM: 12, tm4: 1, tn4: 1, bk: 8 }],
  ['f96x128k2', { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 2 }],
  ['f192x64k2', { wgN: 16, wgM: 24, tm4: 2, tn4: 1, bk: 2 }],
];

/**
 * The decoder's fused block for `cout` output channels under the adapter's limits: 96-channel blocks where cout is a
 * multiple of 96, 64-channel ones for multiples of 64, else 16; 64 tiles each; BK as large as workgroup memory allows.
 */
export function winoFusedShape(r: WinoR, cout: number, maxInvocations = 256, maxWorkgroupBytes = 32768): WinoFusedShape | null {
  const wgM = cout % 96 === 0 ? 24 : cout % 64 === 0 ? 16 : 4;
  for (const wgN of [16, 8, 4])
    for (const bk of [6, 4, 2]) {
      const t = { wgN, wgM, tm4: 1, tn4: 1, bk };
      if (!winoFusedShapeError(r, t, maxInvocations, maxWorkgroupBytes)) return t;
    }
  return null;
}
