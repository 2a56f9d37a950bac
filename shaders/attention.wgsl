// attention: single-head softmax attention over the N = h·w tokens of one frame (vae.py AttentionBlock
// core, between to_qkv and proj), head dim C up to 1024, with an ONLINE softmax: the N×N score matrix
// is never stored.  o[c, n] = Σ_k softmax_k(scale · Σ_c' q[c', n] k[c', k]) · v[c, k]
// Layouts: qkv: [3C, N] Elem (rows 0..C-1 = q, C..2C-1 = k, 2C..3C-1 = v); o: [C, N] Elem.
// Bindings: 0 qkv (read), 1 o (read_write). Params: group 1 uniform.
// Dispatch: one workgroup of WG invocations per query token n. Per block of BK keys: the WG invocations
// split the C-long dot products (each sums C/WG channels, then a tree reduction in workgroup memory),
// the running max / sum are rescaled (flash-attention style), and each invocation accumulates the
// output channels c ≡ lid (mod WG) in registers (up to MAX_CPT = 1024 / WG channels each). f32 math.
alias Elem = f32;

struct Params { c: u32, n: u32, scale: f32 }

@group(0) @binding(0) var<storage, read> qkv: array<Elem>;
@group(0) @binding(1) var<storage, read_write> o: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

const WG: u32 = 64;
const BK: u32 = 16; // keys per block
const MAX_CPT: u32 = 16; // channels per invocation: C <= WG * MAX_CPT = 1024

var<workgroup> red: array<f32, WG * BK>; // partial dot products [BK][WG]
var<workgroup> s_blk: array<f32, BK>; // scores of the current key block

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let n = wg.x + wg.y * 65535u;
  if (n >= prm.n) { return; } // uniform per workgroup: barriers stay in uniform control flow
  let C = prm.c;
  let N = prm.n;
  var acc: array<f32, MAX_CPT>;
  var qreg: array<f32, MAX_CPT>;
  let cpt = (C + WG - 1u) / WG;
  for (var j = 0u; j < cpt; j++) {
    let c = lid.x + j * WG;
    qreg[j] = select(0.0, f32(qkv[c * N + n]), c < C);
  }
  var m = -3.0e38;
  var l = 0.0;
  for (var k0 = 0u; k0 < N; k0 += BK) {
    for (var kk = 0u; kk < BK; kk++) {
      let k = k0 + kk;
      var part = 0.0;
      if (k < N) {
        for (var j = 0u; j < cpt; j++) {
          let c = lid.x + j * WG;
          if (c < C) { part += qreg[j] * f32(qkv[(C + c) * N + k]); }
        }
      }
      red[kk * WG + lid.x] = part;
    }
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
      if (lid.x < s) {
        for (var kk = 0u; kk < BK; kk++) { red[kk * WG + lid.x] += red[kk * WG + lid.x + s]; }
      }
      workgroupBarrier();
    }
    if (lid.x < BK) {
      s_blk[lid.x] = select(-3.0e38, red[lid.x * WG] * prm.scale, k0 + lid.x < N);
    }
    workgroupBarrier();
    var mb = m;
    for (var kk = 0u; kk < BK; kk++) { mb = max(mb, s_blk[kk]); }
    let corr = exp(m - mb);
    l *= corr;
    for (var j = 0u; j < cpt; j++) { acc[j] *= corr; }
    for (var kk = 0u; kk < BK; kk++) {
      let k = k0 + kk;
      if (k >= N) { break; }
      let pk = exp(s_blk[kk] - mb);
      l += pk;
      for (var j = 0u; j < cpt; j++) {
        let c = lid.x + j * WG;
        if (c < C) { acc[j] += pk * f32(qkv[(2u * C + c) * N + k]); }
      }
    }
    m = mb;
    workgroupBarrier(); // s_blk and red are rewritten by the next block
  }
  for (var j = 0u; j < cpt; j++) {
    let c = lid.x + j * WG;
    if (c < C) { o[c * N + n] = Elem(acc[j] / l); }
  }
}
