// Node bundle of bench/onnx/ort-node.ts -> out/onnx-node/ort-node.js (one ESM file; WGSL `?raw` inlined;
// `webgpu`, node builtins and onnxruntime-web stay external: ort-node loads ort.webgpu.min.mjs from
// --dist or node_modules at run time). Build: npx vite build --config bench/onnx/vite.ort-node.config.ts
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig({
  root,
  publicDir: false,
  logLevel: 'warn',
  ssr: { target: 'node', noExternal: true, external: ['webgpu'] },
  build: {
    ssr: true,
    target: 'node20',
    outDir: resolve(root, 'out/onnx-node'),
    emptyOutDir: true,
    copyPublicDir: false,
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      input: { 'ort-node': resolve(root, 'bench/onnx/ort-node.ts') },
      external: ['webgpu', /^webgpu\//, /^node:/, /^onnxruntime-web/, ...builtinModules],
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
    },
  },
});
