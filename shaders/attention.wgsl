// attention: vae.py AttentionBlock's single-head attention over the N = h·w tokens of one frame, with an
// online softmax (the N x N score matrix is never stored):
//   o[c, n] = Σ_k softmax_k(scale · Σ_d q[d, n] k[d, k]) · v[c, k]
// Layouts: qkv: [3C, N] Elem (q = rows 0..C-1, k = C..2C-1, v = 2C..3C-1), o: [C, N] Elem; C <= 64 NJ.
// Bindings: 0 qkv (read), 1 o (read_write). Params: group 1 uniform (scale = 1/sqrt(C)).
// Dispatch: one workgroup of 256 invocations per BQ = 16 queries. Per block of BKV = 64 keys:
//   1. scores: invocation (qi, kg) = (lid / 16, lid % 16) computes the scores of query qi with keys
//      4 kg .. 4 kg + 3 (one vec4), q and k staged through workgroup memory CK = 16 channels at a time
//      (per channel: one q, one vec4 of k, 4 multiply-adds);
//   2. every invocation of query row qi reads the row's 64 scores to find the block max (all 16 agree),
//      keeps the running max m and sum l of its query in registers, writes its 4 probabilities
//      exp(s - m) into p_s [key][query], and the rescale alpha = exp(m_old - m_new) of the accumulators;
//   3. invocation (qg, cg) = (lid / 64, lid % 64) owns queries 4 qg .. 4 qg + 3 (a vec4) and channels
//      cg + 64 j (j < NJ) and adds P · V: per key one vec4 of probabilities and NJ values of V (read
//      straight from storage), 4 NJ multiply-adds.
// (Before, s6: one score per invocation, 16 keys per block, the softmax in 16 invocations and one
// channel per invocation in P · V: 5.0 TFLOP/s on the H200 at C = 384, N = 6240.)
alias Elem = f32;

struct Params { c: u32, n: u32, scale: f32 }

@group(0) @binding(0) var<storage, read> qkv: array<Elem>;
@group(0) @binding(1) var<storage, read_write> o: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override NJ: u32 = 16; // channel slots per invocation in P · V: C <= 64 NJ (src/kernels/attention.ts sets ceil(C / 64))
const BQ: u32 = 16;
const BKV: u32 = 64;
const CK: u32 = 16;
const MAX_NJ: u32 = 16;
const MASKED: f32 = -3.0e38; // score of a key past N; exp(MASKED - m) == 0

var<workgroup> q_s: array<f32, CK * BQ>; // [channel][query]
var<workgroup> k_s: array<vec4<f32>, CK * BKV / 4u>; // [channel][key quad]
var<workgroup> s_s: array<f32, BQ * BKV>; // [query][key] scores
var<workgroup> p_s: array<vec4<f32>, BKV * BQ / 4u>; // [key][query quad] probabilities
var<workgroup> alpha_s: array<vec4<f32>, BQ / 4u>; // rescale of the accumulators for this key block
var<workgroup> l_s: array<f32, BQ>; // the final sums

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let ch = prm.c;
  let n_tok = prm.n;
  let q0 = wg.x * BQ;
  let qi = lid / 16u;
  let kg = lid % 16u;
  let qg = lid / 64u;
  let cg = lid % 64u;
  var acc: array<vec4<f32>, MAX_NJ>; // [channel slot j] x 4 queries
  var m = MASKED; // running max of query qi (the same in all 16 invocations of its row)
  var l = 0.0; // running sum of query qi

  for (var k0 = 0u; k0 < n_tok; k0 += BKV) {
    var s = vec4<f32>(0.0);
    for (var c0 = 0u; c0 < ch; c0 += CK) {
      // q: lid = row * 16 + col stages q[c0 + row, q0 + col]; k: lid stages keys 4 (lid % 16) .. + 3 of channel c0 + lid / 16
      {
        let row = c0 + lid / BQ;
        let col = lid % BQ;
        q_s[lid] = select(0.0, f32(qkv[row * n_tok + q0 + col]), row < ch && q0 + col < n_tok);
        let kr = c0 + lid / 16u;
        let kc = k0 + 4u * (lid % 16u);
        let kb = (ch + kr) * n_tok + kc;
        var kv = vec4<f32>(0.0);
        if (kr < ch) {
          if (kc < n_tok) { kv.x = f32(qkv[kb]); }
          if (kc + 1u < n_tok) { kv.y = f32(qkv[kb + 1u]); }
          if (kc + 2u < n_tok) { kv.z = f32(qkv[kb + 2u]); }
          if (kc + 3u < n_tok) { kv.w = f32(qkv[kb + 3u]); }
        }
        k_s[lid] = kv;
      }
      workgroupBarrier();
      for (var d = 0u; d < CK; d++) { s = fma(vec4<f32>(q_s[d * BQ + qi]), k_s[d * (BKV / 4u) + kg], s); }
      workgroupBarrier();
    }
    let kk = k0 + 4u * kg;
    s = select(vec4<f32>(MASKED), s * prm.scale, vec4<u32>(kk, kk + 1u, kk + 2u, kk + 3u) < vec4<u32>(n_tok));
    for (var i = 0u; i < 4u; i++) { s_s[qi * BKV + 4u * kg + i] = s[i]; }
    workgroupBarrier();
    // the block max and sum of row qi, computed alike by its 16 invocations
    var m_new = m;
    for (var j = 0u; j < BKV; j++) { m_new = max(m_new, s_s[qi * BKV + j]); }
    let alpha = exp(m - m_new);
    var sum = 0.0;
    for (var j = 0u; j < BKV; j++) { sum += exp(s_s[qi * BKV + j] - m_new); }
    l = l * alpha + sum;
    m = m_new;
    let e = exp(s - vec4<f32>(m_new));
    // p_s[key][query]: key 4 kg + i, query qi (component qi % 4 of quad qi / 4)
    for (var i = 0u; i < 4u; i++) { p_s[(4u * kg + i) * (BQ / 4u) + qi / 4u][qi % 4u] = e[i]; }
    if (kg == 0u) { alpha_s[qi / 4u][qi % 4u] = alpha; }
    workgroupBarrier();
    let a = alpha_s[qg];
    let vb = 2u * ch * n_tok + k0;
    let nk = min(BKV, n_tok - k0);
    // (no early exit from the j loop: with NJ fixed at pipeline creation it unrolls and acc stays in registers)
    for (var j = 0u; j < NJ; j++) {
      let c = cg + 64u * j;
      if (c < ch) {
        var t = acc[j] * a;
        let vr = vb + c * n_tok;
        for (var k = 0u; k < nk; k++) { t = fma(p_s[k * (BQ / 4u) + qg], vec4<f32>(f32(qkv[vr + k])), t); }
        acc[j] = t;
      }
    }
    workgroupBarrier();
  }

  if (kg == 0u) { l_s[qi] = l; }
  workgroupBarrier();
  let inv = vec4<f32>(1.0) / vec4<f32>(l_s[4u * qg], l_s[4u * qg + 1u], l_s[4u * qg + 2u], l_s[4u * qg + 3u]);
  for (var j = 0u; j < NJ; j++) {
    let c = cg + 64u * j;
    if (c < ch) {
      let r = acc[j] * inv;
      for (var i = 0u; i < 4u; i++) {
        let q = q0 + 4u * qg + i;
        if (q < n_tok) { o[c * n_tok + q] = Elem(r[i]); }
      }
    }
  }
}
