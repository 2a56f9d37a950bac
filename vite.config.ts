// Demo app (root src/demo -> dist/demo) and vitest: two projects over the same test files,
// `node` (Dawn + lavapipe through test/setup-node.ts) and `browser` (headless Chromium + SwiftShader).
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { BrowserCommand } from 'vitest/node';
import { playwright } from '@vitest/browser-playwright';
import { chromiumFlags } from './scripts/chromium-flags.ts';
import { LongestFirstSequencer } from './test/sequencer.ts';

const repoRoot = dirname(fileURLToPath(import.meta.url));
/** ../shared (goldens, reference); WAN_SHARED_DIR overrides (e.g. /nonexistent: the tests that need it skip, and fail under CI=1). Tests read it through test/helpers/files.ts and need.ts. */
const sharedDir = resolve(process.env.WAN_SHARED_DIR ?? resolve(repoRoot, '..', 'shared'));

/**
 * Browser command: a file under ../shared as base64 (binary-safe over vitest's RPC), or null when
 * ../shared is absent. Throws for a missing file inside a present ../shared and for paths escaping it.
 */
const readSharedBase64: BrowserCommand<[rel: string]> = async (_ctx, rel) => {
  const abs = resolve(sharedDir, rel);
  if (!abs.startsWith(sharedDir + sep)) throw new Error(`readSharedBase64: ${rel} is outside ${sharedDir}`);
  if (!existsSync(sharedDir)) return null;
  return (await readFile(abs)).toString('base64');
};

const sharedExists: BrowserCommand<[]> = () => existsSync(sharedDir);

const testFiles = ['test/**/*.test.ts'];
const isCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
/**
 * WAN_TEST_WORKERS=N (N > 1): node test files at a time (unset: vitest's default, one core less than the
 * machine has, 1 on 2 cores); the browser project runs after the node project either way. Measured on this
 * 2-core machine (2026-12-03, with other load on it): the browser project's Chromium beside the node files
 * (its GPU process runs SwiftShader at a raised priority) made them 2-4x slower (golden/tiling 119 -> 501 s,
 * consumers 153 -> 563 s), a loss over one file at a time.
 */
const nodeWorkers = Number(process.env.WAN_TEST_WORKERS) > 1 ? Number(process.env.WAN_TEST_WORKERS) : undefined;

export default defineConfig({
  // vitest runs from the repo root; `vite` / `vite build` serve and build the demo.
  root: process.env.VITEST ? repoRoot : resolve(repoRoot, 'src/demo'),
  // relative asset, worker and models/ URLs in the build: the demo runs from any path (a project site's
  // /name/, a sub-folder); the dev server and vitest treat './' as '/'
  base: './',
  worker: { format: 'es' },
  server: {
    host: '127.0.0.1',
    fs: { allow: [repoRoot, resolve(repoRoot, '..')] },
  },
  build: {
    outDir: resolve(repoRoot, 'dist/demo'),
    emptyOutDir: true,
    target: 'es2022',
  },
  test: {
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
    provide: { CI: isCI, sharedDir },
    // the longest files first (test/durations.json on a fresh clone): with several workers no long file starts last
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          ...(nodeWorkers ? { maxWorkers: nodeWorkers } : {}),
          include: testFiles,
          setupFiles: ['test/setup-node.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: testFiles,
          exclude: ['**/node_modules/**', 'test/**/*.node.test.ts', 'test/plan/**'],
          // one page at a time: the 2-core CPU is the GPU, parallel pages only slow each other down
          fileParallelism: false,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumFlags() },
            }),
            instances: [{ browser: 'chromium' }],
            screenshotFailures: false,
            commands: { readSharedBase64, sharedExists },
          },
        },
      },
    ],
  },
});
