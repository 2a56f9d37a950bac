// `--node`: builds the one-file Node bundle (bench/vite.node.config.ts -> out/bench/bench-node.mjs) unless
// `--bundle FILE` names one, and runs it with the remaining arguments (it writes the report itself).
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import type { BenchArgs } from '../lib/args';
import { repoRoot } from './git';

/** The arguments for the bundle: everything but the host-only --node and --bundle. */
function forwarded(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i]!;
    if (a === '--node') continue;
    if (a === '--bundle') {
      i++;
      continue;
    }
    if (a.startsWith('--bundle=')) continue;
    out.push(a);
  }
  return out;
}

export async function runNode(a: BenchArgs): Promise<number> {
  let bundle = a.bundle ? resolve(a.bundle) : join(repoRoot, 'out', 'bench', 'bench-node.mjs');
  if (!a.bundle) {
    const t0 = performance.now();
    await build({ configFile: join(repoRoot, 'bench', 'vite.node.config.ts'), logLevel: 'warn' });
    console.log(`[bench] built ${bundle} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  bundle = resolve(bundle);
  const child = spawn(process.execPath, [bundle, ...forwarded(a.raw)], { cwd: repoRoot, stdio: 'inherit' });
  return new Promise((res) => {
    child.on('exit', (code, signal) => res(code ?? (signal ? 1 : 0)));
    child.on('error', (e) => {
      console.error(`bench: could not start ${bundle}: ${e.message}`);
      res(1);
    });
  });
}
