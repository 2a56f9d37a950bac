// The demo page in headless Firefox ESR (Debian's firefox-esr; WebGPU on wgpu, Firefox's engine), driven
// through WebDriver BiDi by puppeteer-core: the demo is built with vite into a temp folder and served by
// `vite preview` on 127.0.0.1; Firefox gets WebGPU from its preferences (FIREFOX_PREFS: on Linux it is off
// by default, and the adapter here, lavapipe, is a software Vulkan driver that the blocklist refuses). The
// page's own probe must find an adapter, then it decodes the embedded default (9 frames of 64x64) and the
// trained model's rocket-64 sample (5 frames of 64x64), each to a non-blank frame, without page errors.
// Skips when /usr/bin/firefox-esr is absent outside CI (scripts/setup.sh installs it; CI fails instead).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCI } from '../helpers/env';
import { freePort } from '../helpers/port';

const FIREFOX = '/usr/bin/firefox-esr';
/** WebGPU in Firefox on Linux: enabled, and the software Vulkan adapter (lavapipe) allowed past the blocklist. */
const FIREFOX_PREFS = { 'dom.webgpu.enabled': true, 'gfx.webgpu.ignore-blocklist': true };
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const demoRoot = join(repoRoot, 'src', 'demo');
const haveFirefox = existsSync(FIREFOX);
const skip = !haveFirefox && !isCI();
if (skip) console.warn(`Firefox e2e skipped: ${FIREFOX} is absent (scripts/setup.sh installs Debian's firefox-esr; CI fails instead of skipping)`);

const tid = (id: string) => `[data-testid="${id}"]`;

/** Waits for the status line's final state; throws with the page's error banner unless it is 'done'. */
async function waitDone(page: Page, timeout: number): Promise<void> {
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.querySelector<HTMLElement>('[data-testid="status"]')?.dataset.state ?? ''), { timeout, polling: 250 });
  const state = await page.$eval(tid('status'), (e) => (e as HTMLElement).dataset.state);
  if (state !== 'done') {
    const status = await page.$eval(tid('status'), (e) => e.textContent);
    const error = await page.$eval(tid('error'), (e) => e.textContent).catch(() => '');
    throw new Error(`decode ended in state ${state}: ${status}; error banner: ${error}`);
  }
}

/** Size and luma variance of the decoded frame canvas, and the frame label. */
function frameStats(page: Page) {
  return page.evaluate(() => {
    const c = document.querySelector<HTMLCanvasElement>('[data-testid="frame"]')!;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let sum = 0,
      sumSq = 0;
    for (let i = 0; i < d.length; i += 4) {
      const y = 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
      sum += y;
      sumSq += y * y;
    }
    const n = d.length / 4;
    return { width: c.width, height: c.height, variance: sumSq / n - (sum / n) ** 2, label: document.querySelector('[data-testid="frame-label"]')?.textContent ?? '' };
  });
}

describe.skipIf(skip)('demo page (headless Firefox ESR, WebGPU on wgpu)', () => {
  let outDir = '';
  let server: PreviewServer | null = null;
  let browser: Browser | null = null;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!haveFirefox) throw new Error(`${FIREFOX} is missing: CI needs Debian's firefox-esr for the Firefox e2e test`);
    outDir = mkdtempSync(join(tmpdir(), 'wan-vae-demo-ff-'));
    const inline = { configFile: join(repoRoot, 'vite.config.ts'), root: demoRoot, logLevel: 'warn' as const };
    await build({ ...inline, build: { outDir, emptyOutDir: true } });
    const port = await freePort();
    server = await preview({ ...inline, build: { outDir }, preview: { host: '127.0.0.1', port, strictPort: true, open: false } });
    browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, extraPrefsFirefox: FIREFOX_PREFS, protocolTimeout: 600_000 });
    page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(`page error: ${(e as Error).message}`));
    page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text()}`));
    await page.goto(`http://127.0.0.1:${port}/`);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('offers a WebGPU adapter (shader-f16 listed), and the page enables Decode', async () => {
    const probe = await page.evaluate(async () => {
      const a = await navigator.gpu?.requestAdapter();
      return a ? { features: [...a.features] } : null;
    });
    expect(probe, 'navigator.gpu.requestAdapter() returned null or navigator.gpu is undefined').not.toBeNull();
    console.log(`Firefox WebGPU adapter: features ${probe!.features.join(' ')}`);
    await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
  }, 180_000);

  it('decodes the embedded default to a non-blank frame', async () => {
    const t0 = performance.now();
    await page.click(tid('decode'));
    await waitDone(page, 400_000);
    const s = await frameStats(page);
    console.log(`Firefox: embedded default decoded in ${((performance.now() - t0) / 1000).toFixed(1)} s (${s.label}, luma variance ${s.variance.toFixed(0)})`);
    expect([s.width, s.height]).toEqual([64, 64]);
    expect(s.variance, 'the frame canvas is blank').toBeGreaterThan(1);
    expect(s.label).toMatch(/^frame \d \/ 9$/);
    expect(errors).toEqual([]);
  }, 500_000);

  it('loads the rocket-64 sample and decodes it to a non-blank frame', async () => {
    await page.select(tid('sample-select'), 'rocket-64');
    await page.click(tid('sample-load'));
    await page.waitForFunction(() => /source clip of rocket-64/.test(document.querySelector('[data-testid="sample-source-label"]')?.textContent ?? ''), { timeout: 120_000, polling: 250 });
    await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
    const t0 = performance.now();
    await page.click(tid('decode'));
    await waitDone(page, 400_000);
    const s = await frameStats(page);
    console.log(`Firefox: rocket-64 decoded in ${((performance.now() - t0) / 1000).toFixed(1)} s (${s.label}, luma variance ${s.variance.toFixed(0)})`);
    expect([s.width, s.height]).toEqual([64, 64]);
    expect(s.variance, 'the frame canvas is blank').toBeGreaterThan(1);
    expect(s.label).toMatch(/^frame \d \/ 5$/);
    expect(errors).toEqual([]);
  }, 500_000);
});
