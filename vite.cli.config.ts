// Node build of the CLI: src/node/cli.ts -> dist/cli.js (and bench/node-entry.ts -> dist/bench-node.js
// when that file exists). ESM for node20; WGSL `?raw` imports are inlined as strings; `webgpu` (native
// Dawn addon) and node builtins stay external, everything else is bundled.
// Run by `npm run build:cli` and by `npm ci` / `npm install` through the `prepare` script.
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));
const entries: Record<string, string> = { cli: resolve(root, 'src/node/cli.ts') };
const benchEntry = resolve(root, 'bench/node-entry.ts');
if (existsSync(benchEntry)) entries['bench-node'] = benchEntry;
if (!existsSync(entries.cli!)) throw new Error(`vite.cli.config.ts: ${entries.cli} does not exist`);

const external = ['webgpu', /^webgpu\//, /^node:/, ...builtinModules];

export default defineConfig({
  root,
  publicDir: false,
  logLevel: 'warn',
  ssr: { target: 'node', noExternal: true, external: ['webgpu'] },
  build: {
    ssr: true,
    target: 'node20',
    outDir: resolve(root, 'dist'),
    emptyOutDir: false, // dist/demo lives there too
    copyPublicDir: false,
    minify: false,
    sourcemap: true,
    reportCompressedSize: false,
    rolldownOptions: {
      input: entries,
      external,
      output: {
        format: 'es',
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
      },
    },
  },
});
