// Node build of bench/probes/wino-fused.ts -> .h200/probe/wino-fused.js (scripts/vite-node-bundle.ts: WGSL
// inlined, `webgpu` external): npx vite build --config bench/probes/vite.wino-fused.config.ts
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'wino-fused': resolve(root, 'bench/probes/wino-fused.ts') },
    outDir: resolve(root, '.h200/probe'),
    emptyOutDir: false,
    sourcemap: false,
    output: { entryFileNames: '[name].js', codeSplitting: false },
  }),
);
