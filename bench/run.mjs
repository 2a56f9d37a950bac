#!/usr/bin/env node
// `npm run bench`: the benchmark suite in headless Chromium (SwiftShader on a CPU machine; the suite
// runs in a dedicated worker of bench/index.html served by vite on 127.0.0.1), or with `--node` in
// Node through Dawn (builds out/bench/bench-node.mjs with bench/vite.node.config.ts and runs it;
// `--bundle FILE` runs an existing build such as dist/bench-node.js). Arguments: bench/lib/args.ts.
//   npm run bench -- --quick                     npm run bench:node -- --quick --only conv3d,decode
// Writes bench/results/<machine>-<date>[-quick].{json,md,svg} and compares with bench/baselines/<machine>.json
// (regressions > 10% flagged). The host code is TypeScript (bench/host/), loaded through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./host/main.ts');
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
}
