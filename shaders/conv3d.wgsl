// conv3d: one output frame of vae.py CausalConv3d (3x3x3, 3x1x1 time_conv, 1x1x1) or of the
// Resample Conv2d 3x3 after a nearest 2x upsample, as an implicit GEMM (M = cout, N = h*w, K = cin*taps):
//   y[o, py, px] = b[o] + Σ_c Σ_{dt=tap0..KT-1} Σ_{dy,dx<KS} W[o,c,dt,dy,dx] · in_dt[c, sy, sx]  (+ res[o, py, px])
//   sy = py + dy - (KS-1)/2 (zero outside); UP=1 reads in[c, sy>>1, sx>>1] from a (h/2 x w/2) input,
//   bounds checked on the full-resolution coordinate (upsample never materialised).
//   Frames: KT=3: dt=0 -> cache @ prev2_off (t-2), dt=1 -> cache @ prev1_off (t-1), dt=2 -> x @ x_off (t);
//   KT=1: x only. Taps dt < tap0 are known zero (first chunk) and skipped.
//   NORM=1 (--norm fused): the conv input is the RMS_norm (+ SiLU if SILU=1) of a raw tensor, applied
//   while loading: in = act(raw[c, s] · inv[s] · gamma[c]) where inv (written by rms-norm STATS=1) is
//   row cin of the source frame ([cin+1, h_in, w_in]: the current frame and both cache frames carry it);
//   padding stays zero (PyTorch pads the normalised tensor). HAS_RES=2: the residual is read from y
//   itself (in place: the planner gave y the residual's slot; WebGPU forbids binding one buffer as
//   read-only and read_write in one dispatch).
// Layouts (element offsets into each binding):
//   x, cache: [cin, h_in, w_in] Elem (NORM=1: [cin+1, ...]); res, y: [cout, h, w] Elem; b, gamma: [cout]/[cin] Elem
//   w: [KT*KS*KS taps][cin][cout4] vec4<Elem>, cout4 = ceil(cout/4), zero padded (packConvWeight)
// Weights are read through wload(i) (vec4 i of that order, as f32) and the sum scaled by wscale(o) in the
// epilogue, defined by the appended shaders/conv3d-w.wgsl (w as stored, scale 1) or, for the kernel
// conv3d-wq, shaders/conv3d-wq.wgsl (int8 with per-output-channel scales, or f16 pairs, at binding 7).
// Bindings: 0 x, 1 cache, 2 w, 3 b, 4 res, 6 gamma (read), 5 y (read_write). Params: group 1 uniform.
// Dispatch: one workgroup per BN = WG_N*TN pixels x BM = WG_M*TM4*4 channels; an invocation owns
//   TM4 vec4 channel groups (ty + WG_M*j) x TN pixels (tx + WG_N*i), strided so loads and stores
//   of neighbouring invocations are contiguous. MODE picks the K loop: 0 operands straight from storage,
//   no barriers (lavapipe); 1 BK channels of one tap staged in workgroup memory per step (GPUs); 2 as 0
//   with a fixed 2x4 tile in named registers (SwiftShader). Three loops in one file (over the 150-line
//   style budget) so that one KernelDef, one binding table and one epilogue serve every adapter.
alias Elem = f32;

// Params, bindings 0-6 and the overrides KS, UP, NORM, SILU: shaders/conv3d-common.wgsl
override KT: u32 = 3; // Params' kt is not read here
override HAS_RES: u32 = 0; // 0 none, 1 from res, 2 from y (in place); Params' has_res is not read here
fn conv_kt() -> u32 { return KT; }
override WG_N: u32 = 32;
override WG_M: u32 = 1;
override TM4: u32 = 8; // vec4 channel groups per invocation (<= MAX_TM4)
override TN: u32 = 8; // pixels per invocation (<= MAX_TN)
override MODE: u32 = 0; // 0 direct (LLVM-based CPU adapters), 1 tiled (GPUs), 2 direct 2x4 (SwiftShader)
override BK: u32 = 1;

// Register tile capacity. Loops run to the override bounds, so once overrides are substituted the
// driver unrolls them and keeps only the TM4*TN accumulators actually used in registers.
const MAX_TM4: u32 = 8;
const MAX_TN: u32 = 8;
alias Acc = array<vec4<f32>, MAX_TM4 * MAX_TN>; // [j][i], row stride TN
alias Px = array<f32, MAX_TN>;

var<workgroup> a_s: array<vec4<f32>, BK * WG_M * TM4>; // [BK][BM/4]
var<workgroup> b_s: array<f32, BK * WG_N * TN>; // [BK][BN]

// acc[j][i] += W[k, column j] * v[i] for one K index whose weight row starts at vec4 index wi.
fn mac(acc: ptr<function, Acc>, v: ptr<function, Px>, wcol: ptr<function, array<u32, MAX_TM4>>, wi: u32) {
  for (var j = 0u; j < TM4; j++) {
    let a = wload(wi + (*wcol)[j]);
    for (var i = 0u; i < TN; i++) { (*acc)[j * TN + i] += a * (*v)[i]; }
  }
}

// Per-tap source offsets of this invocation's TN pixels (tx + WG_N*i), invalid ones clamped to the frame start.
fn tap_offsets(t: Tap, px0: u32, off: ptr<function, array<u32, MAX_TN>>, ok: ptr<function, array<bool, MAX_TN>>) {
  for (var i = 0u; i < TN; i++) {
    let o = src_offset(px0 + WG_N * i, t.dy, t.dx);
    (*ok)[i] = o != NONE;
    (*off)[i] = t.base + select(0u, o, (*ok)[i]);
  }
}

// MODE 0: operands straight from storage into a TM4 x TN register tile (loops unrolled by the driver).
fn direct(acc: ptr<function, Acc>, wcol: ptr<function, array<u32, MAX_TM4>>, px0: u32, hw_in: u32, cout4: u32) {
  for (var tap = prm.tap0 * KS * KS; tap < KT * KS * KS; tap++) {
    let t = tap_info(tap);
    var off: array<u32, MAX_TN>;
    var ok: array<bool, MAX_TN>;
    tap_offsets(t, px0, &off, &ok);
    var wi = tap * prm.cin * cout4;
    var v: Px;
    var inv: Px;
    if (NORM == 1u) { for (var i = 0u; i < TN; i++) { inv[i] = load_src(t.from_cache, off[i] + prm.cin * hw_in); } }
    // the two loops differ only in the binding read: a per-load branch costs CPU adapters ~15%
    if (t.from_cache) {
      for (var c = 0u; c < prm.cin; c++) {
        for (var i = 0u; i < TN; i++) {
          var u = f32(cache[off[i]]);
          if (NORM == 1u) { u = norm_act(u, inv[i], c); }
          v[i] = select(0.0, u, ok[i]);
          off[i] += hw_in;
        }
        mac(acc, &v, wcol, wi);
        wi += cout4;
      }
    } else {
      for (var c = 0u; c < prm.cin; c++) {
        for (var i = 0u; i < TN; i++) {
          var u = f32(x[off[i]]);
          if (NORM == 1u) { u = norm_act(u, inv[i], c); }
          v[i] = select(0.0, u, ok[i]);
          off[i] += hw_in;
        }
        mac(acc, &v, wcol, wi);
        wi += cout4;
      }
    }
  }
}

fn outer(a: vec4<f32>, v: vec4<f32>) -> mat4x4<f32> { return mat4x4<f32>(a * v.x, a * v.y, a * v.z, a * v.w); }

// MODE 2: MODE 0 with the tile fixed at TM4 = 2, TN = 4 in named registers (two 4x4 matrices), for
// adapters that do not unroll loops and keep indexed arrays in memory (SwiftShader: ~2.8x faster).
fn direct_2x4(acc: ptr<function, Acc>, w0: u32, w1: u32, px0: u32, hw_in: u32, cout4: u32) {
  var m0 = mat4x4<f32>();
  var m1 = mat4x4<f32>();
  for (var tap = prm.tap0 * KS * KS; tap < KT * KS * KS; tap++) {
    let t = tap_info(tap);
    var off: array<u32, MAX_TN>;
    var okv: array<bool, MAX_TN>;
    tap_offsets(t, px0, &off, &okv);
    var o = vec4<u32>(off[0], off[1], off[2], off[3]);
    let ok = vec4<bool>(okv[0], okv[1], okv[2], okv[3]);
    var wi = tap * prm.cin * cout4;
    var inv = vec4<f32>();
    if (NORM == 1u) {
      let q = o + vec4<u32>(prm.cin * hw_in);
      inv = vec4<f32>(load_src(t.from_cache, q.x), load_src(t.from_cache, q.y), load_src(t.from_cache, q.z), load_src(t.from_cache, q.w));
    }
    if (t.from_cache) {
      for (var c = 0u; c < prm.cin; c++) {
        var u = vec4<f32>(f32(cache[o.x]), f32(cache[o.y]), f32(cache[o.z]), f32(cache[o.w]));
        if (NORM == 1u) { u = norm_act4(u, inv, c); }
        let v = select(vec4<f32>(), u, ok);
        m0 += outer(wload(wi + w0), v);
        m1 += outer(wload(wi + w1), v);
        o += vec4<u32>(hw_in);
        wi += cout4;
      }
    } else {
      for (var c = 0u; c < prm.cin; c++) {
        var u = vec4<f32>(f32(x[o.x]), f32(x[o.y]), f32(x[o.z]), f32(x[o.w]));
        if (NORM == 1u) { u = norm_act4(u, inv, c); }
        let v = select(vec4<f32>(), u, ok);
        m0 += outer(wload(wi + w0), v);
        m1 += outer(wload(wi + w1), v);
        o += vec4<u32>(hw_in);
        wi += cout4;
      }
    }
  }
  for (var i = 0u; i < 4u; i++) { (*acc)[i] = m0[i]; (*acc)[4u + i] = m1[i]; }
}

@compute @workgroup_size(WG_N, WG_M, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let hw = prm.h * prm.w;
  let hw_in = select(hw, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let cout4 = (prm.cout + 3u) / 4u;
  let p0 = wg.x * WG_N * TN;
  let m40 = wg.y * WG_M * TM4;
  var acc: Acc;
  var wcol: array<u32, MAX_TM4>; // this invocation's vec4 weight columns, clamped into range
  for (var j = 0u; j < TM4; j++) { wcol[j] = min(m40 + lid.y + WG_M * j, cout4 - 1u); }
  if (MODE == 0u) { direct(&acc, &wcol, p0 + lid.x, hw_in, cout4); }
  if (MODE == 1u) {
    // BK input channels of one tap staged in workgroup memory per step (A: weights, B: im2col). Kept
    // inline: as a function taking &acc it ran ~20% slower on an H200 (22 vs 27 TFLOP/s).
    let nt = WG_N * WG_M;
    let lin = lid.y * WG_N + lid.x;
    let bm4 = WG_M * TM4;
    let bn = WG_N * TN;
    for (var tap = prm.tap0 * KS * KS; tap < KT * KS * KS; tap++) {
      let t = tap_info(tap);
      let off = src_offset(p0 + lin % bn, t.dy, t.dx); // one loader pixel per invocation: nt % bn == 0
      let ok = off != NONE;
      var inv = 0.0;
      if (NORM == 1u && ok) { inv = load_src(t.from_cache, t.base + prm.cin * hw_in + off); }
      for (var c0 = 0u; c0 < prm.cin; c0 += BK) {
        for (var e = lin; e < BK * bm4; e += nt) {
          let c = c0 + e / bm4;
          let m4 = min(m40 + e % bm4, cout4 - 1u);
          a_s[e] = select(vec4<f32>(0.0), wload((tap * prm.cin + c) * cout4 + m4), c < prm.cin);
        }
        for (var e = lin; e < BK * bn; e += nt) {
          let c = c0 + e / bn;
          let good = ok && c < prm.cin;
          var u = load_src(t.from_cache, t.base + select(0u, c * hw_in + off, good));
          if (NORM == 1u) { u = norm_act(u, inv, min(c, prm.cin - 1u)); }
          b_s[e] = select(0.0, u, good);
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
  if (MODE == 2u) { direct_2x4(&acc, wcol[0], wcol[1], p0 + lid.x, hw_in, cout4); }

  for (var j = 0u; j < TM4; j++) {
    for (var q = 0u; q < 4u; q++) {
      let o = (m40 + lid.y + WG_M * j) * 4u + q;
      if (o >= prm.cout) { continue; }
      let bias = f32(b[o]);
      let sc = wscale(o, cout4); // per-output-channel weight scale (conv3d-wq int8), else 1
      for (var i = 0u; i < TN; i++) {
        let p = p0 + lid.x + WG_N * i;
        if (p >= hw) { continue; }
        var v = acc[j * TN + i][q] * sc + bias;
        if (HAS_RES == 1u) { v += f32(res[prm.res_off + o * hw + p]); }
        if (HAS_RES == 2u) { v += f32(y[prm.y_off + o * hw + p]); }
        y[prm.y_off + o * hw + p] = Elem(v);
      }
    }
  }
}
