// bench/levers/pool-throughput.ts -> .h200-levers/pool-throughput.js (one Node file; `webgpu` external), for a GPU machine.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'pool-throughput': resolve(root, 'bench/levers/pool-throughput.ts') },
    outDir: resolve(root, '.h200-levers'),
    emptyOutDir: false,
    sourcemap: false,
    output: { entryFileNames: '[name].js', codeSplitting: false },
  }),
);
