// attention-pack: qkv [3C][N] copied into tile order for the tensor-core attention's packed form
// (src/kernels/attention-mma.ts, shape `packed`): tile (R, T) = rows 16 R .. 16 R + 15, tokens 16 T .. 16 T + 15, its
// 256 elements contiguous at (R · N / 16 + T) · 256, row-major within the tile ((r, t) at 16 r + t). Every Q, K and
// Vᵀ tile the kernel loads is then one 512-byte run at stride 16 instead of 16 runs of 32 bytes at stride N.
// One invocation per element (consecutive invocations: consecutive tokens of a row), 2-D past 65535 workgroups (linearGrid).
alias Elem = f32;

// attention's Params (the kernels of the step share one uniform slot); the pack reads c and n
struct Params { c: u32, n: u32 }

@group(0) @binding(0) var<storage, read> qkv: array<Elem>;
@group(0) @binding(1) var<storage, read_write> packed: array<Elem>;
@group(1) @binding(0) var<uniform> prm: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = prm.n;
  let i = (wg.y * nwg.x + wg.x) * WG + lid; // the linear grid of linearGrid (src/gpu/kernel.ts)
  if (i >= 3u * prm.c * n) { return; }
  let r = i / n;
  let t = i % n;
  packed[((r / 16u) * (n / 16u) + t / 16u) * 256u + (r % 16u) * 16u + t % 16u] = qkv[i];
}
