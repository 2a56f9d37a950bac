// Consumer harness (test/consumers/consumers.node.test.ts): packs the package as a user gets it and runs
// the fixtures against the tarball, outside the repository (no self-reference, no repo node_modules).
// - pack(): copies what the build needs into a temp stage (node_modules linked to the repo's), runs
//   `npm pack` there (prepack: the library build and the CLI), so the repo's dist is untouched.
// - install(): a consumer folder with the tarball installed (`npm install --prefer-offline <tgz>`: the package from the
//   tarball, its one dependency @webgpu/types from npm's cache, filled by the repo's `npm ci`);
//   the fixtures are copied into subfolders and resolve the package from its node_modules (the vite
//   app has its own install: vite's dev server serves only files under the app). Each
//   fixture's package.json shows how an app installs and builds it; the build tools here are the repo's
//   copies (vite, typescript, webpack through its API, esbuild), run with the fixture as cwd.
// - serve() + openPage(): a static server and headless Chromium (SwiftShader WebGPU) that waits for the
//   page's `window.wanVaeResult`.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = join(repoRoot, 'test', 'consumers');
const bin = (pkg: string, rel: string) => join(repoRoot, 'node_modules', pkg, rel);
export const TOOLS = {
  vite: bin('vite', 'bin/vite.js'),
  tsc: bin('typescript', 'bin/tsc'),
  esbuild: bin('esbuild', 'bin/esbuild'),
  webpack: bin('webpack', 'lib/index.js'),
};

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Run a command to its end (no shell); never throws for a non-zero exit: the caller checks `code`. */
export function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    const p = spawn(cmd, args, { cwd: opts.cwd, env: { ...cleanEnv(), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (b: Buffer) => (stdout += b));
    p.stderr.on('data', (b: Buffer) => (stderr += b));
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 240_000);
    p.on('error', fail);
    p.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** Throws with the command's output when it failed. */
export function ok(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} exited with ${r.code}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`);
  return r;
}

/** Files and folders `npm pack` needs to build the package (prepack), copied as they are now. */
const STAGE = [
  'package.json',
  'README.md',
  'LICENSE',
  'bin',
  'docs',
  'src',
  'shaders',
  'scripts',
  'models',
  'tsconfig.json',
  'tsconfig.lib.json',
  'vite.worker.config.ts',
  'vite.lib.config.ts',
  'vite.cli.config.ts',
];

export interface Packed {
  work: string;
  tarball: string;
  /** bytes of the .tgz */
  size: number;
  /** bytes unpacked */
  unpackedSize: number;
  files: string[];
  /** bytes per top folder of the package (dist/lib, dist/types, ...) */
  folderBytes: Record<string, number>;
  seconds: number;
}

export async function pack(): Promise<Packed> {
  const work = mkdtempSync(join(tmpdir(), 'wan-vae-consumers-'));
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const p of STAGE) if (existsSync(join(repoRoot, p))) cpSync(join(repoRoot, p), join(stage, p), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules'), join(stage, 'node_modules'), 'dir');
  const r = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: stage, timeoutMs: 300_000 });
  if (r.code !== 0) removeWork(work);
  ok(r, 'npm pack');
  const info = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { filename: string; size: number; unpackedSize: number; files: { path: string; size: number }[] }[];
  const i = info[0]!;
  const folderBytes: Record<string, number> = {};
  for (const f of i.files) {
    const top = f.path
      .split('/')
      .slice(0, f.path.startsWith('dist/') ? 2 : 1)
      .join('/');
    folderBytes[top] = (folderBytes[top] ?? 0) + f.size;
  }
  return { work, tarball: join(work, i.filename), size: i.size, unpackedSize: i.unpackedSize, files: i.files.map((f) => f.path), folderBytes, seconds: r.seconds };
}

/** Bytes of every file under `dir` (apparent sizes, symlinks not followed). */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p, { throwIfNoEntry: false });
    if (!s) continue;
    total += s.isDirectory() ? treeBytes(p) : s.size;
  }
  return total;
}

export interface Installed {
  /** the consumer folder: node_modules with the package, and one subfolder per fixture */
  app: string;
  /** bytes of node_modules after installing the tarball (what a browser app adds: no native Dawn) */
  installBytes: number;
  /** bytes per installed package */
  packages: Record<string, number>;
  seconds: number;
}

export async function install(packed: Packed): Promise<Installed> {
  const app = join(packed.work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'wan-vae-consumers', private: true, type: 'module' }, null, 2));
  const r = ok(await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', packed.tarball], { cwd: app, timeoutMs: 180_000 }), 'npm install <tarball>');
  for (const name of readdirSync(fixturesDir)) {
    const src = join(fixturesDir, name);
    if (statSync(src).isDirectory()) cpSync(src, join(app, name), { recursive: true });
  }
  // the vite app gets its own node_modules, as an app has: vite's dev server serves only files under
  // the app's root (server.fs.allow), and the package's worker file must be one of them
  ok(await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', packed.tarball], { cwd: join(app, 'vite-app'), timeoutMs: 180_000 }), 'npm install <tarball> (vite-app)');
  const nm = join(app, 'node_modules');
  const names = readdirSync(nm)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(nm, n)).map((m) => `${n}/${m}`) : [n]));
  const packages = Object.fromEntries(names.map((n) => [n, treeBytes(join(nm, n))]));
  return { app, installBytes: treeBytes(nm), packages, seconds: r.seconds };
}

/** webpack through its Node API (webpack-cli is not a dependency of the repo) with the fixture's config. */
export async function webpackBuild(dir: string): Promise<Run> {
  const script = `
    import webpack from ${JSON.stringify(TOOLS.webpack)};
    const { default: config } = await import(${JSON.stringify(join(dir, 'webpack.config.mjs'))});
    webpack(config, (err, stats) => {
      if (err) { console.error(err); process.exit(1); }
      console.log(stats.toString({ colors: false, modules: false }));
      process.exit(stats.hasErrors() ? 1 : 0);
    });`;
  return run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm' };

/**
 * A static file server on 127.0.0.1 (WebGPU needs a secure context: localhost is one). `alias`: URL paths
 * answered with another path's file (a smaller input under the name a page asks for).
 */
export async function serve(root: string, alias: Record<string, string> = {}): Promise<{ url: string; close: () => Promise<void>; aliased: () => number }> {
  let aliased = 0;
  const server: Server = createServer((req, res) => {
    const asked = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (alias[asked]) aliased++;
    const path = alias[asked] ?? asked;
    let file = resolve(root, '.' + path);
    if (file !== root && !file.startsWith(root + sep)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())), aliased: () => aliased };
}

export interface PageOutcome {
  frames?: number;
  planned?: number;
  streamed?: number;
  size?: [number, number];
  error?: string;
  /** the worker scripts the page started (a blob: URL = the inline fallback) */
  workers: string[];
  consoleErrors: string[];
  seconds: number;
}

/** Open `url`, wait for `window.wanVaeResult` (the fixture's decode outcome). */
export async function openPage(browser: Browser, url: string, timeoutMs = 180_000): Promise<PageOutcome> {
  const t0 = performance.now();
  const page = await browser.newPage();
  const workers: string[] = [];
  const consoleErrors: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  try {
    await page.goto(url);
    const handle = await page.waitForFunction(() => (window as unknown as { wanVaeResult?: unknown }).wanVaeResult, undefined, { timeout: timeoutMs, polling: 250 });
    const result = (await handle.jsonValue()) as Omit<PageOutcome, 'workers' | 'consoleErrors' | 'seconds'>;
    return { ...result, workers, consoleErrors, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await page.close();
  }
}

/** The environment without vitest's variables (a fixture's vite must not think it runs under vitest). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'TEST') delete env[k];
  return env;
}

/** `vite` dev server of a fixture (child process); resolves with its URL once it listens. */
export async function viteDev(dir: string): Promise<{ url: string; stop: () => Promise<void>; log: () => string }> {
  const p = spawn(process.execPath, [TOOLS.vite, '--host', '127.0.0.1', '--port', '0', '--clearScreen', 'false'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() });
  let out = '';
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`vite dev did not start in 180 s:\n${out}`)), 180_000);
    const onData = (b: Buffer) => {
      // eslint-disable-next-line no-control-regex
      out += String(b).replace(/\x1b\[[0-9;]*m/g, '');
      const m = /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', (code) => fail(new Error(`vite dev exited with ${code}:\n${out}`)));
  });
  return {
    url,
    log: () => out,
    stop: () =>
      new Promise<void>((r) => {
        if (p.exitCode !== null) return r();
        p.once('exit', () => r());
        p.kill('SIGTERM');
      }),
  };
}

export function removeWork(work: string): void {
  rmSync(work, { recursive: true, force: true });
}
