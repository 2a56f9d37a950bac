// Node build of bench/probes/attention-mma.ts and attention-mma-ops.ts -> .h200/probe/attention-mma{,-ops}.js (scripts/vite-node-bundle.ts: WGSL
// inlined, `webgpu` external): npx vite build --config bench/probes/vite.attention-mma.config.ts
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'attention-mma': resolve(root, 'bench/probes/attention-mma.ts'), 'attention-mma-ops': resolve(root, 'bench/probes/attention-mma-ops.ts') },
    outDir: resolve(root, '.h200/probe'),
    emptyOutDir: true,
    sourcemap: false,
    output: { entryFileNames: '[name].js' },
  }),
);
