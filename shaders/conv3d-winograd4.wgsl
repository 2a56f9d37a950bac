// conv3d-winograd4: shaders/conv3d-winograd.wgsl with Winograd F(4x4, 3x3) (Lavin & Gray 2016, points
// 0, ±1, ±2, ∞): 4x4 output tiles from 6x6 input patches (rows 4ty-1..4ty+4), 36 positions ξ,
// 36 multiplies per 16 outputs instead of 144 (4x fewer; F(2x2): 2.25x), larger rounding (the
// transforms scale by up to 8 and 1/24). Same bindings, params, epilogue and operand reads as F(2x2):
//   V = B^T d B, M[ξ] = Σ_dt Σ_c U[dt, ξ, o, c] V[dt, ξ, c, tile], Y = A^T M A
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
//   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
// w = U as [KT][36 ξ][cin][cout4] vec4<Elem> (packConvWeightWinograd with m = 4). Workgroup: 36*TX*TY
// invocations, invocation (ξ, ty, tx) owns TM4 vec4 channel groups x TT tiles of position ξ.
alias Elem = f32;

override TX: u32 = 2;
override TY: u32 = 2;
override TM4: u32 = 4;
override TT: u32 = 4;
override BK: u32 = 4;

const MAX_TM4: u32 = 8;
const MAX_TT: u32 = 8;
const NX: u32 = 36u;
alias Acc = array<vec4<f32>, MAX_TM4 * MAX_TT>;
alias Six = array<f32, 6>;

// U staging [36 ξ][BK][BM4] vec4, reused for M [36 ξ][BT][TY] vec4 in the output pass
var<workgroup> us: array<vec4<f32>, 36u * max(BK * TY * TM4, TX * TT * TY)>;
var<workgroup> vs: array<f32, 36u * BK * TX * TT>; // V staging [36 ξ][BK][BT]

fn wsrc(sy: i32, sx: i32) -> u32 {
  if (sy < 0 || sx < 0 || sy >= i32(prm.h) || sx >= i32(prm.w)) { return NONE; }
  if (UP == 1u) { return u32(sy >> 1u) * (prm.w >> 1u) + u32(sx >> 1u); }
  return u32(sy) * prm.w + u32(sx);
}

// B^T applied to one column / row of 6
fn bt6(d: Six) -> Six {
  return Six(
    4.0 * d[0] - 5.0 * d[2] + d[4],
    -4.0 * d[1] - 4.0 * d[2] + d[3] + d[4],
    4.0 * d[1] - 4.0 * d[2] - d[3] + d[4],
    -2.0 * d[1] - d[2] + 2.0 * d[3] + d[4],
    2.0 * d[1] - d[2] - 2.0 * d[3] + d[4],
    4.0 * d[1] - 5.0 * d[3] + d[5],
  );
}

// A^T applied to 6 vec4 (4 channels each) -> 4
fn at6(m0: vec4<f32>, m1: vec4<f32>, m2: vec4<f32>, m3: vec4<f32>, m4: vec4<f32>, m5: vec4<f32>) -> array<vec4<f32>, 4> {
  return array<vec4<f32>, 4>(
    m0 + m1 + m2 + m3 + m4,
    m1 - m2 + 2.0 * (m3 - m4),
    m1 + m2 + 4.0 * (m3 + m4),
    m1 - m2 + 8.0 * (m3 - m4) + m5,
  );
}

@compute @workgroup_size(36 * TX * TY, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lin: u32) {
  let hw = prm.h * prm.w;
  let hw_in = select(hw, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let cout4 = (prm.cout + 3u) / 4u;
  let tw = (prm.w + 3u) / 4u;
  let ntiles = ((prm.h + 3u) / 4u) * tw;
  let nt = NX * TX * TY;
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
      for (var e = lin; e < NX * BK * bm4; e += nt) {
        let q = e / (BK * bm4);
        let c = c0 + (e / bm4) % BK;
        let m4 = min(m40 + e % bm4, cout4 - 1u);
        us[e] = select(vec4<f32>(0.0), wload(((dt * NX + q) * prm.cin + min(c, prm.cin - 1u)) * cout4 + m4), c < prm.cin);
      }
      // V: one (channel, tile) per invocation: 36 loads, B^T d B, 36 stores
      for (var e = lin; e < BK * bt; e += nt) {
        let k = e / bt;
        let c = c0 + k;
        let tile = t0 + e % bt;
        var d: array<Six, 6>; // d[row][column]
        if (c < prm.cin && tile < ntiles) {
          let sy0 = i32(tile / tw) * 4 - 1;
          let sx0 = i32(tile % tw) * 4 - 1;
          var g = 1.0;
          if (NORM == 1u) { g = f32(gamma[c]); }
          for (var a = 0u; a < 6u; a++) {
            for (var bb = 0u; bb < 6u; bb++) {
              let o = wsrc(sy0 + i32(a), sx0 + i32(bb));
              let ok = o != NONE;
              let oo = t.base + select(0u, o, ok);
              var u = load_src(t.from_cache, oo + c * hw_in);
              if (NORM == 1u) {
                u = u * load_src(t.from_cache, oo + prm.cin * hw_in) * g;
                if (SILU == 1u) { u = u / (1.0 + exp(-u)); }
              }
              d[a][bb] = select(0.0, u, ok);
            }
          }
        }
        // columns: (B^T d)[.][b] = bt6(d[.][b]); then rows: V[a][.] = bt6((B^T d)[a][.])
        var tcol: array<Six, 6>; // tcol[b] = column b of B^T d
        for (var bb = 0u; bb < 6u; bb++) { tcol[bb] = bt6(Six(d[0][bb], d[1][bb], d[2][bb], d[3][bb], d[4][bb], d[5][bb])); }
        let base = k * bt + e % bt;
        let s = BK * bt;
        for (var a = 0u; a < 6u; a++) {
          let v = bt6(Six(tcol[0][a], tcol[1][a], tcol[2][a], tcol[3][a], tcol[4][a], tcol[5][a]));
          for (var q = 0u; q < 6u; q++) { vs[(a * 6u + q) * s + base] = v[q]; }
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

  // output: per vec4 channel group j, M [36 ξ][BT][TY] through workgroup memory, then A^T M A per (tile, ty)
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
      let otile = e % bt;
      let oty = e / bt;
      let tile = t0 + otile;
      let o4 = m40 + oty + TY * j;
      if (tile < ntiles && o4 < cout4) {
        // S = A^T M: 4 rows x 6 columns (vec4 of 4 channels)
        var srow: array<array<vec4<f32>, 6>, 4>;
        for (var cc = 0u; cc < 6u; cc++) {
          let m = at6(
            us[((0u * 6u + cc) * bt + otile) * TY + oty], us[((1u * 6u + cc) * bt + otile) * TY + oty],
            us[((2u * 6u + cc) * bt + otile) * TY + oty], us[((3u * 6u + cc) * bt + otile) * TY + oty],
            us[((4u * 6u + cc) * bt + otile) * TY + oty], us[((5u * 6u + cc) * bt + otile) * TY + oty],
          );
          for (var r = 0u; r < 4u; r++) { srow[r][cc] = m[r]; }
        }
        let py0 = (tile / tw) * 4u;
        let px0 = (tile % tw) * 4u;
        for (var r = 0u; r < 4u; r++) {
          let yr = at6(srow[r][0], srow[r][1], srow[r][2], srow[r][3], srow[r][4], srow[r][5]);
          let py = py0 + r;
          if (py >= prm.h) { continue; }
          for (var q = 0u; q < 4u; q++) {
            let o = o4 * 4u + q;
            if (o >= prm.cout) { continue; }
            let bias = f32(b[o]);
            let sc = wscale(o, cout4);
            for (var cx = 0u; cx < 4u; cx++) {
              let px = px0 + cx;
              if (px >= prm.w) { continue; }
              let p = py * prm.w + px;
              var val = yr[cx][q] * sc + bias;
              if (HAS_RES == 1u) { val += f32(res[prm.res_off + o * hw + p]); }
              if (HAS_RES == 2u) { val += f32(y[prm.y_off + o * hw + p]); }
              y[prm.y_off + o * hw + p] = Elem(val);
            }
          }
        }
      }
    }
    workgroupBarrier();
  }
}
