// Node build of bench/probes/wino-gemm.ts -> .h200-stock/probe/wino-gemm.js (scripts/vite-node-bundle.ts: WGSL
// inlined, `webgpu` external): npx vite build --config bench/probes/vite.wino-gemm.config.ts
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'wino-gemm': resolve(root, 'bench/probes/wino-gemm.ts') },
    outDir: resolve(root, '.h200-stock/probe'),
    emptyOutDir: true,
    sourcemap: false,
    output: { entryFileNames: '[name].js', codeSplitting: false },
  }),
);
