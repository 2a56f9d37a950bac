// MEASURED AND LOST (H200, 2026-12-01, kernel alone at C 384, N 6240: f32 16.2 ms / f16 15.8 ms against 12.0 /
// 9.98 ms for the shipped shaders/attention.wgsl; bench/results/h200/final-2026-12-01-7a2d1d8/attn-ab/). Kept as a probe.
// Was: CANDIDATE (issue 11): a drop-in replacement of shaders/attention.wgsl (same
// bindings, Params, dispatch of one workgroup per 16 queries, NJ = 4), written after the H200 call of
// 2026-12-01 14:20 UTC showed that a 4-query x 6-channel P·V form (commit cf2c0cd) was V-load bound
// (19.2 ms per frame at C 384, N 6240, f32, against 12.0 for the shipped kernel). It keeps
// the shipped kernel's P·V (one channel per invocation, all 16 queries: 16 multiply-adds per V load) and changes
// the scores (64 keys per block, a vec4 of keys per staged channel: 4x fewer barriers per key) and the
// softmax (16 partial max / sums per query instead of a 16-invocation serial loop). It passed
// test/kernels/attention.test.ts (all 16 cases, f32 and f16) at commit 7206dcb, where it was the shader.
// To measure: copy it over shaders/attention.wgsl in a build into .h200/dist, the shipped one into
// .h200/dist-shipped, and run `bash bench/h200/run.sh attn-ab` (~35 s on the H200).
// attention: vae.py AttentionBlock's single-head attention over the N = h·w tokens of one frame, with an
// online softmax (the N x N score matrix is never stored):
//   o[c, n] = Σ_k softmax_k(scale · Σ_d q[d, n] k[d, k]) · v[c, k]
// Layouts: qkv: [3C, N] Elem (q = rows 0..C-1, k = C..2C-1, v = 2C..3C-1), o: [C, N] Elem; C <= 256 NJ.
// Bindings: 0 qkv (read), 1 o (read_write). Params: group 1 uniform (scale = 1/sqrt(C)).
// Dispatch: one workgroup of 256 invocations per BQ = 16 queries. Per block of BKV = 64 keys:
//   1. scores: invocation (qi, kg) = (lid / 16, lid % 16) computes the scores of query qi with keys
//      4 kg .. 4 kg + 3, q and k staged through workgroup memory CK = 16 channels at a time (per channel
//      one q and one vec4 of k: 4 multiply-adds);
//   2. the block max and sum of each query from the 16 invocations' partial ones (workgroup memory),
//      probabilities exp(s - m) into p_s [key][query quad], the running max m and sum l (flash-attention
//      rescaling of the accumulators by alpha = exp(m_old - m_new));
//   3. invocation lid owns output channels lid + 256·jj (jj < NJ) for all 16 queries (4 vec4s each)
//      and adds P · V, reading V straight from storage: per key one value per channel, 16 multiply-adds.
// H200, 2026-12-01 (C = 384, N = 6240): the shipped form (one score per invocation, 16 keys per block,
// the softmax in 16 invocations) took 12.0 ms per frame in f32; a form with 4 queries x 6 channels per
// invocation in P · V (4 multiply-adds per V load) took 19.2: the V loads, one row per invocation, are
// what P · V is bound by, so each V value feeds all 16 queries here.
alias Elem = f32;

struct Params { c: u32, n: u32, scale: f32 }

@group(0) @binding(0) var<storage, read> qkv: array<Elem>;
@group(0) @binding(1) var<storage, read_write> o: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

const BQ: u32 = 16;
const BKV: u32 = 64;
const CK: u32 = 16;
const NJ: u32 = 4; // channel slots per invocation: C <= 256 * NJ
const MASKED: f32 = -3.0e38; // score of a key past N; exp(MASKED - m) == 0

var<workgroup> q_s: array<f32, CK * BQ>; // [channel][query]
var<workgroup> k_s: array<vec4<f32>, CK * BKV / 4u>; // [channel][key quad]
var<workgroup> p_s: array<vec4<f32>, BKV * BQ / 4u>; // [key][query quad] probabilities
var<workgroup> max_s: array<f32, BQ * 16u>; // [query][invocation kg] partial max of the block
var<workgroup> sum_s: array<f32, BQ * 16u>; // [query][invocation kg] partial sum of the block
var<workgroup> m_s: array<f32, BQ>; // running max per query
var<workgroup> l_s: array<f32, BQ>; // running sum per query
var<workgroup> alpha_s: array<vec4<f32>, BQ / 4u>; // rescale of the accumulators for this key block

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let ch = prm.c;
  let n_tok = prm.n;
  let q0 = wg.x * BQ;
  let qi = lid / 16u;
  let kg = lid % 16u;
  var acc: array<vec4<f32>, NJ * 4u>; // [jj][query quad]
  if (lid < BQ) { m_s[lid] = MASKED; l_s[lid] = 0.0; }

  for (var k0 = 0u; k0 < n_tok; k0 += BKV) {
    var s = vec4<f32>(0.0);
    for (var c0 = 0u; c0 < ch; c0 += CK) {
      // q: lid = row * 16 + col stages q[c0 + row, q0 + col]; k: lid stages keys 4 (lid % 16) .. + 3 of channel c0 + lid / 16
      let row = c0 + lid / 16u;
      let col = lid % 16u;
      q_s[lid] = select(0.0, f32(qkv[row * n_tok + q0 + col]), row < ch && q0 + col < n_tok);
      let kc = k0 + 4u * col;
      let kb = (ch + row) * n_tok + kc;
      var kv = vec4<f32>(0.0);
      if (row < ch) {
        if (kc < n_tok) { kv.x = f32(qkv[kb]); }
        if (kc + 1u < n_tok) { kv.y = f32(qkv[kb + 1u]); }
        if (kc + 2u < n_tok) { kv.z = f32(qkv[kb + 2u]); }
        if (kc + 3u < n_tok) { kv.w = f32(qkv[kb + 3u]); }
      }
      k_s[lid] = kv;
      workgroupBarrier();
      for (var d = 0u; d < CK; d++) { s = fma(vec4<f32>(q_s[d * BQ + qi]), k_s[d * (BKV / 4u) + kg], s); }
      workgroupBarrier();
    }
    let kk = k0 + 4u * kg;
    s = select(vec4<f32>(MASKED), s * prm.scale, vec4<u32>(kk, kk + 1u, kk + 2u, kk + 3u) < vec4<u32>(n_tok));
    max_s[lid] = max(max(s.x, s.y), max(s.z, s.w));
    workgroupBarrier();
    var m_new = m_s[qi];
    for (var j = 0u; j < 16u; j++) { m_new = max(m_new, max_s[qi * 16u + j]); }
    let e = exp(s - vec4<f32>(m_new));
    for (var i = 0u; i < 4u; i++) { p_s[(4u * kg + i) * (BQ / 4u) + qi / 4u][qi % 4u] = e[i]; }
    sum_s[lid] = (e.x + e.y) + (e.z + e.w);
    workgroupBarrier();
    if (kg == 0u) {
      var sum = 0.0;
      for (var j = 0u; j < 16u; j++) { sum += sum_s[qi * 16u + j]; }
      let alpha = exp(m_s[qi] - m_new);
      alpha_s[qi / 4u][qi % 4u] = alpha;
      l_s[qi] = l_s[qi] * alpha + sum;
      m_s[qi] = m_new;
    }
    workgroupBarrier();
    let nk = min(BKV, n_tok - k0);
    for (var jj = 0u; jj < NJ; jj++) {
      let c = lid + 256u * jj;
      if (c < ch) {
        for (var u = 0u; u < 4u; u++) { acc[jj * 4u + u] *= alpha_s[u]; }
        let vr = (2u * ch + c) * n_tok + k0;
        for (var j = 0u; j < nk; j++) {
          let v = vec4<f32>(f32(qkv[vr + j]));
          for (var u = 0u; u < 4u; u++) { acc[jj * 4u + u] = fma(p_s[j * 4u + u], v, acc[jj * 4u + u]); }
        }
      }
    }
    workgroupBarrier();
  }

  for (var jj = 0u; jj < NJ; jj++) {
    let c = lid + 256u * jj;
    if (c < ch) {
      for (var i = 0u; i < BQ; i++) {
        if (q0 + i < n_tok) { o[c * n_tok + q0 + i] = Elem(acc[jj * 4u + i / 4u][i % 4u] / l_s[i]); }
      }
    }
  }
}
