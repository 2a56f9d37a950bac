// Runs the suite in headless Chromium: a vite dev server on 127.0.0.1 (an inline config: root = the
// repository, bench/index.html, workers as ES modules, onnxruntime-web pre-bundled up front so no
// mid-run dependency reload happens), Chromium from /usr/bin/chromium through playwright-core with
// WebGPU on (SwiftShader on a CPU machine) and developer features (unquantized timestamps). Log lines
// of the page are echoed; the report comes back through an exposed function.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import type { BenchArgs } from '../lib/args';
import type { Report, SuiteConfig } from '../lib/types';
import { chromiumFlags } from '../../scripts/chromium-flags';
import { repoRoot } from './git';

/** The project's Chromium flags (scripts/chromium-flags.ts) plus unquantized timestamp-query. */
export const CHROMIUM_ARGS = chromiumFlags({ developerFeatures: true });

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Whole-suite limit: a full run on a CPU adapter is long; the quick one is minutes. */
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 3 * 3600) * 1000;

/** `--serve`: the bench page for a browser of your own (a real GPU); runs until interrupted. */
export async function serveOnly(): Promise<number> {
  const server = await startVite();
  console.log(`[bench] open ${serverUrl(server)}/bench/index.html?quick=1 (or ?only=conv3d,decode&frames=21) in a WebGPU browser; Ctrl-C stops`);
  await new Promise(() => undefined);
  return 0;
}

async function startVite(): Promise<ViteDevServer> {
  const server = await createServer({
    configFile: false,
    root: repoRoot,
    logLevel: 'warn',
    clearScreen: false,
    server: { host: '127.0.0.1', port: 0, strictPort: false, fs: { allow: [repoRoot] }, hmr: false },
    worker: { format: 'es' },
    optimizeDeps: { entries: ['bench/index.html'], include: ['onnxruntime-web/webgpu'] },
  });
  await server.listen();
  return server;
}

function serverUrl(server: ViteDevServer): string {
  const addr = server.httpServer?.address();
  if (!addr || typeof addr === 'string') throw new Error('bench: vite did not report a port');
  return `http://127.0.0.1:${addr.port}`;
}

const reviveInfinity = (_k: string, v: unknown) => (v === 'Infinity' ? Infinity : v);

async function runPage(browser: Browser, url: string): Promise<Report> {
  const page = await browser.newPage();
  return new Promise<Report>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bench: no report after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    const done = (f: () => void) => {
      clearTimeout(timer);
      f();
    };
    page.on('console', (m) => {
      const t = m.text();
      if (t.startsWith('[bench]')) console.log(t);
      else if (m.type() === 'error' || m.type() === 'warning') console.log(`[page ${m.type()}] ${t}`);
    });
    page.on('pageerror', (e) => done(() => reject(new Error(`bench page error: ${e.message}`))));
    page.on('crash', () => done(() => reject(new Error('bench page crashed'))));
    void page.exposeFunction('benchDone', (json: string) => done(() => resolve(JSON.parse(json, reviveInfinity) as Report)));
    void page.exposeFunction('benchFailed', (msg: string) => done(() => reject(new Error(`bench failed in the page: ${msg}`))));
    page.goto(url).catch((e: Error) => done(() => reject(e)));
  });
}

export async function runBrowser(a: BenchArgs, commit: string): Promise<Report> {
  if (!existsSync(CHROMIUM)) throw new Error(`bench: ${CHROMIUM} is missing (apt-get install chromium, or set CHROMIUM_PATH); --node runs without a browser`);
  const server = await startVite();
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const cfg: SuiteConfig = {
      quick: a.quick,
      only: a.only,
      tag: a.tag,
      ortLayouts: a.ortLayouts,
      runs: a.runs,
      repeats: a.repeats,
      frames: a.frames,
      commit,
      machine: a.machine,
      flags: CHROMIUM_ARGS,
      args: a.raw,
      engine: `Chromium ${browser.version()} (headless, playwright-core)`,
    };
    const url = `${serverUrl(server)}/bench/index.html?cfg=${encodeURIComponent(JSON.stringify(cfg))}`;
    console.log(`[bench] ${cfg.engine} on ${url.split('?')[0]}`);
    return await runPage(browser, url);
  } finally {
    await browser?.close().catch(() => undefined);
    await server.close();
  }
}
