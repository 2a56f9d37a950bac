// Screenshots of the demo with the trained default model (README "The trained default model"), in headless
// Chromium (WebGPU on SwiftShader here: the astronaut decode takes minutes):
//   docs/screenshot-samples.png        desktop 1440 px, the whole page: sample astronaut-128 decoded with cache
//                                      off (pinned as A), then exactly (cache on, B, in the player): the compare
//                                      view with PSNR / SSIM against the source clip, the Samples card with the
//                                      source frame, the model card with its weights-read line
//   docs/screenshot-samples-phone.png  390 px: the Samples card with the sample loaded (checks no sideways scroll)
// Run: npx tsx scripts/samples-screenshots.ts  (prints the figures the page shows; fails on page errors)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { build, preview } from 'vite';
import { chromiumFlags } from './chromium-flags';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tid = (id: string) => `[data-testid="${id}"]`;

async function waitDone(page: Page, minutes: number): Promise<void> {
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.querySelector<HTMLElement>('[data-testid="status"]')?.dataset.state ?? ''), undefined, {
    timeout: minutes * 60_000,
    polling: 500,
  });
  const state = await page.getAttribute(tid('status'), 'data-state');
  if (state !== 'done') throw new Error(`decode ended ${state}: ${await page.textContent(tid('status'))} / ${await page.textContent(tid('error'))}`);
}

async function loadSample(page: Page, name: string): Promise<void> {
  await page.selectOption(tid('sample-select'), name);
  await page.click(tid('sample-load'));
  await page.waitForSelector(`${tid('sample-source-label')}:has-text("source clip of ${name}")`, { timeout: 120_000 });
  await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
}

const out = mkdtempSync(join(tmpdir(), 'wan-vae-shots-'));
const inline = { configFile: join(root, 'vite.config.ts'), root: join(root, 'src', 'demo'), logLevel: 'warn' as const };
await build({ ...inline, build: { outDir: out, emptyOutDir: true } });
const server = await preview({ ...inline, build: { outDir: out }, preview: { host: '127.0.0.1', port: 4179, strictPort: false, open: false } });
const url = server.resolvedUrls!.local[0]!;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumFlags() });
const errors: string[] = [];
try {
  // 390 px: the Samples card with a sample loaded
  const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 })).newPage();
  phone.on('pageerror', (e) => errors.push(e.message));
  await phone.goto(url);
  await phone.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
  await loadSample(phone, 'astronaut-128');
  const overflow = await phone.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
  console.log(`390 px: sideways overflow ${overflow} px; weights radio: ${(await phone.isChecked(tid('weights-url-choice'))) ? 'URL' : 'not URL'}`);
  await phone.locator(tid('samples')).screenshot({ path: join(root, 'docs', 'screenshot-samples-phone.png') });
  if (overflow > 0) errors.push(`390 px: the page scrolls sideways by ${overflow} px`);

  // desktop: decode the sample with cache off, pin it as A, decode it exactly (cache on) as B: the player
  // shows the exact decode, the compare view both against the source clip
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 })).newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
  await loadSample(page, 'astronaut-128');
  await page.click(`${tid('advanced')} > summary`);
  await page.check(tid('opt-cache-off'));
  await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 60_000 });
  let t = Date.now();
  await page.click(tid('decode'));
  await waitDone(page, 15);
  console.log(`astronaut-128 cache off: ${((Date.now() - t) / 1000).toFixed(0)} s`);
  await page.click(tid('compare-pin'));
  await page.check(tid('opt-cache-on'));
  await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 60_000 });
  t = Date.now();
  await page.click(tid('decode'));
  await waitDone(page, 15);
  console.log(`astronaut-128 cache on: ${((Date.now() - t) / 1000).toFixed(0)} s: ${await page.textContent(tid('status'))}`);
  await page.waitForSelector(`${tid('compare-source')}:not([hidden])`, { timeout: 60_000 });
  console.log(`compare: ${await page.textContent(tid('compare-source'))}`);
  console.log(`A vs B mean PSNR ${await page.textContent(tid('psnr-mean'))}, SSIM ${await page.textContent(tid('ssim-mean'))}`);
  // the whole page in one window: the right column (sticky, at most the window's height, scrolling on its
  // own) would be cut at 1000 px in a full-page shot
  await page.setViewportSize({ width: 1440, height: await page.evaluate(() => document.documentElement.scrollHeight) });
  await page.screenshot({ path: join(root, 'docs', 'screenshot-samples.png'), fullPage: true });
} finally {
  await browser.close();
  await server.close();
  rmSync(out, { recursive: true, force: true });
}
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
