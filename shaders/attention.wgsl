// attention: vae.py AttentionBlock's single-head attention over the N = h·w tokens of one frame, with an
// online softmax (the N x N score matrix is never stored):
//   o[c, n] = Σ_k softmax_k(scale · Σ_d q[d, n] k[d, k]) · v[c, k]
// Layouts: qkv: [3C, N] Elem (q = rows 0..C-1, k = C..2C-1, v = 2C..3C-1), o: [C, N] Elem; C <= 1024.
// Bindings: 0 qkv (read), 1 o (read_write). Params: group 1 uniform (scale = 1/sqrt(C)).
// Dispatch: one workgroup of 256 invocations per BQ = 16 queries. Per block of BKV = 16 keys:
//   1. scores: invocation (qi, kj) = (lid / 16, lid % 16) computes one score, q and k staged through
//      workgroup memory CK = 16 channels at a time;
//   2. invocations kj = 0 update the running max m and sum l of their query and turn scores into
//      probabilities exp(s - m) (flash-attention rescaling by alpha = exp(m_old - m_new));
//   3. invocation lid owns output channels lid + 256·jj (jj < NJ) for all 16 queries in registers and
//      adds P · V, reading V straight from storage (each V row segment once per workgroup).
alias Elem = f32;

struct Params { c: u32, n: u32, scale: f32 }

@group(0) @binding(0) var<storage, read> qkv: array<Elem>;
@group(0) @binding(1) var<storage, read_write> o: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

const BQ: u32 = 16;
const BKV: u32 = 16;
const CK: u32 = 16;
// channel slots per invocation: C <= 256 * NJ; baked per head dim (kernels/attention.ts attentionOverrides:
// NJ = ceil(C / 256)): the P·V loop is unrolled over NJ x BKV x BQ, so a smaller NJ compiles faster and
// holds fewer registers (Wan2.1, C 384: NJ 2; Wan2.2, C 1024: NJ 4)
override NJ: u32 = 4;
const MASKED: f32 = -3.0e38; // score of a key past N; exp(MASKED - m) == 0

var<workgroup> q_s: array<f32, CK * BQ>; // [channel][query]
var<workgroup> k_s: array<f32, CK * BKV>; // [channel][key]
var<workgroup> p_s: array<f32, BQ * BKV>; // [query][key] scores, then probabilities
var<workgroup> m_s: array<f32, BQ>; // running max per query
var<workgroup> l_s: array<f32, BQ>; // running sum per query
var<workgroup> alpha_s: array<f32, BQ>; // rescale of the accumulators for this key block

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let ch = prm.c;
  let n_tok = prm.n;
  let q0 = wg.x * BQ;
  let qi = lid / BKV;
  let kj = lid % BKV;
  var acc: array<f32, NJ * BQ>; // [jj][query]
  if (lid < BQ) { m_s[lid] = MASKED; l_s[lid] = 0.0; }

  for (var k0 = 0u; k0 < n_tok; k0 += BKV) {
    var s = 0.0;
    for (var c0 = 0u; c0 < ch; c0 += CK) {
      // lid = row * 16 + col stages q[c0 + row, q0 + col] and k[c0 + row, k0 + col]
      let row = c0 + lid / BQ;
      let col = lid % BQ;
      q_s[lid] = select(0.0, f32(qkv[row * n_tok + q0 + col]), row < ch && q0 + col < n_tok);
      k_s[lid] = select(0.0, f32(qkv[(ch + row) * n_tok + k0 + col]), row < ch && k0 + col < n_tok);
      workgroupBarrier();
      for (var d = 0u; d < CK; d++) { s += q_s[d * BQ + qi] * k_s[d * BKV + kj]; }
      workgroupBarrier();
    }
    p_s[qi * BKV + kj] = select(MASKED, s * prm.scale, k0 + kj < n_tok);
    workgroupBarrier();
    if (kj == 0u) {
      var m_new = m_s[qi];
      for (var j = 0u; j < BKV; j++) { m_new = max(m_new, p_s[qi * BKV + j]); }
      var sum = 0.0;
      for (var j = 0u; j < BKV; j++) {
        let e = exp(p_s[qi * BKV + j] - m_new);
        p_s[qi * BKV + j] = e;
        sum += e;
      }
      let alpha = exp(m_s[qi] - m_new);
      alpha_s[qi] = alpha;
      l_s[qi] = l_s[qi] * alpha + sum;
      m_s[qi] = m_new;
    }
    workgroupBarrier();
    for (var jj = 0u; jj < NJ; jj++) {
      let c = lid + 256u * jj;
      if (c >= ch) { continue; }
      for (var i = 0u; i < BQ; i++) { acc[jj * BQ + i] *= alpha_s[i]; }
      for (var j = 0u; j < BKV; j++) {
        let v = select(0.0, f32(qkv[(2u * ch + c) * n_tok + k0 + j]), k0 + j < n_tok);
        for (var i = 0u; i < BQ; i++) { acc[jj * BQ + i] += p_s[i * BKV + j] * v; }
      }
    }
    workgroupBarrier();
  }

  for (var jj = 0u; jj < NJ; jj++) {
    let c = lid + 256u * jj;
    if (c >= ch) { continue; }
    for (var i = 0u; i < BQ; i++) {
      if (q0 + i < n_tok) { o[c * n_tok + q0 + i] = Elem(acc[jj * BQ + i] / l_s[i]); }
    }
  }
}
