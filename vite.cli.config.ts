// Node build of the CLI: src/node/cli.ts -> dist/cli.js (and bench/node-entry.ts -> dist/bench-node.js
// when that file exists). ESM for node20; WGSL `?raw` imports are inlined as strings; `webgpu` (native
// Dawn addon) and node builtins stay external, everything else is bundled (scripts/vite-node-bundle.ts).
// Run by `npm run build:cli` (scripts/setup.sh runs it when dist/cli.js is missing) and by `npm pack` (prepack).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from './scripts/vite-node-bundle.ts';

const root = dirname(fileURLToPath(import.meta.url));
const entries: Record<string, string> = { cli: resolve(root, 'src/node/cli.ts') };
const benchEntry = resolve(root, 'bench/node-entry.ts');
if (existsSync(benchEntry)) entries['bench-node'] = benchEntry;
if (!existsSync(entries.cli!)) throw new Error(`vite.cli.config.ts: ${entries.cli} does not exist`);

export default defineConfig(
  nodeBundleConfig({
    root,
    input: entries,
    outDir: resolve(root, 'dist'),
    emptyOutDir: false, // dist/demo lives there too
    sourcemap: true,
    output: {
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
    },
  }),
);
