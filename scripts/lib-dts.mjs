#!/usr/bin/env node
// Library build, declarations (after `tsc -p tsconfig.lib.json` wrote dist/types): makes them valid for
// every consumer `moduleResolution` (node16/nodenext need explicit extensions): relative specifiers get
// `.js` or `/index.js`, and the entry declarations reference `@webgpu/types` (a dependency of the
// package), so GPUDevice & co. resolve in an app that lists no `types`. Fails on a specifier it cannot map.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const typesDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'types');
const ENTRIES = ['index.d.ts', join('node', 'index.d.ts'), join('model', 'trained.d.ts')];
const REFERENCE = '/// <reference types="@webgpu/types" />\n';

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (p.endsWith('.d.ts')) yield p;
  }
}

let files = 0;
for (const file of walk(typesDir)) {
  const src = readFileSync(file, 'utf8');
  const out = src.replace(/(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g, (m, pre, q, spec) => {
    if (/\.(js|mjs|json)$/.test(spec)) return m;
    const base = resolve(dirname(file), spec);
    if (existsSync(`${base}.d.ts`)) return `${pre}${q}${spec}.js${q}`;
    if (existsSync(join(base, 'index.d.ts'))) return `${pre}${q}${spec}/index.js${q}`;
    throw new Error(`scripts/lib-dts.mjs: ${file}: cannot map '${spec}' to a declaration file`);
  });
  const isEntry = ENTRIES.some((e) => file === join(typesDir, e));
  writeFileSync(file, isEntry && !out.startsWith(REFERENCE) ? REFERENCE + out : out);
  files++;
}
if (!files) throw new Error(`scripts/lib-dts.mjs: no declarations in ${typesDir} (run tsc -p tsconfig.lib.json first)`);
console.error(`scripts/lib-dts.mjs: ${files} declaration files in dist/types`);
