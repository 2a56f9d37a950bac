#!/usr/bin/env node
// `npm test`: vitest over both projects (node: Dawn + lavapipe, browser: Chromium + SwiftShader), extra
// args forwarded (e.g. `npm test -- --project node`, `npm test -- test/smoke.test.ts`), then the wgpu run
// (test/wgpu/run.ts through Deno's WebGPU, over dist/lib built here first) when no args are given or
// they are all test/wgpu paths (`npm test -- test/wgpu`: that run alone). The last stdout line is always
// `N passed, N failed, N skipped` over both (read by CI); the exit code is non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const jsonFile = join(tmpdir(), `wan-vae-vitest-${process.pid}-${Date.now()}.json`);
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const extra = process.argv.slice(2);
const wgpuOnly = extra.length > 0 && extra.every((a) => /^(\.\/)?test\/wgpu(\/|$)/.test(a));
const withWgpu = extra.length === 0 || wgpuOnly;
const args = ['run', '--reporter=default', '--reporter=json', `--outputFile=${jsonFile}`, ...extra];
const [cmd, cmdArgs] = existsSync(vitestBin) ? [process.execPath, [vitestBin, ...args]] : ['npx', ['vitest', ...args]];

const started = Date.now();
const run = wgpuOnly ? { status: 0, signal: null, error: null } : spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const wgpu = withWgpu ? wgpuRun() : null;

/**
 * test/wgpu/run.ts through Deno (the `deno` devDependency) over dist/lib, built here first (the lib's two
 * vite builds, as `npm run build:lib` makes them); its counts from its last line. No deno: skipped with the
 * reason, a failure under CI.
 */
function wgpuRun() {
  const t0 = Date.now();
  const ci = !!process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false';
  const deno = join(root, 'node_modules', '.bin', 'deno');
  if (!existsSync(deno)) {
    const why = 'test/wgpu/run.ts: no node_modules/.bin/deno (npm install: deno is a devDependency)';
    console.error(why);
    return ci ? { passed: 0, failed: 1, skipped: 0, seconds: 0 } : { passed: 0, failed: 0, skipped: 1, seconds: 0, why };
  }
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const config of ['vite.worker.config.ts', 'vite.lib.config.ts']) {
    const b = spawnSync(process.execPath, [vite, 'build', '--config', config, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) {
      console.error(`test/run.mjs: the library build for the wgpu run failed (vite build --config ${config}: exit code ${b.status})`);
      return { passed: 0, failed: 1, skipped: 0, seconds: (Date.now() - t0) / 1000 };
    }
  }
  const r = spawnSync(deno, ['run', '--unstable-webgpu', '--unstable-sloppy-imports', '--allow-read', '--allow-env', 'test/wgpu/run.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  process.stdout.write(r.stdout ?? '');
  const m = /^(\d+) passed, (\d+) failed, (\d+) skipped\s*$/m.exec((r.stdout ?? '').trim().split('\n').at(-1) ?? '');
  const secs = (Date.now() - t0) / 1000;
  if (!m) {
    const why = r.error ? r.error.message : r.signal ? `signal ${r.signal}` : `exit code ${r.status}`;
    console.error(`test/run.mjs: test/wgpu/run.ts printed no counts (${why})`);
    return { passed: 0, failed: 1, skipped: 0, seconds: secs };
  }
  const [passed, failed, skipped] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return { passed, failed: failed || (r.status !== 0 ? 1 : 0), skipped, seconds: secs };
}

let report = null;
try {
  report = wgpuOnly ? {} : JSON.parse(readFileSync(jsonFile, 'utf8'));
} catch {
  // missing or unreadable: vitest crashed before writing it
}
rmSync(jsonFile, { force: true });

if (!report) {
  const why = run.error ? run.error.message : run.signal ? `signal ${run.signal}` : `exit code ${run.status}`;
  console.error(`test/run.mjs: vitest wrote no JSON report (${why}) after ${seconds} s`);
  console.log(`${wgpu?.passed ?? 0} passed, ${1 + (wgpu?.failed ?? 0)} failed, ${wgpu?.skipped ?? 0} skipped`);
  process.exit(1);
}

const passed = report.numPassedTests ?? 0;
let failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A file that fails to load (syntax error, throwing import) has no failed tests: count it as one failure.
for (const file of report.testResults ?? []) {
  const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed').length;
  if (file.status === 'failed' && failedTests === 0) {
    console.error(`test/run.mjs: ${file.name} failed outside any test: ${file.message ?? ''}`);
    failed += 1;
  }
}
// Vitest failing for other reasons (unhandled errors, no test files found, crash after the report).
if (failed === 0 && run.status !== 0) {
  const why = run.signal ? `signal ${run.signal}` : `exit code ${run.status}`;
  console.error(`test/run.mjs: vitest ended with ${why} although no test failed (unhandled error?)`);
  failed = 1;
}
// Why tests were skipped: the reason test/helpers/need.ts records (task meta `skipReason`), else a static
// skipIf/skip of the test file (it names its condition in the test's title or a comment).
const reasons = new Map();
for (const file of report.testResults ?? [])
  for (const t of file.assertionResults ?? [])
    if (t.status === 'skipped' || t.status === 'pending' || t.status === 'todo') {
      const why = t.meta?.skipReason ?? 'static skip in the test file (skipIf / skip / runIf, or filtered out)';
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
for (const [why, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.error(`test/run.mjs: skipped ${n}: ${why}`);
if (!wgpuOnly) console.error(`test/run.mjs: vitest took ${seconds} s`);
if (wgpu) {
  if (wgpu.why) console.error(`test/run.mjs: skipped 1: ${wgpu.why}`);
  console.error(`test/run.mjs: wgpu (Deno) ${wgpu.passed} passed, ${wgpu.failed} failed, ${wgpu.skipped} skipped in ${wgpu.seconds.toFixed(1)} s`);
}
const all = wgpu ? [passed + wgpu.passed, failed + wgpu.failed, skipped + wgpu.skipped] : [passed, failed, skipped];
console.log(`${all[0]} passed, ${all[1]} failed, ${all[2]} skipped`);
process.exit(all[1] > 0 ? 1 : 0);
