// conv3dMma kernel: conv3d on tensor cores through WGSL subgroup matrices (shaders/conv3d-mma.wgsl).
// Same bindings, params and results as conv3d; f16 storage only, on adapters whose
// `chromium-experimental-subgroup-matrix` feature offers 16x16x16 f16 -> f32 (subgroupMatrixSupported).
import src from '../../shaders/conv3d-mma.wgsl?raw';
import common from '../../shaders/conv3d-common.wgsl?raw';
import type { KernelDef } from '../gpu/kernel';
import { conv3d, type Conv3dParams } from './conv3d';

const BM = 64, BN = 64;
const overrides: Record<string, number> = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, SG: 32 };

export const conv3dMma: KernelDef<Conv3dParams> = {
  id: 'conv3d-mma',
  wgsl: `${src}\n${common}`,
  bindings: conv3d.bindings,
  params: conv3d.params,
  overrides,
  dispatch(p, ov) {
    conv3d.dispatch(p, { KT: ov.KT ?? 3, KS: ov.KS ?? 3, UP: ov.UP ?? 0 }); // the same plan-time checks
    return [Math.ceil((p.h * p.w) / BN), Math.ceil(p.cout / BM), 1];
  },
  cost: (p, ov, elem) => conv3d.cost(p, ov, elem),
};

/** The subgroup-matrix configurations an adapter reports (Chromium / Dawn experimental). */
interface MatrixConfig {
  M: number;
  N: number;
  K: number;
  componentType: string;
  resultComponentType: string;
}

/**
 * True when the adapter offers `chromium-experimental-subgroup-matrix` with a 16x16x16 f16 -> f32
 * configuration and f16 storage: what conv3d-mma needs. `subgroupSize`: the SG override (the
 * adapter's subgroup size; the kernel runs one subgroup per workgroup).
 */
export function subgroupMatrixSupport(adapter: { features: ReadonlySet<string>; info?: unknown }): { ok: boolean; subgroupSize: number } {
  const info = (adapter.info ?? {}) as { subgroupMatrixConfigs?: MatrixConfig[]; subgroupMinSize?: number; subgroupMaxSize?: number };
  const configs = info.subgroupMatrixConfigs ?? [];
  const has = configs.some((c) => c.M === 16 && c.N === 16 && c.K === 16 && c.componentType === 'f16' && c.resultComponentType === 'f32');
  const size = info.subgroupMinSize ?? 0;
  const ok = adapter.features.has('chromium-experimental-subgroup-matrix') && adapter.features.has('shader-f16') && has && size === info.subgroupMaxSize && size >= 8 && 64 % size === 0;
  return { ok, subgroupSize: size || 32 };
}
