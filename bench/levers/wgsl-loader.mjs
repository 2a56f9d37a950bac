// Loader hook of register-wgsl.mjs: a `.wgsl` / `.wgsl?raw` import is the file's text as the default export.
import { readFileSync } from 'node:fs';
export async function load(url, ctx, next) {
  if (/\.wgsl(\?raw)?$/.test(url)) return { format: 'module', shortCircuit: true, source: `export default ${JSON.stringify(readFileSync(new URL(url.replace(/\?raw$/, '')), 'utf8'))};` };
  return next(url, ctx);
}
