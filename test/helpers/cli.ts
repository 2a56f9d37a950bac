// The `wan-vae` CLI as a child process, for Node tests: the clone's own launcher and build
// (bin/wan-vae.mjs over dist/cli.js, which scripts/setup.sh and `npm run build:cli` make) when that build
// is newer than src/, shaders/ and the build config, so CI builds the CLI once; else (sources edited since)
// the launcher copied over a build of the current sources into node_modules/.cache/wan-vae-cli-<name>/
// (inside the repo, so `webgpu` resolves from node_modules), rebuilt when stale, one folder per test file
// (`name`): files may run in parallel. No test writes dist/cli.js (the packed-tarball consumer test builds
// in its own staging folder).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** Newest modification time of the files under `dir` ending in one of `exts`. */
function newest(dir: string, exts: string[]): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, exts));
    else if (exts.some((x) => e.name.endsWith(x))) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

/** Modification time of `file`, 0 when it is missing. */
const mtime = (file: string) => (existsSync(file) ? statSync(file).mtimeMs : 0);

/** The launcher of a CLI built from the current sources: the clone's own when fresh, else test file `name`'s build (made when stale). */
export function buildCli(name: string): string {
  const sources = Math.max(newest(join(repoRoot, 'src'), ['.ts']), newest(join(repoRoot, 'shaders'), ['.wgsl']), statSync(join(repoRoot, 'vite.cli.config.ts')).mtimeMs);
  if (mtime(join(repoRoot, 'dist', 'cli.js')) >= sources) return join(repoRoot, 'bin', 'wan-vae.mjs');
  const root = join(repoRoot, 'node_modules', '.cache', `wan-vae-cli-${name}`);
  const launcher = join(root, 'bin', 'wan-vae.mjs');
  mkdirSync(join(root, 'bin'), { recursive: true });
  copyFileSync(join(repoRoot, 'bin', 'wan-vae.mjs'), launcher);
  if (mtime(join(root, 'dist', 'cli.js')) >= sources) return launcher;
  // `npm run build:cli` with another output folder
  const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--config', 'vite.cli.config.ts', '--logLevel', 'warn', '--outDir', join(root, 'dist')], { cwd: repoRoot, encoding: 'utf8', timeout: 240_000 });
  if (r.status !== 0) throw new Error(`building the CLI failed (${r.status ?? r.signal}): ${r.stderr}`);
  return launcher;
}

/** stderr lines without the two lines Dawn prints at device creation on lavapipe (README) */
export function errLines(stderr: string): string[] {
  return stderr.split(/[\n\r]/).filter((l) => l.trim() && !/^Warning: maxDynamic\w+ artificially reduced/.test(l));
}

export interface CliRun {
  code: number;
  stdout: string;
  errLines: string[];
  /** the last stdout line parsed as JSON (--json), else null */
  json: Record<string, unknown> | null;
}

/** Runs `node launcher ...args` in `cwd` (extra environment `env`), synchronously. */
export function runCli(launcher: string, cwd: string, args: string[], env: Record<string, string> = {}): CliRun {
  const r = spawnSync(process.execPath, [launcher, ...args], { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(last) as Record<string, unknown>;
  } catch {
    // not --json
  }
  return { code: r.status ?? -1, stdout: r.stdout, errLines: errLines(r.stderr), json };
}
