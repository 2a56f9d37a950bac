// Adapter probing, in one place: what kind of adapter this is (the conv3d tuning follows it) and whether
// it offers the subgroup matrices conv3d-mma needs. Pure: reads `adapter.info` / `adapter.features`.

/** The adapter facts the classification reads (GPUAdapterInfo plus the legacy isFallbackAdapter). */
export interface AdapterFacts {
  isFallbackAdapter?: boolean;
  vendor?: string;
  architecture?: string;
  description?: string;
}

/** 'swiftshader' (Chromium's CPU WebGPU), 'cpu' (other software adapters: lavapipe/llvmpipe, fallback), 'gpu'. */
export type AdapterClass = 'swiftshader' | 'cpu' | 'gpu';

export function adapterClass(info: AdapterFacts): AdapterClass {
  const text = `${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`.toLowerCase();
  if (text.includes('swiftshader')) return 'swiftshader';
  if (info.isFallbackAdapter || /llvmpipe|lavapipe|software/.test(text)) return 'cpu';
  return 'gpu';
}

/** True for software adapters (SwiftShader, lavapipe/llvmpipe, fallback adapters). */
export function isCpuAdapter(info: AdapterFacts): boolean {
  return adapterClass(info) !== 'gpu';
}

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
