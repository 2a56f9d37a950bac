// End-to-end test of the demo page (node project only: it drives a real headless Chromium through
// playwright-core). Builds the demo with vite into a temp folder, serves it with `vite preview` on
// 127.0.0.1 (a free port), decodes the embedded default, checks the frame is not blank, exports a
// video, decodes with norm fused (frames match the default), refuses an impossible budget, compares
// two decodes (cache on vs off, the second with the plan a budget made the planner choose), reloads
// the page from its recipe link, decodes the cache-off latents again in 2x2 tiles with the store in
// CPU memory (frames match the whole-frame decode), collects console errors and saves
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

/** Wait for the planner view to settle after an option change: its state, planned peak and activation bytes. */
async function planned(page: Page): Promise<{ state: string; peak: number; activations: number }> {
  await page.waitForSelector(`${tid('plan')}:not([data-state="planning"])`, { timeout: 30_000 });
  const state = (await page.getAttribute(tid('plan'), 'data-state')) ?? '';
  if (state !== 'ready') return { state, peak: NaN, activations: NaN };
  const peak = Number(await page.getAttribute(tid('plan-peak'), 'data-bytes'));
  const activations = Number(await page.getAttribute(`${tid('plan')} tr[data-owner="activations"]`, 'data-bytes'));
  return { state, peak, activations };
}

/** The compare table's largest max |A−B| over all frame pairs (its last row). */
async function compareMaxAbs(page: Page): Promise<number> {
  return Number(await page.locator(`${tid('psnr-table')} tbody tr:last-child td:last-child`).textContent());
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

    // norm: pin the default decode as A; fused plans fewer activation bytes (the planner view follows
    // the select), the chunk size is only editable for chunked, and the fused decode gives the same frames
    await page.click(tid('compare-pin'));
    const full = await planned(page);
    expect(full.state).toBe('ready');
    expect(await page.isDisabled(tid('norm-chunk'))).toBe(true);
    await page.selectOption(tid('norm'), 'chunked');
    expect((await planned(page)).state).toBe('ready');
    expect(await page.isDisabled(tid('norm-chunk'))).toBe(false);
    await page.fill(tid('norm-chunk'), '0');
    expect((await planned(page)).state).toBe('refused');
    expect(await page.isDisabled(tid('decode'))).toBe(true);
    await page.fill(tid('norm-chunk'), '1000');
    expect((await planned(page)).state).toBe('ready');
    await page.selectOption(tid('norm'), 'fused');
    const fused = await planned(page);
    // (with the cache on, the embedded default's fused plan keeps more in the cache than it saves in
    // activations: the peak is not smaller there, the activations are)
    expect(fused.activations, 'norm fused should plan fewer activation bytes than full').toBeLessThan(full.activations);
    expect(fused.peak).not.toBe(full.peak);
    expect(await page.isDisabled(tid('norm-chunk'))).toBe(true);
    await page.click(tid('decode'));
    await waitDone(page, 400_000);
    await page.waitForSelector(`${tid('compare')}:not([hidden])`, { timeout: 30_000 });
    expect(await page.textContent(tid('compare-labels'))).toMatch(/B: #2 .*norm fused/);
    expect(await page.locator(`${tid('psnr-table')} tr[data-pair]`).count()).toBe(9);
    expect(await compareMaxAbs(page), 'norm fused vs full: the frames differ').toBeLessThanOrEqual(1e-5);

    // an impossible budget: the planner says so in the page and Decode stays disabled, also with
    // tiles and norm on auto (the planner searches and still finds nothing)
    await page.fill(tid('budget'), '1');
    expect((await planned(page)).state).toBe('refused');
    expect(await page.textContent(tid('plan-error'))).toMatch(/no plan fits a budget of 1 MiB.*smallest found needs \d+ MiB/i);
    expect(await page.isDisabled(tid('decode'))).toBe(true);
    await page.check(tid('opt-tile-auto'));
    await page.selectOption(tid('norm'), 'auto');
    expect((await planned(page)).state).toBe('refused');
    expect(await page.textContent(tid('plan-error'))).toMatch(/no plan fits a budget of 1 MiB/i);
    expect(await page.isDisabled(tid('decode'))).toBe(true);

    // compare: decode again with cache off (T frames) and a budget between the fused and the full plan:
    // the planner picks a smaller norm mode, the view shows its reason and the decode uses it
    await page.fill(tid('budget'), '');
    await page.check(tid('opt-cache-off'));
    await page.selectOption(tid('norm'), 'full');
    const offFull = await planned(page);
    expect(await page.textContent(tid('plan'))).toMatch(/3 frames/);
    await page.selectOption(tid('norm'), 'fused');
    const offFused = await planned(page);
    expect(offFused.peak, 'without the cache norm fused should plan fewer bytes than full').toBeLessThan(offFull.peak);
    await page.selectOption(tid('norm'), 'auto');
    const mid = (offFull.peak + offFused.peak) / 2 / 2 ** 20, round = Number(mid.toFixed(1));
    const between = round * 2 ** 20 > offFused.peak && round * 2 ** 20 < offFull.peak;
    await page.fill(tid('budget'), between ? String(round) : mid.toFixed(4));
    const chosen = await planned(page);
    expect(chosen.state).toBe('ready');
    expect(chosen.peak).toBeLessThan(offFull.peak);
    const reason = (await page.textContent(tid('plan-fit'))) ?? '';
    expect(reason).toMatch(/whole frames, f32, norm (chunked|fused)/);
    expect(await page.isDisabled(tid('decode'))).toBe(false);
    await page.click(tid('decode'));
    await page.waitForSelector(`${tid('status')}[data-state="running"]`, { timeout: 30_000 }).catch(() => {});
    await waitDone(page, 400_000);
    await page.waitForSelector(`${tid('compare')}:not([hidden])`, { timeout: 30_000 });
    expect(await page.locator(`${tid('psnr-table')} tr[data-pair]`).count()).toBe(3);
    expect(await page.textContent(tid('compare-labels'))).toMatch(new RegExp(`B: #3 cache off .*norm ${/norm (chunked|fused)/.exec(reason)![1]}.*budget`));
    // show the first decode again in the player for the screenshot's compare pair
    await page.locator(`${tid('psnr-table')} tr[data-pair="1"]`).click();

    mkdirSync(dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });

    // the recipe link carries the norm mode, the chunk size, the budget and the tile store (cpu: with
    // tiles on auto the planner still picks whole frames, no store)
    await page.selectOption(tid('tile-store'), 'cpu');
    expect((await planned(page)).state).toBe('ready');
    expect(await page.textContent(tid('plan-fit'))).toBe(reason);
    const budget = await page.inputValue(tid('budget'));
    await page.click(tid('copy-link'));
    await page.waitForFunction(() => location.hash.startsWith('#recipe='), undefined, { timeout: 10_000 });
    const link = await page.evaluate(() => location.href);
    const again = await context.newPage();
    again.on('pageerror', (e) => errors.push(`page error (recipe link): ${e.message}`));
    await again.goto(link);
    await again.waitForSelector(`${tid('recipe-status')}:has-text("Recipe from the link applied")`, { timeout: 120_000 });
    expect(await again.inputValue(tid('norm'))).toBe('auto');
    expect(await again.inputValue(tid('norm-chunk'))).toBe('1000');
    expect(await again.inputValue(tid('budget'))).toBe(budget);
    expect(await again.inputValue(tid('tile-store'))).toBe('cpu');
    expect(await again.isChecked(tid('opt-tile-auto'))).toBe(true);
    expect(await again.isChecked(tid('opt-cache-off'))).toBe(true);
    expect(await again.textContent(tid('plan-fit'))).toBe(reason);
    await again.close();

    // tile store: selectable with tiles in tile-major order only; store cpu puts the host bytes in the
    // planner view and gives the frames of whole frames: pin the cache-off decode (#3) as A and decode it
    // again in 2x2 exact tiles, norm full (cache off keeps this decode short: 3 frames)
    await page.click(tid('compare-pin'));
    await page.fill(tid('budget'), '');
    await page.selectOption(tid('norm'), 'full');
    await page.check(tid('opt-tile-none'));
    expect(await page.isDisabled(tid('tile-store'))).toBe(true);
    await page.check(tid('opt-tile-2x2'));
    await page.check(tid('opt-frame-major'));
    expect(await page.isDisabled(tid('tile-store'))).toBe(true);
    await page.check(tid('opt-tile-major'));
    expect(await page.isDisabled(tid('tile-store'))).toBe(false);
    expect(await page.inputValue(tid('tile-store'))).toBe('cpu');
    expect((await planned(page)).state).toBe('ready');
    expect(await page.textContent(tid('plan-host'))).toMatch(/^\+ [\d.]+ (B|KiB|MiB) in CPU memory/);
    expect(Number(await page.getAttribute(tid('plan-host'), 'data-bytes'))).toBeGreaterThan(0);
    await page.click(tid('decode'));
    await waitDone(page, 400_000);
    expect(await page.textContent(tid('compare-labels'))).toMatch(/A: #3 cache off .*B: #4 cache off .*2x2 tiles exact tile-major store cpu/);
    expect(await compareMaxAbs(page), 'tiles with a CPU store vs whole frames: the frames differ').toBeLessThanOrEqual(1e-5);
    await context.close();
    expect(errors).toEqual([]);
  }, 900_000);
});
