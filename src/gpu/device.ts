// Adapter and device request for the decoder: the adapter's maximum limits for everything the decoder
// sizes (buffers, bindings, workgroups), `shader-f16` when present and wanted, `timestamp-query` when
// present (benchmarks), and `device.lost` / `uncapturederror` wiring. The caller owns the device.
import { DecoderError } from './errors';
import { subgroupMatrixSupport } from './adapter';

export interface DecoderDeviceInfo {
  vendor: string;
  architecture: string;
  description: string;
  isFallbackAdapter: boolean;
}

export interface DecoderDevice {
  device: GPUDevice;
  adapter: GPUAdapter;
  /** true when the device has `shader-f16`: storage may then be f16 (Elem = 'f16'). */
  f16: boolean;
  /**
   * Tensor cores through `chromium-experimental-subgroup-matrix` (16x16x16 f16 -> f32; Dawn with
   * allow_unsafe_apis, or Chrome with the experimental flags): conv3d-mma can run, one subgroup of
   * `subgroupSize` invocations per workgroup. Absent elsewhere: the portable kernels run.
   */
  mma?: { subgroupSize: number };
  info: DecoderDeviceInfo;
}

export interface RequestDecoderDeviceOptions {
  adapter?: GPUAdapter;
  /** default true: enable `shader-f16` when the adapter has it. */
  wantF16?: boolean;
  powerPreference?: GPUPowerPreference;
}

/** Limits raised to the adapter's maximum (those the kernels and the arena depend on). */
const RAISED_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxUniformBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'maxDynamicUniformBuffersPerPipelineLayout',
  'maxBindGroups',
  'maxBindingsPerBindGroup',
] as const;

/** Requests a WebGPU device suited to the decoder; throws DecoderError('no-webgpu') when there is none. */
export async function requestDecoderDevice(opts: RequestDecoderDeviceOptions = {}): Promise<DecoderDevice> {
  const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  let adapter = opts.adapter ?? null;
  if (!adapter) {
    if (!gpu)
      throw new DecoderError(
        'no-webgpu',
        'WebGPU is not available: navigator.gpu is undefined (browser without WebGPU, an insecure context, ' + 'or Node without the `webgpu` package installed as navigator.gpu)',
      );
    const req: GPURequestAdapterOptions = opts.powerPreference ? { powerPreference: opts.powerPreference } : {};
    adapter = await gpu.requestAdapter(req);
    if (!adapter) throw new DecoderError('no-webgpu', 'WebGPU is present but requestAdapter() returned null (no usable adapter)');
  }

  const requiredLimits: Record<string, number> = {};
  const limits = adapter.limits as unknown as Record<string, number | undefined>;
  for (const name of RAISED_LIMITS) {
    const v = limits[name];
    if (typeof v === 'number') requiredLimits[name] = v;
  }
  const f16 = opts.wantF16 !== false && adapter.features.has('shader-f16');
  const requiredFeatures: GPUFeatureName[] = [];
  if (f16) requiredFeatures.push('shader-f16');
  if (adapter.features.has('timestamp-query')) requiredFeatures.push('timestamp-query');
  const sgm = subgroupMatrixSupport(adapter as unknown as Parameters<typeof subgroupMatrixSupport>[0]);
  const mma = f16 && sgm.ok;
  if (mma) {
    requiredFeatures.push('chromium-experimental-subgroup-matrix' as GPUFeatureName);
    if (adapter.features.has('subgroups')) requiredFeatures.push('subgroups' as GPUFeatureName);
  }

  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ label: 'wan-vae', requiredLimits, requiredFeatures });
  } catch (e) {
    throw new DecoderError('limits', `requestDevice failed with limits ${JSON.stringify(requiredLimits)}: ${String(e)}`, {
      cause: e,
    });
  }
  wireDevice(device);
  return { device, adapter, f16, info: adapterInfo(adapter), ...(mma ? { mma: { subgroupSize: sgm.subgroupSize } } : {}) };
}

function adapterInfo(adapter: GPUAdapter): DecoderDeviceInfo {
  const info = (adapter.info ?? {}) as Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean };
  const legacy = (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? legacy ?? false),
  };
}

/** Logs device loss and uncaptured errors with the device label (decoder.ts reacts to a loss: 'device-lost', a new device next time). */
function wireDevice(device: GPUDevice): void {
  void device.lost.then((info) => {
    if (info.reason === 'destroyed') return;
    console.error(`[${device.label}] WebGPU device lost (${info.reason}): ${info.message}`);
  });
  device.addEventListener('uncapturederror', (ev) => {
    const err = (ev as GPUUncapturedErrorEvent).error;
    console.error(`[${device.label}] uncaptured WebGPU ${err.constructor.name}: ${err.message}`);
  });
}
