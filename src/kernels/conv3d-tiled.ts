// conv3d-tiled: the portable conv (same operation, bindings, Params and weight layout as conv3d, see
// shaders/conv3d.wgsl) generated as straight-line WGSL for one tile shape, for GPUs. Why: conv3d's
// MODE 1 keeps its register tile in an array sized for the largest tile (64 vec4) and indexes it from
// loops; whether that stays in registers is up to the driver's unroller, and the 8x8 tiles that should
// be faster ran slower on the H200 (bench/results/h200/h200-2026-11-30-sweep.md). Here every
// accumulator and operand is its own named value (c_0_3, a_1, b_0, ...), so none can end up in local memory.
// The K loop (27 taps x cin) runs in steps of BK input channels of one tap:
//   - weights [BK][BM4] vec4 and the im2col block [BK][BN4] vec4 (4 pixels each) are staged in
//     workgroup memory, double-buffered: step s+1 is loaded from storage into registers (la_*, lb_*)
//     before step s is multiplied, then stored into the other buffer; one barrier per step;
//   - invocation (lid.x, lid.y) owns TM4 vec4 channel groups lid.y + WG_M*j and TN4 pixel quads
//     lid.x + WG_N*g (pixels 4*quad .. 4*quad+3): per k, TM4 + TN4 vec4 reads of workgroup memory feed
//     16*TM4*TN4 multiply-adds.
// Results equal conv3d's up to the f32 summation order (channels in steps of BK instead of 16).
import common from '../../shaders/conv3d-common.wgsl?raw';
import wElem from '../../shaders/conv3d-w.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import type { KernelDef } from '../gpu/kernel';
import { conv3d, type Conv3dParams } from './conv3d';
import { tiledShapeError, type TiledShape } from './conv3d-tiled-shape';

export { tiledShapeError, type TiledShape } from './conv3d-tiled-shape';

export const range = (n: number) => [...Array(n).keys()];

/** Derived sizes of a shape: invocations, vec4 channel groups / pixel quads per block, loader rows and registers. */
export interface Geom extends TiledShape {
  nt: number;
  bm4: number;
  bn4: number;
  /** channel rows one pass of the im2col loader stages (one quad per invocation) */
  rb: number;
  /** staging registers: weight vec4s (la) and im2col quads (lb) per invocation and step */
  la: number;
  lb: number;
}

export function geom(t: TiledShape): Geom {
  const err = tiledShapeError(t, 1024);
  if (err) throw new DecoderError('bad-input', `conv3d-tiled ${JSON.stringify(t)}: ${err}`);
  const nt = t.wgN * t.wgM,
    bm4 = t.wgM * t.tm4,
    bn4 = t.wgN * t.tn4,
    rb = t.wgM / t.tn4;
  return { ...t, nt, bm4, bn4, rb, la: Math.ceil((t.bk * bm4) / nt), lb: t.bk / rb };
}

export const acc = (j: number, p: number) => `c_${j}_${p}`;
export const comp = 'xyzw';

/** WGSL block staging step `s` (a u32 expression) from storage into la_* / lb_* (tap offsets cached per tap). */
function stageLoad(g: Geom, s: string): string {
  const weights = range(g.la).map((r) => {
    const body = `let c = c0 + e / BM4;
        la_${r} = select(vec4<f32>(0.0), wload((tap * prm.cin + min(c, prm.cin - 1u)) * cout4 + min(m40 + e % BM4, cout4 - 1u)), c < prm.cin);`;
    return (r + 1) * g.nt <= g.bk * g.bm4 ? `      { let e = lin + ${r * g.nt}u; ${body} }` : `      { let e = lin + ${r * g.nt}u; if (e < BK * BM4) { ${body} } }`;
  });
  const quads = range(g.lb).map(
    (r) => `      {
        let c = c0 + bk0 + ${r * g.rb}u;
        let cc = min(c, prm.cin - 1u);
        let q = off + vec4<u32>(t.base + cc * hw_in);
        ${
          g.split
            ? `var u: vec4<f32>;
        if (t.from_cache) { u = vec4<f32>(f32(cache[q.x]), f32(cache[q.y]), f32(cache[q.z]), f32(cache[q.w])); } else { u = vec4<f32>(f32(x[q.x]), f32(x[q.y]), f32(x[q.z]), f32(x[q.w])); }`
            : 'var u = vec4<f32>(load_src(t.from_cache, q.x), load_src(t.from_cache, q.y), load_src(t.from_cache, q.z), load_src(t.from_cache, q.w));'
        }
        if (NORM == 1u) { u = norm_act4(u, inv, cc); }
        lb_${r} = select(vec4<f32>(0.0), u, ok & vec4<bool>(c < prm.cin));
      }`,
  );
  return `    {
      let tap = tap_first + (${s}) / nch;
      let c0 = ((${s}) % nch) * BK;
      if (tap != cur_tap) {
        cur_tap = tap;
        t = tap_info(tap);
${range(4)
  .map((q) => `        let o${q} = src_offset(p0 + 4u * bq + ${q}u, t.dy, t.dx);`)
  .join('\n')}
        ok = vec4<bool>(o0 != NONE, o1 != NONE, o2 != NONE, o3 != NONE);
        off = select(vec4<u32>(0u), vec4<u32>(o0, o1, o2, o3), ok);
        if (NORM == 1u) {
          let q = off + vec4<u32>(t.base + prm.cin * hw_in);
          inv = vec4<f32>(load_src(t.from_cache, q.x), load_src(t.from_cache, q.y), load_src(t.from_cache, q.z), load_src(t.from_cache, q.w));
        }
      }
${weights.join('\n')}
${quads.join('\n')}
    }`;
}

/** WGSL storing la_* / lb_* into workgroup buffer `buf` (a u32 expression). */
function stageStore(g: Geom, buf: string): string {
  return [
    ...range(g.la).map((r) =>
      (r + 1) * g.nt <= g.bk * g.bm4
        ? `    a_s[${buf} * BK * BM4 + lin + ${r * g.nt}u] = la_${r};`
        : `    if (lin + ${r * g.nt}u < BK * BM4) { a_s[${buf} * BK * BM4 + lin + ${r * g.nt}u] = la_${r}; }`,
    ),
    ...range(g.lb).map((r) => `    b_s[${buf} * BK * BN4 + (bk0 + ${r * g.rb}u) * BN4 + bq] = lb_${r};`),
  ].join('\n');
}

/**
 * WGSL multiplying the staged step in buffer `bc`: BK times TM4 + TN4 vec4 reads and 16*TM4*TN4 multiply-adds
 * (a_s [2][BK][BM4] x b_s [2][BK][BN4] vec4 into accumulators c_j_p; shared with winograd-gemm).
 */
export function multiply(g: Geom): string {
  const P = range(4 * g.tn4);
  const madd = (j: number, p: number) => (g.fma ? `${acc(j, p)} = fma(a_${j}, vec4<f32>(b_${p >> 2}.${comp[p & 3]}), ${acc(j, p)});` : `${acc(j, p)} += a_${j} * b_${p >> 2}.${comp[p & 3]};`);
  const kBody = (k: string, ind: string) =>
    [
      `${ind}let ai = bc * BK * BM4 + ${k} * BM4 + lid.y;`,
      `${ind}let bi = bc * BK * BN4 + ${k} * BN4 + lid.x;`,
      ...range(g.tm4).map((j) => `${ind}let a_${j} = a_s[ai + ${j * g.wgM}u];`),
      ...range(g.tn4).map((q) => `${ind}let b_${q} = b_s[bi + ${q * g.wgN}u];`),
      ...range(g.tm4).flatMap((j) => P.map((p) => `${ind}${madd(j, p)}`)),
    ].join('\n');
  return g.unroll
    ? range(g.bk)
        .map((k) => `      {\n${kBody(`${k}u`, '        ')}\n      }`)
        .join('\n')
    : `      for (var k = 0u; k < BK; k++) {\n${kBody('k', '        ')}\n      }`;
}

/** WGSL writing the accumulators: bias, weight scale, residual (put), skipping channels >= cout and pixels >= hw. */
function epilogue(g: Geom): string {
  return range(g.tm4)
    .flatMap((j) =>
      range(4).map(
        (q) => `  {
    let o = (m40 + lid.y + ${j * g.wgM}u) * 4u + ${q}u;
    if (o < prm.cout) {
      let bias = f32(b[o]);
      let sc = wscale(o, cout4);
${range(4 * g.tn4)
  .map((p) => `      put(o, p0 + 4u * (lid.x + ${(p >> 2) * g.wgN}u) + ${p & 3}u, hw, ${acc(j, p)}.${comp[q]} * sc + bias);`)
  .join('\n')}
    }
  }`,
      ),
    )
    .join('\n');
}

/** Module-scope WGSL of one shape: sizes, the two double-buffered workgroup arrays, the output write. */
function header(g: Geom, t: TiledShape): string {
  return `alias Elem = f32;
// generated by src/kernels/conv3d-tiled.ts: ${JSON.stringify(t)}
const WG_N: u32 = ${g.wgN}u;
const WG_M: u32 = ${g.wgM}u;
const BK: u32 = ${g.bk}u;
const BM4: u32 = ${g.bm4}u; // vec4 channel groups per workgroup
const BN4: u32 = ${g.bn4}u; // pixel quads per workgroup
var<workgroup> a_s: array<vec4<f32>, ${2 * g.bk * g.bm4}>; // [2][BK][BM4] weights
var<workgroup> b_s: array<vec4<f32>, ${2 * g.bk * g.bn4}>; // [2][BK][BN4] im2col (4 pixels per vec4)

fn conv_kt() -> u32 { return prm.kt; } // conv3d-common.wgsl's tap_info

fn put(o: u32, p: u32, hw: u32, v0: f32) {
  if (p >= hw) { return; }
  var v = v0;
  if (prm.has_res == 1u) { v += f32(res[prm.res_off + o * hw + p]); }
  if (prm.has_res == 2u) { v += f32(y[prm.y_off + o * hw + p]); }
  y[prm.y_off + o * hw + p] = Elem(v);
}
`;
}

/** The WGSL of one shape: main() + conv3d-common.wgsl (bindings, Params, addressing) + conv3d-w.wgsl (wload). */
export function tiledWgsl(t: TiledShape): string {
  const g = geom(t);
  return `${header(g, t)}
@compute @workgroup_size(${g.wgN}, ${g.wgM}, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let hw = prm.h * prm.w;
  let hw_in = select(hw, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let cout4 = (prm.cout + 3u) / 4u;
  let p0 = wg.x * BN4 * 4u;
  let m40 = wg.y * BM4;
  let lin = lid.y * WG_N + lid.x;
  let bq = lin % BN4; // the pixel quad this invocation stages, channel rows bk0 + ${g.rb}*r
  let bk0 = lin / BN4;
  let nch = (prm.cin + BK - 1u) / BK;
  let tap_first = prm.tap0 * KS * KS;
  let steps = (prm.kt * KS * KS - tap_first) * nch;
${range(g.tm4)
  .flatMap((j) => range(4 * g.tn4).map((p) => `  var ${acc(j, p)} = vec4<f32>(0.0);`))
  .join('\n')}
${range(g.la)
  .map((r) => `  var la_${r} = vec4<f32>(0.0);`)
  .join('\n')}
${range(g.lb)
  .map((r) => `  var lb_${r} = vec4<f32>(0.0);`)
  .join('\n')}
  var cur_tap = NONE;
  var t = Tap(0u, false, 0u, 0u);
  var ok = vec4<bool>(false);
  var off = vec4<u32>(0u);
  var inv = vec4<f32>(0.0);
${stageLoad(g, '0u')}
${stageStore(g, '0u')}
  workgroupBarrier();
  for (var s = 0u; s < steps; s++) {
    let more = s + 1u < steps;
    if (more) {
${stageLoad(g, 's + 1u')}
    }
    {
      let bc = s & 1u;
${multiply(g)}
    }
    if (more) {
      let bs = (s + 1u) & 1u;
${stageStore(g, 'bs')}
    }
    workgroupBarrier();
  }
${epilogue(g)}
}
`;
}

const defs = new Map<string, KernelDef<Conv3dParams>>();

/**
 * The KernelDef of one shape (cached): conv3d's bindings, params and cost; overrides KS, UP, NORM, SILU.
 * KT and HAS_RES are uniforms (Params' kt, has_res): KT enters only the step count of the K loop (already a
 * value: it counts cin / BK) and tap_info's frame choice, the residual only the epilogue, once per output
 * value; one pipeline instead of one per (KT, residual) saves compiles of ~135-260 ms each on the H200 (1x1
 * shapes, bench/results/h200/startup-ab-2026-12-03-dcabebf/compile.jsonl).
 */
export function conv3dTiled(t: TiledShape): KernelDef<Conv3dParams> {
  const id = `conv3d-tiled-${t.wgN}x${t.wgM}-${t.tm4}x${t.tn4}-bk${t.bk}${t.fma ? '-fma' : ''}${t.unroll ? '-unroll' : ''}${t.split ? '-split' : ''}`;
  let def = defs.get(id);
  if (!def) {
    const base = { KS: 3, UP: 0, NORM: 0, SILU: 0 };
    const uniforms = { KT: 3, HAS_RES: 0 };
    def = {
      ...conv3d,
      id,
      wgsl: `${tiledWgsl(t)}\n${common}\n${wElem}`,
      overrides: base,
      uniforms,
      dispatch(p, ov) {
        const o = { ...base, ...uniforms, ...ov };
        if (![0, 1, 2].includes(o.HAS_RES)) throw new DecoderError('bad-input', `${id}: HAS_RES must be 0, 1 (res binding) or 2 (in place, from y), got ${o.HAS_RES}`);
        if (o.UP && (p.h % 2 || p.w % 2)) throw new DecoderError('bad-input', `${id}: UP=1 needs an even output size, got ${p.h}x${p.w}`);
        if (o.KT !== 1 && o.KT !== 3) throw new DecoderError('bad-input', `${id}: KT must be 1 or 3, got ${o.KT}`);
        if (p.tap0 >= o.KT!) throw new DecoderError('bad-input', `${id}: tap0 ${p.tap0} must be < KT ${o.KT}`);
        return [Math.ceil((p.h * p.w) / (4 * t.wgN * t.tn4)), Math.ceil(p.cout / (4 * t.wgM * t.tm4)), 1];
      },
      cost: (p, ov, elem) => conv3d.cost(p, { ...conv3d.overrides, ...ov }, elem),
    };
    defs.set(id, def);
  }
  return def;
}
