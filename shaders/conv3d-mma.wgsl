// conv3d-mma: shaders/conv3d.wgsl on tensor cores (WGSL subgroup matrices, Chromium experimental
// feature `chromium-experimental-subgroup-matrix`, 16x16x16 f16 products accumulated in f32). Same
// bindings, params, overrides (KT, KS, UP, HAS_RES, NORM, SILU), layouts and results as conv3d.wgsl; f16
// storage only (Elem = f16: the executor picks this kernel for f16 plans on adapters with the feature).
// Implicit GEMM: M = cout, N = h*w pixels, K = cin per tap, taps outermost. One workgroup = one subgroup
// (matrix load/store offsets must be workgroup-uniform: Dawn on the H200 rejects offsets derived from
// local_invocation_index / SG with "'subgroupMatrixStore' requires argument 1 to be uniform", and
// diagnostic(off, subgroup_uniformity) does not lift it, so subgroups cannot split a block) computing
// a BM x BN = 64 x 64 output block as 4 x 4 result matrices. Per K step of BK = 32 channels of one tap, the subgroup stages the weights
// [BK][BM] and the gathered operands [BK][BN] (padding zero, nearest-2x read in place, cache frames,
// optional norm + SiLU applied as in conv3d.wgsl) in workgroup memory as f16, then multiplies 2 x 16
// matrix pairs. The epilogue goes through a 16x16 f32 tile in workgroup memory (bias, residual, bounds).
// Measured on the H200 (2026-11-30): correct (NMSE 1e-9 against conv3d) but 10-11 TFLOP/s, half the
// portable f32 conv: 32 invocations stage 4096 operands per 32 matrix products, so the gathers dominate.
enable chromium_experimental_subgroup_matrix;
alias Elem = f32;

// Params, bindings 0-6 and the overrides KT, KS, UP, HAS_RES, NORM, SILU: shaders/conv3d-common.wgsl
override SG: u32 = 32; // workgroup size = the subgroup size (one subgroup per workgroup)

const TM: u32 = 4; // result matrices along cout
const TN: u32 = 4; // result matrices along pixels
const BM: u32 = 64; // 16 * TM
const BN: u32 = 64; // 16 * TN
const BK: u32 = 32;
const MAX_J: u32 = 8; // BN / SG for subgroups down to 8 invocations

var<workgroup> a_s: array<Elem, 2048>; // BK * BM, [k][m]: the left matrix (M x K) column-major
var<workgroup> b_s: array<Elem, 2048>; // BK * BN, [k][n]: the right matrix (K x N) row-major
var<workgroup> c_s: array<f32, 256>; // one 16 x 16 result, row-major

@compute @workgroup_size(SG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let hw = prm.h * prm.w;
  let hw_in = select(hw, (prm.h >> 1u) * (prm.w >> 1u), UP == 1u);
  let cout4 = (prm.cout + 3u) / 4u;
  let p0 = wg.x * BN;
  let m0 = wg.y * BM;
  var acc: array<subgroup_matrix_result<f32, 16, 16>, 16>; // [i * TN + j], zero-initialised
  for (var tap = prm.tap0 * KS * KS; tap < KT * KS * KS; tap++) {
    let t = tap_info(tap);
    // this invocation gathers pixels n = lid + SG * j of the block: their source offsets (and inv) per tap
    var off: array<u32, MAX_J>;
    var inv: array<f32, MAX_J>;
    for (var j = 0u; j < BN / SG; j++) {
      off[j] = src_offset(p0 + lid + SG * j, t.dy, t.dx);
      if (NORM == 1u && off[j] != NONE) { inv[j] = load_src(t.from_cache, t.base + prm.cin * hw_in + off[j]); }
    }
    for (var c0 = 0u; c0 < prm.cin; c0 += BK) {
      // weights: BK x BM as vec4 along cout (zero past cin / cout)
      for (var e = lid; e < BK * BM / 4u; e += SG) {
        let k = e / (BM / 4u);
        let m4 = m0 / 4u + e % (BM / 4u);
        let c = c0 + k;
        let v = select(vec4<Elem>(), w[(tap * prm.cin + min(c, prm.cin - 1u)) * cout4 + min(m4, cout4 - 1u)], c < prm.cin && m4 < cout4);
        let a = k * BM + (e % (BM / 4u)) * 4u;
        a_s[a] = v.x;
        a_s[a + 1u] = v.y;
        a_s[a + 2u] = v.z;
        a_s[a + 3u] = v.w;
      }
      // operands: BK x BN (zero for padding, past cin and past the frame)
      for (var k = 0u; k < BK; k++) {
        let c = c0 + k;
        for (var j = 0u; j < BN / SG; j++) {
          let good = off[j] != NONE && c < prm.cin;
          var u = load_src(t.from_cache, t.base + select(0u, c * hw_in + off[j], good));
          if (NORM == 1u) { u = norm_act(u, inv[j], min(c, prm.cin - 1u)); }
          b_s[k * BN + lid + SG * j] = Elem(select(0.0, u, good));
        }
      }
      workgroupBarrier();
      for (var ks = 0u; ks < BK / 16u; ks++) {
        for (var j = 0u; j < TN; j++) {
          let rt = subgroupMatrixLoad<subgroup_matrix_right<Elem, 16, 16>, row_major>(&b_s, ks * 16u * BN + j * 16u, BN);
          for (var i = 0u; i < TM; i++) {
            let lf = subgroupMatrixLoad<subgroup_matrix_left<Elem, 16, 16>, col_major>(&a_s, ks * 16u * BM + i * 16u, BM);
            acc[i * TN + j] = subgroupMatrixMultiplyAccumulate(lf, rt, acc[i * TN + j]);
          }
        }
      }
      workgroupBarrier();
    }
  }
  // epilogue: one result matrix at a time through c_s
  for (var i = 0u; i < TM; i++) {
    for (var j = 0u; j < TN; j++) {
      subgroupMatrixStore<row_major>(&c_s, 0u, acc[i * TN + j], 16u);
      workgroupBarrier();
      for (var e = lid; e < 256u; e += SG) {
        let o = m0 + i * 16u + e / 16u;
        let p = p0 + j * 16u + e % 16u;
        if (o < prm.cout && p < hw) {
          var v = c_s[e] + f32(b[o]);
          if (HAS_RES == 1u) { v += f32(res[prm.res_off + o * hw + p]); }
          if (HAS_RES == 2u) { v += f32(y[prm.y_off + o * hw + p]); }
          y[prm.y_off + o * hw + p] = Elem(v);
        }
      }
      workgroupBarrier();
    }
  }
}
