// conv3d-mma-pack: the operand copy of conv3d-mma for one conv call, in the channels-innermost layout
// s[dt][cb][row][xp][16 cin] (ROWS_OUTER=1: s[dt][row][cb][xp][16 cin]) of shaders/conv3d-mma-common.wgsl, for temporal taps dt = tap0..kt-1 (the
// frames t-2, t-1 from the cache ring, t from x, exactly as conv3d reads them): ONE copy per frame, the
// horizontal taps are offsets of 16 elements into it. Row r, padded column xp, channel c hold the input at
// output-space (r - pad, xp - pad): zero for padding, for channels past cin and columns past w; prm.up = 1 reads
// the half-size input at (y >> 1, x >> 1) (nearest-2x, never materialised); prm.norm = 1 applies RMS_norm
// (+ SiLU) with the inverse RMS row the frame carries (--norm fused), as conv3d does on load.
// prm.ring = 1 (a cached conv whose ring holds packed frames, src/plan/conv-form.ts packedRing): only the current
// frame t is packed, from x at x_off, into frame 0 of s; the GEMM (ring = 1) reads t-2 and t-1 from the
// ring, where the executor then copies t over t-2. Each frame is packed once, by the first conv call that
// reads it, instead of once per call that reads it (three).
// Bindings, Params and the frame geometry: shaders/conv3d-mma-pack-common.wgsl, conv3d-mma-params.wgsl.

const WG: u32 = 256; // padded columns per workgroup

// Workgroup (x, y, z) = (WG padded columns, operand row r, (dt - tap0, cb); ring = 1: cb); each invocation one column
// of one row, its 16 channels: reads coalesced along x per channel, writes 32 contiguous bytes.
@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let cbn = (prm.cin + 15u) / 16u;
  let f = pack_frame(prm.tap0 + wg.z / cbn);
  let xp = wg.x * WG + lid;
  if (xp >= f.wp) { return; }
  let r = wg.y;
  let cb = wg.z % cbn;
  let out = pack_out(f, cb, r, xp);
  let px = pack_pixel(r, xp);
  if (px.x == 0u) {
    for (var q = 0u; q < 4u; q++) { s[out + q] = vec4<Elem>(); }
    return;
  }
  let off = px.y;
  var inv = 1.0;
  if (prm.norm == 1u) { inv = load_src(f.from_cache, f.base + prm.cin * f.hw_in + off); }
  for (var q = 0u; q < 4u; q++) {
    var v = vec4<f32>();
    for (var k = 0u; k < 4u; k++) {
      let c = cb * 16u + q * 4u + k;
      if (c < prm.cin) {
        var a = load_src(f.from_cache, f.base + c * f.hw_in + off);
        if (prm.norm == 1u) {
          a = a * inv * f32(gamma[c]);
          if (prm.silu == 1u) { a = a / (1.0 + exp(-a)); }
        }
        v[k] = a;
      }
    }
    s[out + q] = vec4<Elem>(v);
  }
}
