// Library build, step 1 of 2 (`npm run build:lib`): the decoder worker as ONE self-contained ES module,
// dist/lib/decoder.worker.js (comlink and the WGSL `?raw` shaders inlined, no imports), so that plain
// pages, bundlers and the inline blob-URL fallback (vite.lib.config.ts) can all start it.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root,
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: resolve(root, 'dist/lib'),
    emptyOutDir: true, // step 1 owns dist/lib; step 2 adds to it
    target: 'es2022',
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    lib: { entry: resolve(root, 'src/worker/worker-entry.ts'), formats: ['es'], fileName: () => 'decoder.worker.js' },
    rolldownOptions: { output: { codeSplitting: false } },
  },
});
