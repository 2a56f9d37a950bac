// conv3d-head: the decoder's last conv (head.2: 96 -> 3 channels for Wan2.1, -> 12 for Wan2.2's patch 2,
// 3x3x3, causal cache) as a direct conv for few output channels. conv3d's register tiles are built for
// many channels: on 3 they ran at 2.1 TFLOP/s on the H200 (234 ms of the 480x832x81 decode, one vec4 of
// channels straight from storage). Here a workgroup computes an 8 x 64 pixel tile for all COUT4 vec4s of
// channels: per tap frame and CC input channels, the (8+2) x (64+2) input halo (RMS-normalised + SiLU on
// load with NORM = 1) and the CC x 9 x COUT4 weight vec4s are staged in workgroup memory; invocation
// (lx, ly) owns pixels 4 lx .. 4 lx + 3 of row ly and slides a 6-value window over each tap row.
// Same operation, bindings, Params and weight layout as shaders/conv3d.wgsl (conv3d-common.wgsl and
// conv3d-w.wgsl are appended by src/kernels/conv3d-head.ts); KS = 3, UP = 0 only (the head's shape).
// Dispatch: [ceil(w / 64), ceil(h / 8), 1].
alias Elem = f32;

override COUT4: u32 = 1; // vec4s of output channels: ceil(cout / 4) <= MAX_C4
override KT: u32 = 3; // Params' kt is not read here
override HAS_RES: u32 = 0; // 0 none, 1 from res, 2 from y (in place); Params' has_res is not read here
fn conv_kt() -> u32 { return KT; }

const TW: u32 = 64; // tile width in pixels (16 invocations x 4)
const TH: u32 = 8; // tile height (8 invocations)
const CC: u32 = 4; // input channels staged per step
const MAX_C4: u32 = 3;
const SW: u32 = 68; // staged row stride (TW + 2 halo, padded)
const SH: u32 = 10; // staged rows (TH + 2)
const NT: u32 = 128; // invocations

var<workgroup> xs: array<f32, CC * SH * SW>; // [c][row][col]: col 0 = pixel x0 - 1
var<workgroup> ws: array<vec4<f32>, CC * 9u * MAX_C4>; // [c][dy * 3 + dx][vec4 of channels]
var<workgroup> invs: array<f32, SH * SW>; // NORM = 1: inverse RMS of each staged pixel

@compute @workgroup_size(16, 8, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let hw = prm.h * prm.w;
  let x0 = wg.x * TW;
  let y0 = wg.y * TH;
  let lin = lid.y * 16u + lid.x;
  var acc: array<vec4<f32>, 4u * MAX_C4>; // [vec4 of channels j][pixel p]
  for (var dt = prm.tap0; dt < KT; dt++) {
    let t = tap_info(dt * 9u);
    if (NORM == 1u) {
      for (var e = lin; e < SH * SW; e += NT) {
        let sy = i32(y0 + e / SW) - 1;
        let sx = i32(x0 + e % SW) - 1;
        var inv = 0.0;
        if (e % SW < TW + 2u && sy >= 0 && sx >= 0 && sy < i32(prm.h) && sx < i32(prm.w)) {
          inv = load_src(t.from_cache, t.base + prm.cin * hw + u32(sy) * prm.w + u32(sx));
        }
        invs[e] = inv;
      }
      workgroupBarrier();
    }
    for (var c0 = 0u; c0 < prm.cin; c0 += CC) {
      for (var e = lin; e < CC * SH * SW; e += NT) {
        let c = c0 + e / (SH * SW);
        let q = e % (SH * SW);
        let sy = i32(y0 + q / SW) - 1;
        let sx = i32(x0 + q % SW) - 1;
        var u = 0.0;
        if (c < prm.cin && q % SW < TW + 2u && sy >= 0 && sx >= 0 && sy < i32(prm.h) && sx < i32(prm.w)) {
          u = load_src(t.from_cache, t.base + c * hw + u32(sy) * prm.w + u32(sx));
          if (NORM == 1u) { u = norm_act(u, invs[q], c); }
        }
        xs[e] = u;
      }
      for (var e = lin; e < CC * 9u * COUT4; e += NT) {
        let c = c0 + e / (9u * COUT4);
        let k = (e / COUT4) % 9u;
        let j = e % COUT4;
        ws[e] = select(vec4<f32>(0.0), wload(((dt * 9u + k) * prm.cin + min(c, prm.cin - 1u)) * COUT4 + j), c < prm.cin);
      }
      workgroupBarrier();
      for (var c = 0u; c < CC; c++) {
        for (var dy = 0u; dy < 3u; dy++) {
          let r = (c * SH + lid.y + dy) * SW + lid.x * 4u;
          var v: array<f32, 6>;
          for (var i = 0u; i < 6u; i++) { v[i] = xs[r + i]; }
          for (var dx = 0u; dx < 3u; dx++) {
            for (var j = 0u; j < COUT4; j++) {
              let wv = ws[(c * 9u + dy * 3u + dx) * COUT4 + j];
              for (var p = 0u; p < 4u; p++) { acc[j * 4u + p] = fma(wv, vec4<f32>(v[p + dx]), acc[j * 4u + p]); }
            }
          }
        }
      }
      workgroupBarrier();
    }
  }
  let py = y0 + lid.y;
  if (py >= prm.h) { return; }
  for (var p = 0u; p < 4u; p++) {
    let px = x0 + lid.x * 4u + p;
    if (px >= prm.w) { continue; }
    for (var j = 0u; j < COUT4; j++) {
      for (var q = 0u; q < 4u; q++) {
        let o = j * 4u + q;
        if (o >= prm.cout) { continue; }
        let at = o * hw + py * prm.w + px;
        var val = acc[j * 4u + p][q] + f32(b[o]);
        if (HAS_RES == 1u) { val += f32(res[prm.res_off + at]); }
        if (HAS_RES == 2u) { val += f32(y[prm.y_off + at]); }
        y[prm.y_off + at] = Elem(val);
      }
    }
  }
}
