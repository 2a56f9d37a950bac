// What a report says about where it ran: adapter info, features of the adapter and of the device the
// benchmark used, the limits that size the decoder, engine version, flags, commit, machine label.
import type { DecoderDevice } from '../../src/gpu/device';
import type { BenchEnv, SuiteConfig } from './types';

const LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
] as const;

/** A file-name-safe label of the adapter, e.g. `chromium-swiftshader`, `node-llvmpipe`, `node-nvidia-h200`. */
export function adapterSlug(env: Pick<BenchEnv, 'runtime' | 'adapter'>): string {
  const a = env.adapter;
  const name = /swiftshader/i.test(`${a.vendor} ${a.architecture} ${a.description}`)
    ? 'swiftshader'
    : /llvmpipe|lavapipe/i.test(`${a.description} ${a.device}`)
      ? 'llvmpipe'
      : a.device || a.architecture || a.vendor || a.description || 'unknown';
  const vendor = a.vendor && !name.toLowerCase().includes(a.vendor.toLowerCase()) && name !== 'swiftshader' && name !== 'llvmpipe' ? `${a.vendor}-` : '';
  return `${env.runtime}-${vendor}${name}`
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function describeEnv(gpu: DecoderDevice, cfg: SuiteConfig, runtime: 'chromium' | 'node'): BenchEnv {
  const info = (gpu.adapter.info ?? {}) as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number; isFallbackAdapter?: boolean };
  const limits: Record<string, number> = {};
  for (const k of LIMITS) limits[k] = Number((gpu.device.limits as unknown as Record<string, number>)[k]);
  const ts = gpu.device.features.has('timestamp-query');
  const devFeatures = cfg.flags.some((f) => /enable-webgpu-developer-features/.test(f));
  const env: BenchEnv = {
    runtime,
    engine: cfg.engine ?? 'unknown',
    userAgent: typeof navigator !== 'undefined' ? (navigator.userAgent ?? '') : '',
    adapter: {
      vendor: info.vendor ?? '',
      architecture: info.architecture ?? '',
      device: info.device ?? '',
      description: info.description ?? '',
      isFallbackAdapter: gpu.info.isFallbackAdapter,
      subgroupMinSize: info.subgroupMinSize,
      subgroupMaxSize: info.subgroupMaxSize,
    },
    adapterFeatures: [...gpu.adapter.features].sort(),
    deviceFeatures: [...gpu.device.features].sort(),
    limits,
    timestampQuery: ts,
    timestampNote: !ts
      ? 'no timestamp-query: wall time to onSubmittedWorkDone'
      : runtime === 'node'
        ? cfg.flags.some((f) => /disable-dawn-features=.*timestamp_quantization/.test(f))
          ? 'Dawn in Node with timestamp_quantization disabled: timestamps not quantized'
          : "Dawn in Node: timestamps quantized to 65.536 us (Dawn's default; --dawn-flags ...,disable-dawn-features=timestamp_quantization turns it off)"
        : devFeatures
          ? 'Chromium with WebGPU developer features: timestamps not quantized'
          : 'Chromium: timestamps quantized to 100 us',
    flags: cfg.flags,
    commit: cfg.commit,
    machine: '',
  };
  env.machine = cfg.machine ?? adapterSlug(env);
  return env;
}
