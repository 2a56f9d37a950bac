// Chromium launch flags (shared/TOOLING.md: WebGPU on SwiftShader, quiet and offline), one list for
// every headless Chromium of the project: vitest's browser project (vite.config.ts), the demo e2e test
// (test/e2e/demo.node.test.ts) and the benchmark host (bench/host/browser.ts, which adds
// --enable-webgpu-developer-features for unquantized timestamp-query). Plain TypeScript with no imports:
// vite bundles it into its config, vitest and tsx load it as is.

/** WebGPU on (SwiftShader on a CPU machine), no sandbox / shm (containers), no network or first-run UI. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--enable-unsafe-webgpu',
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * A fresh copy of CHROMIUM_FLAGS; `developerFeatures` adds --enable-webgpu-developer-features
 * (unquantized timestamp-query, for benchmarks) right after --enable-unsafe-webgpu.
 */
export function chromiumFlags(opts: { developerFeatures?: boolean } = {}): string[] {
  const [webgpu, ...rest] = CHROMIUM_FLAGS;
  return opts.developerFeatures ? [webgpu!, '--enable-webgpu-developer-features', ...rest] : [...CHROMIUM_FLAGS];
}
