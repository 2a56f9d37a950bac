#!/usr/bin/env node
// wan-vae CLI: thin launcher for the bundled dist/cli.js (built from src/node/cli.ts by vite.cli.config.ts;
// the published package ships it, a clone builds it with `npm run build:cli` or scripts/setup.sh).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  console.error(`wan-vae: dist/cli.js is missing; build it with \`npm run build:cli\` in ${root} (a clone: \`npm ci && npm run build:cli\`, or scripts/setup.sh)`);
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
