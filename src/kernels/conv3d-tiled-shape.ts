// The tile shape of the generated portable conv (conv3d-tiled.ts) and why a shape cannot be generated:
// shader-free, so the planning layer's conv-form choice (src/plan/conv-form.ts) can check shapes.
/** One tile shape: WG_N x WG_M invocations, each TM4 vec4 channel groups x TN4 pixel quads; BK channels per step. */
export interface TiledShape {
  wgN: number;
  wgM: number;
  tm4: number;
  tn4: number;
  bk: number;
  /** multiply-adds as fma() (one rounding; FFMA on NVIDIA) instead of `c += a * b` (two roundings as WGSL writes it) */
  fma?: boolean;
  /** the BK loop written out (constant workgroup-memory offsets) instead of a loop */
  unroll?: boolean;
  /** im2col loads in two copies, from the cache binding and from x, chosen once per quad row instead of per load */
  split?: boolean;
}

/** Why a shape cannot be generated, or null. */
export function tiledShapeError(t: TiledShape, maxInvocations = 256): string | null {
  const nt = t.wgN * t.wgM;
  if (![t.wgN, t.wgM, t.tm4, t.tn4, t.bk].every((v) => Number.isInteger(v) && v >= 1)) return 'every size must be a positive integer';
  if (nt > maxInvocations) return `${nt} invocations > ${maxInvocations}`;
  // the im2col loader: one pixel quad per invocation, RB = WG_M / TN4 channel rows per pass
  if (t.wgM % t.tn4 !== 0) return 'WG_M must be a multiple of TN4 (one loader quad per invocation)';
  if (t.bk % (t.wgM / t.tn4) !== 0) return `BK must be a multiple of WG_M / TN4 = ${t.wgM / t.tn4}`;
  const smem = 2 * t.bk * (t.wgM * t.tm4 + t.wgN * t.tn4) * 16;
  if (smem > 16384 * 3) return `${smem} B of workgroup memory > 48 KiB`;
  return null;
}
