// One-file Node bundle of the benchmark for a GPU machine (shared/gpu/README.md: a bare machine gets one
// .mjs importing only `webgpu` and node builtins): bench/node-entry.ts -> out/bench/bench-node.mjs, plus
// onnxruntime-web's WebGPU build (ort.webgpu.min.mjs and its asyncify wasm, ~26 MB) copied to
// out/bench/ort/ for --ort-dist. Build: npx vite build --config bench/vite.node.config.ts
// (bench/run.mjs --node builds it too). `npm run build:cli` builds the same entry into dist/bench-node.js
// (with shared chunks under dist/chunks/).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire, builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(root, 'out/bench');
const ORT_FILES = ['ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];

function copyOrt() {
  return {
    name: 'copy-onnxruntime-web',
    closeBundle() {
      const dist = dirname(createRequire(join(root, 'package.json')).resolve('onnxruntime-web'));
      mkdirSync(join(outDir, 'ort'), { recursive: true });
      for (const f of ORT_FILES) copyFileSync(join(dist, f), join(outDir, 'ort', f));
    },
  };
}

export default defineConfig({
  root,
  publicDir: false,
  logLevel: 'warn',
  plugins: [copyOrt()],
  ssr: { target: 'node', noExternal: true, external: ['webgpu'] },
  build: {
    ssr: true,
    target: 'node20',
    outDir,
    emptyOutDir: true,
    copyPublicDir: false,
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      input: { 'bench-node': resolve(root, 'bench/node-entry.ts') },
      // onnxruntime-web stays out: Node loads it from --ort-dist (the browser import path is never taken)
      external: ['webgpu', /^webgpu\//, /^node:/, /^onnxruntime-web/, ...builtinModules],
      output: { format: 'es', entryFileNames: '[name].mjs', codeSplitting: false },
    },
  },
});
