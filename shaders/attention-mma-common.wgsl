// attention-mma-common: what the tensor-core attention (src/kernels/attention-mma.ts generates its `main`)
// shares with its emulated twin: bindings, params, workgroup tiles, the softmax of one key block and the
// epilogue. Same problem, bindings and Params as shaders/attention.wgsl:
//   o[c, n] = Σ_k softmax_k(scale · Σ_d q[d, n] k[d, k]) · v[c, k],  qkv: [3C, N] Elem, o: [C, N] Elem
// One workgroup = one subgroup of SG invocations; it owns 16 queries q0 .. q0 + 15 and the 16·CT output
// channels c0 .. c0 + 16·CT - 1 (dispatch [N / 16, C / (16·CT), 1]; C and N multiples of 16). Per block of
// 16·KB keys:
//   S = Qᵀ K   KB 16x16 result tiles (Q tile col-major and K tile row-major straight from qkv, stride N),
//              stored to s_s [query][key] (f32, row stride ST);
//   softmax    the SG invocations, SG / 16 per query row: block max, P = exp(scale·S - m) into p_s (Elem),
//              row sums into l (m_s, l_s per query);
//   O += P Vᵀ  CT 16x16 result tiles [query][channel] (P from p_s row-major, Vᵀ col-major from qkv, stride N).
// The running max m moves only when a block's max exceeds it by more than TAU ("lazy" rescaling: P <= e^TAU,
// which f16 holds); then the O tiles go through o_s, are scaled per query row by exp(m_old - m_new) and come
// back (a workgroup-uniform branch, rare after the first blocks). The two-pass form computes the exact m and
// l of every query first (a pass of S alone), then P = exp(scale·S - m) with no rescaling.
// Epilogue: O tiles into o_s, o[c0 + c, q0 + r] = O[r, c] / l[r]. Split over keys (the generated main's
// `split`: dispatch z = the key range): the same per range, into a part buffer, and a combine pass
// (shaders/attention-mma-split.wgsl says how).
// Operand forms: S's tiles straight from qkv (Q col-major, K row-major, stride N), or (STAGE) staged DC
// channels at a time into workgroup memory by the invocations, transposed (qs_s [query][channel], ks_s
// [key][channel]), and read from there as a row-major left and a col-major right tile (the forms conv3d-mma
// and the GEMMs read); O tiles in o_s col-major, or (O_ROW) row-major.
struct Params { c: u32, n: u32, scale: f32 }

@group(0) @binding(0) var<storage, read> qkv: array<Elem>;
@group(0) @binding(1) var<storage, read_write> o: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

// invocations of the workgroup = the subgroup size (16 <= SG <= 256, a multiple of 16)
override SG: u32 = 32;
// output channel tiles per workgroup and key tiles per block (the generated main sets them)
const CT: u32 = 12;
const KB: u32 = 4;
// channels per staged chunk (STAGE) and the staged tiles' row stride (Elem; a multiple of 8: 16-byte rows)
const DC: u32 = 32;
const QS: u32 = DC + 8u;
// 1: the O tiles in o_s are row-major ((row r, channel c) at t * 256 + r * 16 + c), 0: col-major
const O_ROW: u32 = 0;
// the running max moves when a block's max exceeds it by more than this (P <= e^TAU = 2981)
const TAU: f32 = 8.0;
const MASKED: f32 = -3.0e38;
// row strides: multiples of 16 bytes (matrix load / store alignment), off the 32-bank period
const ST: u32 = 16u * KB + 4u;
const PT: u32 = 16u * KB + 8u;

var<workgroup> s_s: array<f32, 16u * ST>; // [query][key] scores of the block (raw q·k)
var<workgroup> p_s: array<Elem, 16u * PT>; // [query][key] probabilities
var<workgroup> o_s: array<f32, 256u * CT>; // O tile t at t * 256: (row r, channel c) at c * 16 + r (O_ROW: r * 16 + c)
var<workgroup> qs_s: array<Elem, 16u * QS>; // STAGE: [query][channel] of the chunk
var<workgroup> ks_s: array<Elem, 16u * KB * QS>; // STAGE: [key][channel] of the chunk
var<workgroup> red_s: array<f32, SG>; // per-invocation partial max
var<workgroup> red2_s: array<f32, SG>; // per-invocation partial sum
var<workgroup> m_s: array<f32, 16>; // running max of scale·S per query
var<workgroup> l_s: array<f32, 16>; // running sum per query
var<workgroup> a_s: array<f32, 16>; // rescale factor of this block per query
// 1 (in .x): some query's max moved this block. A vec4: every workgroup variable is a multiple of 16 bytes.
// With a 4-byte u32 here the H200 (Dawn + NVIDIA 580) stored every score tile one f32 below s_s's base
// (S shifted by one element, SNR -2.8 dB; element offsets +1 and +3 right, +0, +2, +4 wrong: the subgroup
// matrix store rounded an address 4 bytes off 8-byte alignment down), 2026-12-04, bench/results/h200/
// attn-mma-layout-2026-12-04-867476a/. Keep every variable a subgroup matrix loads or stores 16-byte aligned.
var<workgroup> flag_s: vec4<u32>;

fn init_stats(lid: u32) {
  if (lid < 16u) {
    m_s[lid] = MASKED;
    l_s[lid] = 0.0;
  }
}

// the max of scale·S over the block's valid keys of query row r (SG / 16 invocations per row), via red_s
fn block_max(k0: u32, ke: u32, lid: u32) -> f32 {
  let rl = SG / 16u;
  let r = lid / rl;
  let nk = min(16u * KB, ke - k0);
  var bm = MASKED;
  for (var j = lid % rl; j < nk; j += rl) { bm = max(bm, s_s[r * ST + j]); }
  red_s[lid] = bm * prm.scale;
  if (lid == 0u) { flag_s.x = 0u; }
  workgroupBarrier();
  var mb = MASKED;
  for (var i = 0u; i < rl; i++) { mb = max(mb, red_s[r * rl + i]); }
  return mb;
}

// P = exp(scale·S - m) of row r into p_s (0 past N); returns this invocation's part of the row sum
fn block_p(k0: u32, ke: u32, lid: u32, m: f32) -> f32 {
  let rl = SG / 16u;
  let r = lid / rl;
  let nk = min(16u * KB, ke - k0);
  var sum = 0.0;
  for (var j = lid % rl; j < 16u * KB; j += rl) {
    let p = select(0.0, exp(s_s[r * ST + j] * prm.scale - m), j < nk);
    p_s[r * PT + j] = Elem(p);
    sum += p;
  }
  return sum;
}

// the row sum of the SG / 16 partial sums in red2_s (after a barrier)
fn row_sum(lid: u32) -> f32 {
  let rl = SG / 16u;
  let r = lid / rl;
  var tot = 0.0;
  for (var i = 0u; i < rl; i++) { tot += red2_s[r * rl + i]; }
  return tot;
}

// one-pass form: the block's P with the lazily moved max; true (workgroup-uniform) when the O tiles must be
// scaled by a_s before P·V is added
fn soft_lazy(k0: u32, ke: u32, lid: u32) -> bool {
  let rl = SG / 16u;
  let r = lid / rl;
  let mb = block_max(k0, ke, lid);
  let m_old = m_s[r];
  let grow = mb > m_old + TAU; // always for the first block (m_old = MASKED)
  let m_new = select(m_old, mb, grow);
  red2_s[lid] = block_p(k0, ke, lid, m_new);
  if (grow && m_old > MASKED && lid % rl == 0u) { flag_s.x = 1u; }
  workgroupBarrier();
  if (lid % rl == 0u) {
    let alpha = select(1.0, exp(m_old - m_new), grow);
    l_s[r] = l_s[r] * alpha + row_sum(lid);
    m_s[r] = m_new;
    a_s[r] = alpha;
  }
  return workgroupUniformLoad(&flag_s).x != 0u;
}

// the query row of o_s element e
fn o_row(e: u32) -> u32 { return select(e % 16u, (e / 16u) % 16u, O_ROW == 1u); }

// O tiles in o_s scaled per query row by a_s
fn rescale_o(lid: u32) {
  for (var e = lid; e < 256u * CT; e += SG) { o_s[e] *= a_s[o_row(e)]; }
}

// STAGE: channels d0 .. d0 + DC - 1 of the block's 16 queries and 16·KB keys into qs_s / ks_s, transposed
// (consecutive invocations read consecutive tokens of one channel row; channels past C and keys past N: 0)
fn stage_qk(k0: u32, d0: u32, q0: u32, lid: u32) {
  let n = prm.n;
  let ch = prm.c;
  for (var e = lid; e < 16u * DC; e += SG) {
    let d = e / 16u;
    let q = e % 16u;
    qs_s[q * QS + d] = select(Elem(0.0), qkv[(d0 + d) * n + q0 + q], d0 + d < ch);
  }
  for (var e = lid; e < 16u * KB * DC; e += SG) {
    let d = e / (16u * KB);
    let k = e % (16u * KB);
    ks_s[k * QS + d] = select(Elem(0.0), qkv[(ch + d0 + d) * n + k0 + k], d0 + d < ch && k0 + k < n);
  }
}

// two-pass form, first pass: the exact running max and sum of each query (online, scalars only)
fn soft_stats(k0: u32, ke: u32, lid: u32) {
  let rl = SG / 16u;
  let r = lid / rl;
  let mb = block_max(k0, ke, lid);
  let m_old = m_s[r];
  let m_new = max(m_old, mb);
  let nk = min(16u * KB, ke - k0);
  var sum = 0.0;
  for (var j = lid % rl; j < nk; j += rl) { sum += exp(s_s[r * ST + j] * prm.scale - m_new); }
  red2_s[lid] = sum;
  workgroupBarrier();
  if (lid % rl == 0u) {
    l_s[r] = l_s[r] * exp(m_old - m_new) + row_sum(lid);
    m_s[r] = m_new;
  }
  workgroupBarrier();
}

// two-pass form, second pass: P = exp(scale·S - m) with the final m
fn soft_final(k0: u32, ke: u32, lid: u32) {
  let r = lid / (SG / 16u);
  _ = block_p(k0, ke, lid, m_s[r]);
  workgroupBarrier();
}

// o[row0 + c, q0 + r] = O[r, c] / l[r] from the O tiles in o_s (consecutive invocations: consecutive queries); row0
// = c0, or (split) the range's rows of the part buffer; 0 where l is 0 (a key range past N: split only)
fn epilogue(q0: u32, row0: u32, lid: u32) {
  let n = prm.n;
  for (var e = lid; e < 256u * CT; e += SG) {
    let r = e % 16u;
    let t = e / 256u;
    let cc = (e / 16u) % 16u;
    let i = select(e, t * 256u + r * 16u + cc, O_ROW == 1u);
    let l = l_s[r];
    o[(row0 + t * 16u + cc) * n + q0 + r] = Elem(select(0.0, o_s[i] / l, l > 0.0));
  }
}
