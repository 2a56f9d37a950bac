// Node bundle of bench/onnx/ort-node.ts -> out/onnx-node/ort-node.js (one ESM file; WGSL `?raw` inlined;
// `webgpu`, node builtins and onnxruntime-web stay external: ort-node loads ort.webgpu.min.mjs from
// --dist or node_modules at run time). Build: npx vite build --config bench/onnx/vite.ort-node.config.ts
// The shared Node-bundle settings: scripts/vite-node-bundle.ts.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { nodeBundleConfig } from '../../scripts/vite-node-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig(
  nodeBundleConfig({
    root,
    input: { 'ort-node': resolve(root, 'bench/onnx/ort-node.ts') },
    outDir: resolve(root, 'out/onnx-node'),
    emptyOutDir: true,
    sourcemap: false,
    external: [/^onnxruntime-web/],
    output: { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
  }),
);
