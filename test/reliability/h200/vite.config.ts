// Node bundle of test/reliability/h200/real-oom.ts -> out/reliability/real-oom.mjs (ignored), for a GPU
// machine without node_modules (../shared/gpu/README.md): only `webgpu` stays external.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'real-oom': resolve(root, 'test/reliability/h200/real-oom.ts') },
    outDir: resolve(root, 'out/reliability'),
    emptyOutDir: true,
    sourcemap: false,
    output: { entryFileNames: '[name].mjs', codeSplitting: false } as never,
  }),
);
