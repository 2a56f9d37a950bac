#!/usr/bin/env node
// wan-vae CLI: thin launcher for the bundled dist/cli.js (built from src/node/cli.ts by vite.cli.config.ts).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('wan-vae: dist/cli.js is missing; build it with `npm run build:cli` (npm ci/install runs it via `prepare`).');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
