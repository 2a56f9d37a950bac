// One-file Node bundle of the benchmark for a GPU machine (shared/gpu/README.md: a bare machine gets one
// .mjs importing only `webgpu` and node builtins): bench/node-entry.ts -> out/bench/bench-node.mjs, plus
// onnxruntime-web's WebGPU build (ort.webgpu.min.mjs and its asyncify wasm, ~26 MB) copied to
// out/bench/ort/ for --ort-dist. Build: npx vite build --config bench/vite.node.config.ts
// (bench/run.mjs --node builds it too). `npm run build:cli` builds the same entry into dist/bench-node.js
// (with shared chunks under dist/chunks/). The shared Node-bundle settings: scripts/vite-node-bundle.ts.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../scripts/vite-node-bundle.ts';

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

export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'bench-node': resolve(root, 'bench/node-entry.ts') },
    outDir,
    emptyOutDir: true,
    sourcemap: false,
    // onnxruntime-web stays out: Node loads it from --ort-dist (the browser import path is never taken)
    external: [/^onnxruntime-web/],
    output: { entryFileNames: '[name].mjs', codeSplitting: false },
    plugins: [copyOrt()],
  }),
);
