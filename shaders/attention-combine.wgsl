// attention-combine: the second pass of the tensor-core attention split over keys
// (shaders/attention-mma-split.wgsl says what the first writes):
//   o[c, q] = Σ_z w_z[q] part[z, c, q] / Σ_z w_z[q],  w_z[q] = l_z[q] · exp(m_z[q] - max_z m_z[q])
// part: [split][C][N] Elem, ml: [split][2][N] f32 (m, l), o: [C, N] Elem. One invocation per output element
// (consecutive invocations: consecutive queries), 2-D past 65535 workgroups (linearGrid).
alias Elem = f32;

// attention's Params (the first pass shares the uniform slot) and the ranges
struct Params { c: u32, n: u32, scale: f32, split: u32 }

@group(0) @binding(0) var<storage, read> part: array<Elem>;
@group(0) @binding(1) var<storage, read> ml: array<f32>;
@group(0) @binding(2) var<storage, read_write> o: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = prm.n;
  let cn = prm.c * n;
  let i = (wg.y * nwg.x + wg.x) * WG + lid; // the linear grid of linearGrid (src/gpu/kernel.ts)
  if (i >= cn) { return; }
  let q = i % n;
  var mx = -3.0e38;
  for (var z = 0u; z < prm.split; z++) { mx = max(mx, ml[2u * z * n + q]); }
  var num = 0.0;
  var den = 0.0;
  for (var z = 0u; z < prm.split; z++) {
    let w = ml[(2u * z + 1u) * n + q] * exp(ml[2u * z * n + q] - mx);
    num += w * f32(part[z * cn + i]);
    den += w;
  }
  o[i] = Elem(num / den);
}
