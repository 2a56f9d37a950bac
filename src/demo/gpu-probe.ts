// What the page can learn about WebGPU before decoding: is it there, the adapter, shader-f16, and the
// per-buffer limits the planner's largest buffer is checked against. The decoder's own device lives in
// the worker; this probe only reads the adapter (no device is created here).

export interface GpuProbe {
  /** navigator.gpu exists and an adapter was returned */
  available: boolean;
  /** why it is not available (for the banner) */
  reason: string;
  description: string;
  fallback: boolean;
  f16: boolean;
  /** min(maxStorageBufferBindingSize, maxBufferSize): the largest buffer a decode may bind */
  maxBinding: number;
  /** the adapter's buffer limits (the decoder's device asks for the adapter's maximum): what fitPlan fits to */
  limits: { maxStorageBufferBindingSize: number; maxBufferSize: number };
}

const NONE: GpuProbe = { available: false, reason: '', description: 'no WebGPU', fallback: false, f16: false, maxBinding: 0, limits: { maxStorageBufferBindingSize: 0, maxBufferSize: 0 } };

export async function probeGpu(): Promise<GpuProbe> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) {
    const why = window.isSecureContext
      ? 'this browser has no WebGPU (navigator.gpu is undefined). Use a recent Chrome, Edge or Safari, or Firefox with WebGPU enabled.'
      : 'this page is not in a secure context (open it over https or http://localhost / 127.0.0.1): WebGPU is only offered there.';
    return { ...NONE, reason: why };
  }
  let adapter: GPUAdapter | null = null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return { ...NONE, reason: `requestAdapter() failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!adapter) return { ...NONE, reason: 'WebGPU is present but no adapter is available (blocklisted GPU, or GPU access disabled).' };
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const description = [info.vendor, info.architecture, info.description].filter(Boolean).join(' / ') || 'unknown adapter';
  return {
    available: true,
    reason: '',
    description,
    fallback: Boolean(info.isFallbackAdapter),
    f16: adapter.features.has('shader-f16'),
    maxBinding: Math.min(adapter.limits.maxStorageBufferBindingSize, adapter.limits.maxBufferSize),
    limits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize },
  };
}
