// The Node-bundle build config shared by vite.cli.config.ts (dist/cli.js, dist/bench-node.js),
// bench/vite.node.config.ts (out/bench/bench-node.mjs) and bench/onnx/vite.ort-node.config.ts
// (out/onnx-node/ort-node.js): an SSR build for node20, ESM, unminified, WGSL `?raw` imports inlined as
// strings; `webgpu` (native Dawn addon) and node builtins stay external, everything else is bundled.
// Each config passes what differs: entries, output folder, source maps, extra externals, file names.
import { builtinModules } from 'node:module';
import type { PluginOption, Rolldown, UserConfig } from 'vite';

export interface NodeBundleOptions {
  /** the repository root (vite's root) */
  root: string;
  /** entry name -> absolute path */
  input: Record<string, string>;
  outDir: string;
  emptyOutDir: boolean;
  sourcemap: boolean;
  /** externals besides `webgpu`, `webgpu/...`, `node:...` and the node builtins (e.g. /^onnxruntime-web/) */
  external?: (string | RegExp)[];
  /** rolldown output options besides `format: 'es'` (file names, code splitting) */
  output: Rolldown.OutputOptions;
  plugins?: PluginOption[];
}

export function nodeBundleConfig(o: NodeBundleOptions): UserConfig {
  return {
    root: o.root,
    publicDir: false,
    logLevel: 'warn',
    ...(o.plugins ? { plugins: o.plugins } : {}),
    ssr: { target: 'node', noExternal: true, external: ['webgpu'] },
    build: {
      ssr: true,
      target: 'node20',
      outDir: o.outDir,
      emptyOutDir: o.emptyOutDir,
      copyPublicDir: false,
      minify: false,
      sourcemap: o.sourcemap,
      reportCompressedSize: false,
      rolldownOptions: {
        input: o.input,
        external: ['webgpu', /^webgpu\//, /^node:/, ...(o.external ?? []), ...builtinModules],
        output: { format: 'es', ...o.output },
      },
    },
  };
}
