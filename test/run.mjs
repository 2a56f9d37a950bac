#!/usr/bin/env node
// `npm test`: vitest over both projects (node: Dawn + lavapipe, browser: Chromium + SwiftShader), extra
// args forwarded (e.g. `npm test -- --project node`, `npm test -- test/smoke.test.ts`), and the wgpu run
// (test/wgpu/run.ts through Deno's WebGPU, over dist/lib built here first) when no args are given or
// they are all test/wgpu paths (`npm test -- test/wgpu`: that run alone). The wgpu run goes beside vitest,
// not after it (no vitest file reads the repo's dist/lib; vitest's two projects leave CPU idle on this
// 2-core machine), its output held back and printed after vitest's. The last stdout line is always
// `N passed, N failed, N skipped` over both (read by CI); the exit code is non-zero on any failure.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// WAN_TEST_REPORT=FILE keeps vitest's JSON report there (per-file durations: which files make the run long)
const keepReport = process.env.WAN_TEST_REPORT;
const jsonFile = keepReport ? resolve(keepReport) : join(tmpdir(), `wan-vae-vitest-${process.pid}-${Date.now()}.json`);
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const extra = process.argv.slice(2);
const wgpuOnly = extra.length > 0 && extra.every((a) => /^(\.\/)?test\/wgpu(\/|$)/.test(a));
const withWgpu = extra.length === 0 || wgpuOnly;
const args = ['run', '--reporter=default', '--reporter=json', `--outputFile=${jsonFile}`, ...extra];
const [cmd, cmdArgs] = existsSync(vitestBin) ? [process.execPath, [vitestBin, ...args]] : ['npx', ['vitest', ...args]];

/**
 * Runs a command to its end: { status, signal, error, stdout, stderr } (stdout / stderr '' where inherited).
 * `output`: 'inherit' (the terminal) or 'pipe' (collected, UTF-8).
 */
function runAsync(command, args, opts, output = 'pipe') {
  return new Promise((done) => {
    const stdio = output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'];
    const p = spawn(command, args, { ...opts, stdio });
    let stdout = '',
      stderr = '';
    p.stdout?.setEncoding('utf8').on('data', (d) => (stdout += d));
    p.stderr?.setEncoding('utf8').on('data', (d) => (stderr += d));
    p.on('error', (error) => done({ status: null, signal: null, error, stdout, stderr }));
    p.on('close', (status, signal) => done({ status, signal, error: null, stdout, stderr }));
  });
}

const started = Date.now();
const wgpuPending = withWgpu ? wgpuRun() : Promise.resolve(null);
const run = wgpuOnly ? { status: 0, signal: null, error: null } : await runAsync(cmd, cmdArgs, { cwd: root }, 'inherit');
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const wgpu = await wgpuPending;
if (wgpu) {
  process.stderr.write(wgpu.stderr);
  process.stdout.write(wgpu.stdout);
}

/**
 * test/wgpu/run.ts through Deno (the `deno` devDependency) over dist/lib, built here first (the lib's two
 * vite builds, as `npm run build:lib` makes them); its counts from its last line. No deno: skipped with the
 * reason, a failure under CI.
 */
async function wgpuRun() {
  const t0 = Date.now();
  let stderr = '';
  const ci = !!process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false';
  const deno = join(root, 'node_modules', '.bin', 'deno');
  if (!existsSync(deno)) {
    const why = 'test/wgpu/run.ts: no node_modules/.bin/deno (npm install: deno is a devDependency)';
    return ci ? { passed: 0, failed: 1, skipped: 0, seconds: 0, stdout: '', stderr: `${why}\n` } : { passed: 0, failed: 0, skipped: 1, seconds: 0, why, stdout: '', stderr: `${why}\n` };
  }
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const config of ['vite.worker.config.ts', 'vite.lib.config.ts']) {
    const b = await runAsync(process.execPath, [vite, 'build', '--config', config, '--logLevel', 'warn'], { cwd: root });
    stderr += b.stdout + b.stderr;
    if (b.status !== 0) {
      stderr += `test/run.mjs: the library build for the wgpu run failed (vite build --config ${config}: exit code ${b.status})\n`;
      return { passed: 0, failed: 1, skipped: 0, seconds: (Date.now() - t0) / 1000, stdout: '', stderr };
    }
  }
  const r = await runAsync(deno, ['run', '--unstable-webgpu', '--unstable-sloppy-imports', '--allow-read', '--allow-env', 'test/wgpu/run.ts'], {
    cwd: root,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  stderr += r.stderr;
  const m = /^(\d+) passed, (\d+) failed, (\d+) skipped\s*$/m.exec((r.stdout ?? '').trim().split('\n').at(-1) ?? '');
  const secs = (Date.now() - t0) / 1000;
  if (!m) {
    const why = r.error ? r.error.message : r.signal ? `signal ${r.signal}` : `exit code ${r.status}`;
    stderr += `test/run.mjs: test/wgpu/run.ts printed no counts (${why})\n`;
    return { passed: 0, failed: 1, skipped: 0, seconds: secs, stdout: r.stdout, stderr };
  }
  const [passed, failed, skipped] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return { passed, failed: failed || (r.status !== 0 ? 1 : 0), skipped, seconds: secs, stdout: r.stdout, stderr };
}

let report = null;
try {
  report = wgpuOnly ? {} : JSON.parse(readFileSync(jsonFile, 'utf8'));
} catch {
  // missing or unreadable: vitest crashed before writing it
}
if (!keepReport) rmSync(jsonFile, { force: true });

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
