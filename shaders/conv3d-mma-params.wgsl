// conv3d-mma-params: the Params of one tensor-core conv call, shared by its operand copy
// (conv3d-mma-pack.wgsl, conv3d-mma-pack-norm.wgsl) and its GEMM (conv3d-mma-common.wgsl): both dispatches
// read one uniform slot. conv3d's ten fields, then the conv's form as values instead of pipeline constants
// (src/kernels/conv3d-mma.ts MMA_PARAMS, filled from the KernelDefs' `uniforms`): kt temporal taps (1, 3),
// ks spatial taps (the pack's; the GEMM bakes KS: its taps are unrolled), up (nearest-2x input), norm and
// silu (RMS_norm, + SiLU, fused in the pack), ring (1: a packed cache ring, frame t alone is packed),
// has_res (the GEMM's residual: 0 none, 1 from res, 2 from y in place).
struct Params {
  cin: u32, cout: u32, h: u32, w: u32,
  x_off: u32, prev2_off: u32, prev1_off: u32, res_off: u32, y_off: u32, tap0: u32,
  kt: u32, ks: u32, up: u32, norm: u32, silu: u32, ring: u32, has_res: u32,
}

@group(1) @binding(0) var<uniform> prm: Params;
