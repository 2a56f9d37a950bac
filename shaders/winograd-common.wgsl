// winograd-common: what the three kernels of the non-fused Winograd conv share (appended to each by
// src/kernels/winograd.ts, which generates their main()): the Params of one band of tiles, the
// overrides of the operation. The conv is conv3d's (shaders/conv3d.wgsl header: causal taps KT from
// the cache ring at prev2_off / prev1_off and x at x_off, tap0, UP nearest-2x, NORM/SILU on load,
// HAS_RES) with KS = 3, computed per r x r output tile (R = 2: F(2x2,3x3), 16 positions; R = 4:
// F(4x4,3x3), 36 positions) for the band of tiles t0 .. t0+nt-1 (row-major over ceil(h/R) x ceil(w/R)).
// Scratch (one buffer, f32): V [E][kc][sv] at 0 and M [E][cout][sv] at m_off, kc = (KT - tap0)*cin,
// sv = nt rounded up to a multiple of 4 (tiles contiguous: every GEMM operand load is a vec4 row).

struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
  t0: u32, nt: u32, m_off: u32,
  // the conv's form as values (src/kernels/winograd.ts WINO_CARRIED): a kernel either reads the field or bakes
  // the constant of that name (winoBakedWgsl); kt temporal taps (1, 3), up (nearest-2x input), has_res (the
  // residual: 0 none, 1 from res, 2 from y in place)
  kt: u32, up: u32, has_res: u32,
}

@group(1) @binding(0) var<uniform> prm: Params;

override NORM: u32 = 0; // 1: RMS_norm applied to the operands while loading (--norm fused)
override SILU: u32 = 0; // with NORM=1: SiLU after the norm

// Tiles of the band rounded up to a multiple of 4: the row stride of V and M.
fn band_stride() -> u32 { return (prm.nt + 3u) & ~3u; }
