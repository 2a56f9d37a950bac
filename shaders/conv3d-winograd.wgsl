// conv3d-winograd: one output frame of a 3x3 conv (the 3x3x3 causal conv, KT=3, or the upsample Conv2d
// 3x3, KT=1 UP=1) by Winograd F(2x2, 3x3) (Lavin & Gray 2016): per temporal tap dt and 2x2 output tile,
//   d  = the 4x4 input patch at output rows 2ty-1..2ty+2, columns 2tx-1..2tx+2 (zero outside the frame)
//   V  = B^T d B                       (16 values per input channel and tile, computed while staging)
//   M  = Σ_dt Σ_c U[dt, ξ, o, c] · V[dt, ξ, c, tile]   for each of the 16 positions ξ (a batched GEMM)
//   Y  = A^T M A (2x2) + b[o] (+ res)  B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], A^T = [1 1 1 0; 0 1 -1 -1]
// U = G g G^T (G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]) is computed once at upload (packConvWeightWinograd):
// 16 multiplies per 2x2 outputs instead of 36 (2.25x fewer), f32 accumulation as conv3d.
// The operands are read as conv3d reads them (shaders/conv3d-common.wgsl: frames t-2, t-1 from the cache
// ring, t from x, taps < tap0 skipped, nearest-2x read in place with UP=1, NORM=1 normalises while loading).
// Layouts: w = U as [KT][16 ξ][cin][cout4] vec4<Elem> (cout padded with zeros to 4); the rest as conv3d.
// Dispatch: one workgroup per BT = TX*TT tiles x BM = TY*TM4*4 output channels, 16*TX*TY invocations:
//   invocation (ξ = lin / (TX*TY), ty, tx) owns position ξ of TM4 vec4 channel groups (ty + TY*j) x TT
//   tiles (tx + TX*i). Per step BK input channels of one tap: U and V staged in workgroup memory (V
//   transformed by one invocation per (channel, tile)); at the end M goes through workgroup memory, one
//   vec4 channel group j at a time, and invocation (ty, tile) applies A^T M A and the epilogue.
alias Elem = f32;

// Params, bindings 0-6 and the overrides KT, KS, UP, HAS_RES, NORM, SILU: shaders/conv3d-common.wgsl
override TX: u32 = 4; // tile columns of invocations per ξ
override TY: u32 = 4; // channel rows of invocations per ξ
override TM4: u32 = 2; // vec4 channel groups per invocation (<= MAX_TM4)
override TT: u32 = 4; // tiles per invocation (<= MAX_TT)
override BK: u32 = 8; // input channels per staging step

const MAX_TM4: u32 = 8;
const MAX_TT: u32 = 8;
alias Acc = array<vec4<f32>, MAX_TM4 * MAX_TT>; // [j][i], row stride TT

// U staging [16 ξ][BK][BM4] vec4, reused for M [16 ξ][BT][TY] vec4 in the output pass
var<workgroup> us: array<vec4<f32>, 16u * max(BK * TY * TM4, TX * TT * TY)>;
var<workgroup> vs: array<f32, 16u * BK * TX * TT>; // V staging [16 ξ][BK][BT]

// Offset of the source of output-resolution pixel (sy, sx) in one input plane, or NONE outside the frame.
fn wsrc(sy: i32, sx: i32) -> u32 {
  if (sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) { return NONE; }
  if (UP == 1u) { return u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u); }
  return u32(sy) * prm.w + u32(sx);
}

// B^T d B of a 4x4 patch d (row-major), as the 1D transform on rows then on columns.
fn bt4(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(a.x - a.z, a.y + a.z, a.z - a.y, a.y - a.w); }

@compute @workgroup_size(16 * TX * TY, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lin: u32) {
  let hw = prm.h * prm.w;
  let hw_in = select(hw, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let cout4 = (prm.cout + 3u) / 4u;
  let tw = (prm.w + 1u) / 2u;
  let ntiles = ((prm.h + 1u) / 2u) * tw;
  let nt = 16u * TX * TY;
  let bt = TX * TT;
  let bm4 = TY * TM4;
  let t0 = wg.x * bt;
  let m40 = wg.y * bm4;
  let xi = lin / (TX * TY);
  let tx = lin % TX;
  let ty = (lin / TX) % TY;
  var acc: Acc;
  for (var dt = prm.tap0; dt < KT; dt++) {
    let t = tap_info(dt * 9u);
    for (var c0 = 0u; c0 < prm.cin; c0 += BK) {
      // U: 16 x BK x BM4 vec4 (channels past cin and cout4 read as zero / clamped)
      for (var e = lin; e < 16u * BK * bm4; e += nt) {
        let q = e / (BK * bm4);
        let c = c0 + (e / bm4) % BK;
        let m4 = min(m40 + e % bm4, cout4 - 1u);
        us[e] = select(vec4<f32>(0.0), wload(((dt * 16u + q) * prm.cin + min(c, prm.cin - 1u)) * cout4 + m4), c < prm.cin);
      }
      // V: one (channel, tile) per invocation: 16 loads, B^T d B, 16 stores
      for (var e = lin; e < BK * bt; e += nt) {
        let k = e / bt;
        let c = c0 + k;
        let tile = t0 + e % bt;
        var d: array<vec4<f32>, 4>;
        if (c < prm.cin && tile < ntiles) {
          let sy0 = i32(tile / tw) * 2 - 1;
          let sx0 = i32(tile % tw) * 2 - 1;
          var g = 1.0;
          if (NORM == 1u) { g = f32(gamma[c]); }
          for (var a = 0u; a < 4u; a++) {
            var row = vec4<f32>(0.0);
            for (var bb = 0u; bb < 4u; bb++) {
              let o = wsrc(sy0 + i32(a), sx0 + i32(bb));
              let ok = o != NONE;
              let oo = t.base + select(0u, o, ok);
              var u = load_src(t.from_cache, oo + c * hw_in);
              if (NORM == 1u) {
                u = u * load_src(t.from_cache, oo + prm.cin * hw_in) * g;
                if (SILU == 1u) { u = u / (1.0 + exp(-u)); }
              }
              row[bb] = select(0.0, u, ok);
            }
            d[a] = row;
          }
        }
        // rows: B^T d; then each row r -> r B (the same 1D transform)
        let r0 = bt4(d[0] - d[2]);
        let r1 = bt4(d[1] + d[2]);
        let r2 = bt4(d[2] - d[1]);
        let r3 = bt4(d[1] - d[3]);
        let base = k * bt + e % bt;
        let s = BK * bt;
        for (var q = 0u; q < 4u; q++) {
          vs[q * s + base] = r0[q];
          vs[(4u + q) * s + base] = r1[q];
          vs[(8u + q) * s + base] = r2[q];
          vs[(12u + q) * s + base] = r3[q];
        }
      }
      workgroupBarrier();
      let ub = xi * BK * bm4;
      let vb = xi * BK * bt;
      for (var k = 0u; k < BK; k++) {
        var v: array<f32, MAX_TT>;
        for (var i = 0u; i < TT; i++) { v[i] = vs[vb + k * bt + tx + TX * i]; }
        for (var j = 0u; j < TM4; j++) {
          let a = us[ub + k * bm4 + ty + TY * j];
          for (var i = 0u; i < TT; i++) { acc[j * TT + i] += a * v[i]; }
        }
      }
      workgroupBarrier();
    }
  }

  // output: per vec4 channel group j, M [16 ξ][BT][TY] through workgroup memory, then A^T M A per (ty, tile)
  for (var j = 0u; j < TM4; j++) {
    // acc[j * TT + i] with j from this barrier loop (not unrolled) would be a dynamic index, which puts
    // the whole accumulator array in local memory (H200, 1e4bb91: 41 ms against conv3d's 7 ms); the
    // barrier-free jj loop unrolls, so every acc index is a constant
    var mj: array<vec4<f32>, MAX_TT>;
    for (var jj = 0u; jj < TM4; jj++) {
      for (var i = 0u; i < TT; i++) { if (jj == j) { mj[i] = acc[jj * TT + i]; } }
    }
    for (var i = 0u; i < TT; i++) { us[(xi * bt + tx + TX * i) * TY + ty] = mj[i]; }
    workgroupBarrier();
    for (var e = lin; e < bt * TY; e += nt) {
      let otile = e % bt; // neighbouring invocations: neighbouring tiles (coalesced stores)
      let oty = e / bt;
      let tile = t0 + otile;
      let o4 = m40 + oty + TY * j;
      if (tile < ntiles && o4 < cout4) {
        var m: array<vec4<f32>, 16>;
        for (var q = 0u; q < 16u; q++) { m[q] = us[(q * bt + otile) * TY + oty]; }
        // A^T M: rows s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (4 columns each), then the same on columns
        var s0: array<vec4<f32>, 4>;
        var s1: array<vec4<f32>, 4>;
        for (var cc = 0u; cc < 4u; cc++) {
          s0[cc] = m[cc] + m[4u + cc] + m[8u + cc];
          s1[cc] = m[4u + cc] - m[8u + cc] - m[12u + cc];
        }
        var yv: array<vec4<f32>, 4>; // (ry, rx) = (0,0) (0,1) (1,0) (1,1), 4 channels each
        yv[0] = s0[0] + s0[1] + s0[2];
        yv[1] = s0[1] - s0[2] - s0[3];
        yv[2] = s1[0] + s1[1] + s1[2];
        yv[3] = s1[1] - s1[2] - s1[3];
        let py0 = (tile / tw) * 2u;
        let px0 = (tile % tw) * 2u;
        for (var q = 0u; q < 4u; q++) {
          let o = o4 * 4u + q;
          if (o >= prm.cout) { continue; }
          let bias = f32(b[o]);
          let sc = wscale(o, cout4);
          for (var r = 0u; r < 4u; r++) {
            let py = py0 + r / 2u;
            let px = px0 + r % 2u;
            if (py >= prm.h || px >= prm.w) { continue; }
            let p = py * prm.w + px;
            var val = yv[r][q] * sc + bias;
            if (HAS_RES == 1u) { val += f32(res[prm.res_off + o * hw + p]); }
            if (HAS_RES == 2u) { val += f32(y[prm.y_off + o * hw + p]); }
            y[prm.y_off + o * hw + p] = Elem(val);
          }
        }
      }
    }
    workgroupBarrier();
  }
}
