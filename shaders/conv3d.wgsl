// conv3d: one output frame of vae.py CausalConv3d (3x3x3, 3x1x1 time_conv, 1x1x1) or of the
// Resample Conv2d 3x3 after a nearest 2x upsample, as an implicit GEMM (M = cout, N = h*w, K = cin*taps):
//   y[o, py, px] = b[o] + Σ_c Σ_{dt=tap0..KT-1} Σ_{dy,dx<KS} W[o,c,dt,dy,dx] · in_dt[c, sy, sx]  (+ res[o, py, px])
//   sy = py + dy - (KS-1)/2 (zero outside); UP=1 reads in[c, sy>>1, sx>>1] from a (h/2 x w/2) input,
//   bounds checked on the full-resolution coordinate (upsample never materialised).
//   Frames: KT=3: dt=0 -> cache @ prev2_off (t-2), dt=1 -> cache @ prev1_off (t-1), dt=2 -> x @ x_off (t);
//   KT=1: x only. Taps dt < tap0 are known zero (first chunk) and skipped.
// Layouts (element offsets into each binding):
//   x, cache: [cin, h_in, w_in] Elem; res, y: [cout, h, w] Elem; b: [cout] Elem
//   w: [KT*KS*KS taps][cin][cout4] vec4<Elem>, cout4 = ceil(cout/4), zero padded (packConvWeight)
// Bindings: 0 x, 1 cache, 2 w, 3 b, 4 res (read), 5 y (read_write). Params: group 1 uniform.
// Dispatch: one workgroup per BN = WG_N*TN pixels x BM = WG_M*TM4*4 channels; an invocation owns
//   TM4 vec4 channel groups (ty + WG_M*j) x TN pixels (tx + WG_N*i), strided so loads and stores
//   of neighbouring invocations are contiguous. SMEM=0 (CPU adapters): operands straight from storage,
//   no barriers. SMEM=1 (GPUs): BK channels of one tap staged in workgroup memory per step.
alias Elem = f32;

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
}

@group(0) @binding(0) var<storage, read> x: array<Elem>;
@group(0) @binding(1) var<storage, read> cache: array<Elem>;
@group(0) @binding(2) var<storage, read> w: array<vec4<Elem>>;
@group(0) @binding(3) var<storage, read> b: array<Elem>;
@group(0) @binding(4) var<storage, read> res: array<Elem>;
@group(0) @binding(5) var<storage, read_write> y: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override KT: u32 = 3;
override KS: u32 = 3;
override UP: u32 = 0;
override HAS_RES: u32 = 0;
override WG_N: u32 = 32;
override WG_M: u32 = 1;
override TM4: u32 = 8; // vec4 channel groups per invocation (<= MAX_TM4)
override TN: u32 = 8; // pixels per invocation (<= MAX_TN)
override SMEM: u32 = 0;
override BK: u32 = 1;

// Register tile capacity. Loops run to the override bounds, so once overrides are substituted the
// driver unrolls them and keeps only the TM4*TN accumulators actually used in registers.
const MAX_TM4: u32 = 8;
const MAX_TN: u32 = 8;
alias Acc = array<vec4<f32>, MAX_TM4 * MAX_TN>; // [j][i], row stride TN
alias Px = array<f32, MAX_TN>;

var<workgroup> a_s: array<vec4<f32>, BK * WG_M * TM4>; // [BK][BM/4]
var<workgroup> b_s: array<f32, BK * WG_N * TN>; // [BK][BN]

struct Tap { base: u32, from_cache: bool, dy: u32, dx: u32 }

// Source frame and spatial shift of tap index `tap` (= (dt*KS + dy)*KS + dx).
fn tap_info(tap: u32) -> Tap {
  let dt = tap / (KS * KS);
  let from_cache = dt + 1u < KT;
  let base = select(prm.x_off, select(prm.prev1_off, prm.prev2_off, dt == 0u), from_cache);
  return Tap(base, from_cache, (tap / KS) % KS, tap % KS);
}

// Offset of output pixel p's tap source inside one input channel plane, or 0xffffffff when it is padding.
fn src_offset(p: u32, dy: u32, dx: u32) -> u32 {
  let pad = (KS - 1u) / 2u;
  let sy = i32(p / prm.w) + i32(dy) - i32(pad);
  let sx = i32(p % prm.w) + i32(dx) - i32(pad);
  if (p >= prm.h * prm.w || sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) { return 0xffffffffu; }
  if (UP == 1u) { return u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u); }
  return u32(sy) * prm.w + u32(sx);
}

fn load_src(from_cache: bool, i: u32) -> f32 {
  if (from_cache) { return f32(cache[i]); }
  return f32(x[i]);
}

// acc[j][i] += W[k, column j] * v[i] for one K index whose weight row starts at vec4 index wi.
fn mac(acc: ptr<function, Acc>, v: ptr<function, Px>, wcol: ptr<function, array<u32, MAX_TM4>>, wi: u32) {
  for (var j = 0u; j < TM4; j++) {
    let a = vec4<f32>(w[wi + (*wcol)[j]]);
    for (var i = 0u; i < TN; i++) { (*acc)[j * TN + i] += a * (*v)[i]; }
  }
}

@compute @workgroup_size(WG_N, WG_M, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let hw = prm.h * prm.w;
  let hw_in = select(hw, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let cout4 = (prm.cout + 3u) / 4u;
  let bm4 = WG_M * TM4;
  let bn = WG_N * TN;
  let p0 = wg.x * bn;
  let m40 = wg.y * bm4;
  let taps = KT * KS * KS;
  var acc: Acc;
  var wcol: array<u32, MAX_TM4>; // this invocation's vec4 weight columns, clamped into range
  for (var j = 0u; j < TM4; j++) { wcol[j] = min(m40 + lid.y + WG_M * j, cout4 - 1u); }

  if (SMEM == 0u) {
    for (var tap = prm.tap0 * KS * KS; tap < taps; tap++) {
      let t = tap_info(tap);
      var off: array<u32, MAX_TN>;
      var ok: array<bool, MAX_TN>;
      for (var i = 0u; i < TN; i++) {
        let o = src_offset(p0 + lid.x + WG_N * i, t.dy, t.dx);
        ok[i] = o != 0xffffffffu;
        off[i] = t.base + select(0u, o, ok[i]);
      }
      var wi = tap * prm.cin * cout4;
      var v: Px;
      // the two loops differ only in the binding read: a per-load branch costs CPU adapters ~15%
      if (t.from_cache) {
        for (var c = 0u; c < prm.cin; c++) {
          for (var i = 0u; i < TN; i++) { v[i] = select(0.0, f32(cache[off[i]]), ok[i]); off[i] += hw_in; }
          mac(&acc, &v, &wcol, wi);
          wi += cout4;
        }
      } else {
        for (var c = 0u; c < prm.cin; c++) {
          for (var i = 0u; i < TN; i++) { v[i] = select(0.0, f32(x[off[i]]), ok[i]); off[i] += hw_in; }
          mac(&acc, &v, &wcol, wi);
          wi += cout4;
        }
      }
    }
  } else {
    let nt = WG_N * WG_M;
    let lin = lid.y * WG_N + lid.x;
    for (var tap = prm.tap0 * KS * KS; tap < taps; tap++) {
      let t = tap_info(tap);
      let off = src_offset(p0 + lin % bn, t.dy, t.dx); // requires nt % bn == 0 (WG_M % TN == 0)
      let ok = off != 0xffffffffu;
      for (var c0 = 0u; c0 < prm.cin; c0 += BK) {
        for (var e = lin; e < BK * bm4; e += nt) {
          let c = c0 + e / bm4;
          let m4 = min(m40 + e % bm4, cout4 - 1u);
          a_s[e] = select(vec4<f32>(0.0), vec4<f32>(w[(tap * prm.cin + c) * cout4 + m4]), c < prm.cin);
        }
        for (var e = lin; e < BK * bn; e += nt) {
          let c = c0 + e / bn;
          let good = ok && c < prm.cin;
          b_s[e] = select(0.0, load_src(t.from_cache, t.base + select(0u, c * hw_in + off, good)), good);
        }
        workgroupBarrier();
        for (var k = 0u; k < BK; k++) {
          var v: Px;
          for (var i = 0u; i < TN; i++) { v[i] = b_s[k * bn + lid.x + WG_N * i]; }
          for (var j = 0u; j < TM4; j++) {
            let a = a_s[k * bm4 + lid.y + WG_M * j];
            for (var i = 0u; i < TN; i++) { acc[j * TN + i] += a * v[i]; }
          }
        }
        workgroupBarrier();
      }
    }
  }

  for (var j = 0u; j < TM4; j++) {
    for (var q = 0u; q < 4u; q++) {
      let o = (m40 + lid.y + WG_M * j) * 4u + q;
      if (o >= prm.cout) { continue; }
      let bias = f32(b[o]);
      for (var i = 0u; i < TN; i++) {
        let p = p0 + lid.x + WG_N * i;
        if (p >= hw) { continue; }
        var v = acc[j * TN + i][q] + bias;
        if (HAS_RES == 1u) { v += f32(res[prm.res_off + o * hw + p]); }
        y[prm.y_off + o * hw + p] = Elem(v);
      }
    }
  }
}
