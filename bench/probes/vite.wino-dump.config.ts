// Node build of bench/probes/wino-dump.ts -> .h200/probe/wino-dump.js (scripts/vite-node-bundle.ts: WGSL
// inlined, `webgpu` external): npx vite build --config bench/probes/vite.wino-dump.config.ts
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'wino-dump': resolve(root, 'bench/probes/wino-dump.ts') },
    outDir: resolve(root, '.h200/probe'),
    emptyOutDir: false,
    sourcemap: false,
    output: { entryFileNames: '[name].js', codeSplitting: false },
  }),
);
