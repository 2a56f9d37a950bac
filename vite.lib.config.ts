// Library build, step 2 of 2 (`npm run build:lib`, after vite.worker.config.ts): the package's ES
// modules in dist/lib for browsers and Node: index.js (the API), node.js (the API + installNodeWebGPU;
// `webgpu` and node builtins stay external, loaded only there), WGSL inlined as strings, comlink
// bundled (no runtime dependencies). Two rewrites make the worker loadable everywhere:
// - spawn.ts's worker URL becomes the literal `new Worker(new URL('./decoder.worker.js', import.meta.url),
//   { type: 'module' })`, which vite and webpack 5 recognise and bundle (vite's own worker plugin must
//   not bundle it here, hence a placeholder for import.meta.url until the chunk is rendered);
// - inline-source.ts is replaced by a lazy import of a chunk holding decoder.worker.js's text (the
//   blob-URL fallback), so it costs nothing until a worker file fails to load.
// Declarations: tsconfig.lib.json + scripts/lib-dts.mjs.
import { readFileSync } from 'node:fs';
import { dirname, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(root, 'dist/lib');
const spawnFile = resolve(root, 'src/worker/spawn.ts');
const inlineFile = resolve(root, 'src/worker/inline-source.ts');
const WORKER_FILE = 'decoder.worker.js';
const META_PLACEHOLDER = '__WAN_VAE_IMPORT_META_URL__';
const INLINE_ID = '\0wan-vae-worker-inline';
// the trained model's files (src/model/trained.ts): `new URL('../../models/...', import.meta.url)` must stay
// literal in dist/lib (lib mode would inline 16 MB as a data URL), for the app's bundler or Node to resolve
const trainedFile = resolve(root, 'src/model/trained.ts');
const MODEL_META_PLACEHOLDER = '__WAN_VAE_MODEL_META_URL__';

function trainedModelPlugin(): Plugin {
  return {
    name: 'wan-vae-lib-trained-model',
    enforce: 'pre',
    transform(code, id) {
      if (id !== trainedFile) return null;
      const url = /(new URL\('\.\.\/\.\.\/models\/[^']+', )import\.meta\.url\)/g;
      const n = code.match(url)?.length ?? 0;
      if (n !== 3) this.error(`vite.lib.config.ts: expected 3 model URLs in src/model/trained.ts, found ${n}`);
      return { code: code.replace(url, `$1${MODEL_META_PLACEHOLDER})`), map: null };
    },
    renderChunk(code) {
      if (!code.includes(MODEL_META_PLACEHOLDER)) return null;
      return { code: code.replaceAll(MODEL_META_PLACEHOLDER, 'import.meta.url'), map: null };
    },
  };
}

function workerPlugin(): Plugin {
  return {
    name: 'wan-vae-lib-worker',
    enforce: 'pre',
    transform(code, id) {
      if (id !== spawnFile) return null;
      const from = "new URL('./worker-entry.ts', import.meta.url)";
      if (!code.includes(from)) this.error(`vite.lib.config.ts: ${from} not found in src/worker/spawn.ts`);
      return { code: code.replace(from, `new URL('./${WORKER_FILE}', ${META_PLACEHOLDER})`), map: null };
    },
    resolveId(id, importer) {
      if (id === INLINE_ID) return id;
      if (importer && resolve(dirname(importer), id) + '.ts' === inlineFile) return inlineFile + '?lib';
      return null;
    },
    load(id) {
      if (id === inlineFile + '?lib') return `export const inlineWorkerSource = () => import(${JSON.stringify(INLINE_ID)}).then((m) => m.default);`;
      if (id === INLINE_ID) return `export default ${JSON.stringify(readFileSync(resolve(outDir, WORKER_FILE), 'utf8'))};`;
      return null;
    },
    renderChunk(code, chunk) {
      if (!code.includes(META_PLACEHOLDER)) return null;
      const rel = posix.relative(posix.dirname(chunk.fileName), WORKER_FILE);
      const url = new RegExp(`new URL\\((['"])\\./${WORKER_FILE.replace('.', '\\.')}\\1, ${META_PLACEHOLDER}\\)`, 'g');
      const out = code.replace(url, `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url)`);
      if (out.includes(META_PLACEHOLDER)) this.error(`vite.lib.config.ts: ${META_PLACEHOLDER} left in ${chunk.fileName}`);
      return { code: out, map: null };
    },
  };
}

export default defineConfig({
  root,
  publicDir: false,
  logLevel: 'warn',
  plugins: [workerPlugin(), trainedModelPlugin()],
  build: {
    outDir,
    emptyOutDir: false, // decoder.worker.js from step 1
    target: 'es2022',
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    lib: { entry: { index: resolve(root, 'src/index.ts'), node: resolve(root, 'src/node/index.ts'), trained: trainedFile }, formats: ['es'] },
    rolldownOptions: {
      external: ['webgpu', /^webgpu\//, /^node:/],
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: (c) => (c.facadeModuleId === INLINE_ID ? 'worker-inline.js' : 'api-[hash].js'),
      },
    },
  },
});
