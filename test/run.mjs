#!/usr/bin/env node
// `npm test`: vitest over both projects (node: Dawn + lavapipe, browser: Chromium + SwiftShader), extra
// args forwarded (e.g. `npm test -- --project node`, `npm test -- test/smoke.test.ts`). The last stdout
// line is always `N passed, N failed, N skipped` (read by CI); the exit code is non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const jsonFile = join(tmpdir(), `wan-vae-vitest-${process.pid}-${Date.now()}.json`);
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const args = ['run', '--reporter=default', '--reporter=json', `--outputFile=${jsonFile}`, ...process.argv.slice(2)];
const [cmd, cmdArgs] = existsSync(vitestBin) ? [process.execPath, [vitestBin, ...args]] : ['npx', ['vitest', ...args]];

const started = Date.now();
const run = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
const seconds = ((Date.now() - started) / 1000).toFixed(1);

let report = null;
try {
  report = JSON.parse(readFileSync(jsonFile, 'utf8'));
} catch {
  // missing or unreadable: vitest crashed before writing it
}
rmSync(jsonFile, { force: true });

if (!report) {
  const why = run.error ? run.error.message : run.signal ? `signal ${run.signal}` : `exit code ${run.status}`;
  console.error(`test/run.mjs: vitest wrote no JSON report (${why}) after ${seconds} s`);
  console.log('0 passed, 1 failed');
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
console.error(`test/run.mjs: vitest took ${seconds} s`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
