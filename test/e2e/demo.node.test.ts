// End-to-end test of the demo page (node project only: it drives a real headless Chromium through
// playwright-core). Builds the demo with vite into a temp folder, serves it with `vite preview` on
// 127.0.0.1 (a free port), decodes the embedded default, checks the frame is not blank, exports a
// video, compares two decodes (cache on vs off), collects console errors and saves
// docs/screenshot-demo.png. Skips when /usr/bin/chromium is absent outside CI.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../scripts/chromium-flags';
import { isCI } from '../helpers/env';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = chromiumFlags();
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const demoRoot = join(repoRoot, 'src', 'demo');
const screenshot = join(repoRoot, 'docs', 'screenshot-demo.png');
const haveChromium = existsSync(CHROMIUM);
const skip = !haveChromium && !isCI();
if (skip) console.warn(`demo e2e skipped: ${CHROMIUM} is absent (install the Debian chromium package; CI fails instead of skipping)`);

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

const tid = (id: string) => `[data-testid="${id}"]`;

/** Wait for the status line to reach a final state; fail with the page's error banner otherwise. */
async function waitDone(page: Page, timeout: number): Promise<void> {
  await page.waitForFunction(
    () => ['done', 'error', 'cancelled'].includes(document.querySelector<HTMLElement>('[data-testid="status"]')?.dataset.state ?? ''),
    undefined,
    { timeout, polling: 250 },
  );
  const state = await page.getAttribute(tid('status'), 'data-state');
  if (state !== 'done') {
    const status = await page.textContent(tid('status'));
    const error = await page.textContent(tid('error'));
    throw new Error(`decode ended in state ${state}: ${status}; error banner: ${error}`);
  }
}

describe.skipIf(skip)('demo page (headless Chromium)', () => {
  let outDir = '';
  let server: PreviewServer | null = null;
  let browser: Browser | null = null;
  let url = '';

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI needs Chromium for the demo e2e test`);
    outDir = mkdtempSync(join(tmpdir(), 'wan-vae-demo-'));
    const inline = { configFile: join(repoRoot, 'vite.config.ts'), root: demoRoot, logLevel: 'warn' as const };
    await build({ ...inline, build: { outDir, emptyOutDir: true } });
    const port = await freePort();
    server = await preview({ ...inline, build: { outDir }, preview: { host: '127.0.0.1', port, strictPort: true, open: false } });
    url = `http://127.0.0.1:${port}/`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('decodes the default, shows a non-blank frame, exports a video, compares, no console errors', async () => {
    const context = await browser!.newContext({ acceptDownloads: true, viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(`worker console.error: ${m.text()}`)));

    await page.goto(url);
    await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
    expect(await page.isChecked(tid('weights-default'))).toBe(true);
    expect(await page.isChecked(tid('latents-default'))).toBe(true);
    expect(await page.getAttribute(tid('plan-peak'), 'data-bytes')).toMatch(/^[1-9]\d*$/);

    // decode the embedded default (options as loaded: cache on, f32, webgpu when the adapter exists)
    await page.click(tid('decode'));
    await waitDone(page, 400_000);
    const stats = await page.evaluate(() => {
      const c = document.querySelector<HTMLCanvasElement>('[data-testid="frame"]')!;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let s = 0, s2 = 0;
      const n = d.length / 4;
      for (let i = 0; i < d.length; i += 4) {
        const y = 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
        s += y;
        s2 += y * y;
      }
      return { width: c.width, height: c.height, variance: s2 / n - (s / n) ** 2 };
    });
    expect(stats.width).toBe(64);
    expect(stats.height).toBe(64);
    expect(stats.variance, 'the frame canvas is blank').toBeGreaterThan(1);
    expect(await page.textContent(tid('frame-label'))).toMatch(/\/ 9$/);

    // without WebCodecs the export says so and falls back to PNG frames
    await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      w.__realVideoEncoder = w.VideoEncoder;
      Object.defineProperty(window, 'VideoEncoder', { value: undefined, configurable: true, writable: true });
    });
    const [png] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.click(tid('export'))]);
    expect(png.suggestedFilename()).toMatch(/frame0001\.png$/);
    await page.waitForSelector(`${tid('export-status')}[data-state="fallback"]:has-text("Saved 9 PNG frames")`, { timeout: 60_000 });
    await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      Object.defineProperty(window, 'VideoEncoder', { value: w.__realVideoEncoder, configurable: true, writable: true });
    });

    // export a video through WebCodecs (mediabunny)
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.click(tid('export'))]);
    const file = await download.path();
    expect(download.suggestedFilename(), `export fell back: ${await page.textContent(tid('export-status'))}`).toMatch(/\.(webm|mp4)$/);
    expect(statSync(file).size).toBeGreaterThan(0);
    await page.waitForSelector(`${tid('export-status')}[data-state="done"]`, { timeout: 30_000 });

    // compare: pin A, decode again with cache off (T frames), expect the PSNR table
    await page.click(tid('compare-pin'));
    await page.check(tid('opt-cache-off'));
    await page.waitForFunction(() => /3 frames/.test(document.querySelector('[data-testid="plan"]')?.textContent ?? ''), undefined, { timeout: 30_000 });
    await page.click(tid('decode'));
    await page.waitForSelector(`${tid('status')}[data-state="running"]`, { timeout: 30_000 }).catch(() => {});
    await waitDone(page, 400_000);
    await page.waitForSelector(`${tid('compare')}:not([hidden])`, { timeout: 30_000 });
    expect(await page.locator(`${tid('psnr-table')} tr[data-pair]`).count()).toBe(3);
    // show the first decode again in the player for the screenshot's compare pair
    await page.locator(`${tid('psnr-table')} tr[data-pair="1"]`).click();

    mkdirSync(dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });
    await context.close();
    expect(errors).toEqual([]);
  }, 900_000);
});
