// Compiles every shader of a `wan-vae shaders --dump DIR` folder on wgpu (Deno's WebGPU; naga):
//   deno run --unstable-webgpu --allow-read test/wgpu/compile-dir.ts DIR
// For each file of DIR/index.json: createShaderModule, its compilation messages, then
// createComputePipelineAsync (layout 'auto', entry point main) inside a validation error scope. Prints one
// line per failure and, last, one JSON line {adapter, compiled, failed: [{file, error}], seconds}; exit
// code 1 when any failed (a panic inside naga ends the process without that line).
export {};

declare const Deno: { args: string[]; readTextFile(path: string): Promise<string>; exit(code: number): never };

const dir = Deno.args[0];
if (!dir) {
  console.error('compile-dir.ts: usage: deno run --unstable-webgpu --allow-read test/wgpu/compile-dir.ts DIR');
  Deno.exit(2);
}
const index = JSON.parse(await Deno.readTextFile(`${dir}/index.json`)) as { file: string; key: string }[];
const adapter = await navigator.gpu?.requestAdapter();
if (!adapter) {
  console.error('compile-dir.ts: no WebGPU adapter (navigator.gpu missing or requestAdapter() returned null)');
  Deno.exit(2);
}
const features: GPUFeatureName[] = adapter.features.has('shader-f16') ? ['shader-f16'] : [];
const device = await adapter.requestDevice({
  requiredFeatures: features,
  requiredLimits: {
    maxComputeInvocationsPerWorkgroup: adapter.limits.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupSizeX: adapter.limits.maxComputeWorkgroupSizeX,
    maxComputeWorkgroupSizeY: adapter.limits.maxComputeWorkgroupSizeY,
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
    maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage,
  },
});
const t0 = performance.now();
const failed: { file: string; error: string }[] = [];
for (const { file } of index) {
  const code = await Deno.readTextFile(`${dir}/${file}`);
  device.pushErrorScope('validation');
  let error = '';
  try {
    const module = device.createShaderModule({ label: file, code });
    const info = await module.getCompilationInfo();
    error = info.messages
      .filter((m) => m.type === 'error')
      .map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`)
      .join('; ');
    if (!error) await device.createComputePipelineAsync({ label: file, layout: 'auto', compute: { module, entryPoint: 'main' } });
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const scoped = await device.popErrorScope();
  if (!error && scoped) error = scoped.message;
  if (error) {
    failed.push({ file, error });
    console.log(`FAIL ${file}: ${error}`);
  }
}
const i = adapter.info;
console.log(JSON.stringify({ adapter: `${i.vendor} ${i.architecture} ${i.description}`.trim(), compiled: index.length - failed.length, failed, seconds: (performance.now() - t0) / 1000 }));
Deno.exit(failed.length ? 1 : 0);
