// attention-mma-split: the tensor-core attention split over keys (src/kernels/attention-mma.ts, shape `split`):
// more workgroups for the same queries. Workgroup (x, y, z) runs the kernel of attention-mma-common.wgsl over
// the keys of range z only (k_beg .. k_end, SPAN = ceil(N / (16·KB·split))·16·KB keys each) and writes, in place
// of the output, its normalized partial output and its softmax statistics:
//   o  (the part buffer)   [split][C][N] Elem:  O_z[c, q] = Σ_{k in z} exp(scale·S[q, k] - m_z[q]) v[c, k] / l_z[q]
//   ml                     [split][2][N] f32:   m_z[q] (the running max it used), l_z[q] (its sum; 0: no keys)
// shaders/attention-combine.wgsl then forms o[c, q] = Σ_z w_z O_z[c, q] / Σ_z w_z, w_z = l_z exp(m_z - max_z m_z).
@group(0) @binding(2) var<storage, read_write> ml: array<f32>;

// the range's softmax statistics (its output: epilogue(q0, z·C + c0, lid), attention-mma-common.wgsl)
fn split_stats(q0: u32, c0: u32, z: u32, lid: u32) {
  let n = prm.n;
  if (c0 == 0u && lid < 16u) {
    ml[2u * z * n + q0 + lid] = m_s[lid];
    ml[(2u * z + 1u) * n + q0 + lid] = l_s[lid];
  }
}
