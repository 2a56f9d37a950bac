// conv3d-mma-pack-norm: conv3d-mma-pack with the norm for a conv whose input carries no inverse-RMS row: the
// RMS_norm statistics of each pixel (shaders/rms-norm.wgsl: inv = sqrt(C) / max(sqrt(sum_c x^2), 1e-12),
// the sum in f32) are computed here, from the frame the pack reads anyway, instead of by an rms-norm
// statistics pass before the conv (--norm fused on tensor cores: src/plan/conv-form.ts statsInPack). Then
// x * inv * gamma (+ SiLU, prm.silu) is written in conv3d-mma-pack's layout (shaders/conv3d-mma-common.wgsl), for
// the frames tap0..kt-1 or (prm.ring = 1) frame t alone at the start of s. The inverse RMS stays in f32 (the
// statistics pass rounds it to the storage type). Always normalised (prm.norm is not read).
// Bindings, Params and the frame geometry: shaders/conv3d-mma-pack-common.wgsl, conv3d-mma-params.wgsl.

const COLS: u32 = 64; // padded columns per workgroup
const GROUPS: u32 = 4; // channel groups per column: channels c = g, g + 4, ... and blocks cb = g, g + 4, ...

var<workgroup> partial: array<f32, COLS * GROUPS>;

// Workgroup (x, y, z) = (COLS padded columns, operand row r, dt - tap0; ring = 1: 0); invocation (column
// lid % COLS, channel group lid / COLS): a partial sum of squares over its channels, the four summed
// through workgroup memory, then its channel blocks written (32 contiguous bytes each).
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let f = pack_frame(prm.tap0 + wg.z);
  let col = lid % COLS;
  let grp = lid / COLS;
  let xp = wg.x * COLS + col;
  let r = wg.y;
  let px = pack_pixel(r, xp);
  let inside = xp < f.wp && px.x == 1u;
  let off = select(0u, px.y, inside);
  var ss = 0.0;
  if (inside) {
    for (var c = grp; c < prm.cin; c += GROUPS) {
      let a = load_src(f.from_cache, f.base + c * f.hw_in + off);
      ss += a * a;
    }
  }
  partial[lid] = ss;
  workgroupBarrier();
  if (xp >= f.wp) { return; }
  // the four partial sums of this column in a fixed order (every group computes the same inv)
  let total = partial[col] + partial[col + COLS] + partial[col + 2u * COLS] + partial[col + 3u * COLS];
  let inv = sqrt(f32(prm.cin)) / max(sqrt(total), 1e-12);
  for (var cb = grp; cb < f.cbn; cb += GROUPS) {
    let out = pack_out(f, cb, r, xp);
    for (var q = 0u; q < 4u; q++) {
      var v = vec4<f32>();
      for (var k = 0u; k < 4u; k++) {
        let c = cb * 16u + q * 4u + k;
        if (inside && c < prm.cin) {
          var a = load_src(f.from_cache, f.base + c * f.hw_in + off) * inv * f32(gamma[c]);
          if (prm.silu == 1u) { a = a / (1.0 + exp(-a)); }
          v[k] = a;
        }
      }
      s[out + q] = vec4<Elem>(v);
    }
  }
}
