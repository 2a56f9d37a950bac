#!/usr/bin/env node
// Writes test/durations.json (seconds per `project:file`, files of 1 s or more) from vitest's results
// cache of the last full `npm test` (node_modules/.vite/vitest/*/results.json, the newest; or the file
// given as the argument). test/sequencer.ts starts the longest files first from it where vitest has no
// durations of its own (a fresh clone, CI), so that no long file starts last. Rerun it after a full run
// when files got much slower or faster: `node scripts/test-durations.mjs`.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let file = process.argv[2];
if (!file) {
  const dir = join(root, 'node_modules', '.vite', 'vitest');
  const found = existsSync(dir)
    ? readdirSync(dir)
        .map((d) => join(dir, d, 'results.json'))
        .filter((f) => existsSync(f))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  file = found[0];
}
if (!file) {
  console.error('scripts/test-durations.mjs: no vitest results cache (run `npm test` first, or give a results.json)');
  process.exit(1);
}
const { results } = JSON.parse(readFileSync(file, 'utf8'));
const out = {};
for (const [key, r] of [...results].sort((a, b) => b[1].duration - a[1].duration)) if (r.duration >= 1000) out[key] = Math.round(r.duration / 100) / 10;
writeFileSync(join(root, 'test', 'durations.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`test/durations.json: ${Object.keys(out).length} files from ${file}`);
