// End-to-end tests of the built demo as deployed (node project: a real headless Chromium through
// playwright-core). `vite build` with the project's config into a temp folder, served by a plain static
// server under /some/sub/path/ (as a project site is), not from the root:
//  - the page decodes the default there (relative asset, worker and models/ URLs);
//  - opened from disk (file://) it says it must be served over http(s); with its worker file or its main
//    script missing it says so instead of waiting on "loading…";
//  - each failure of a user's first hour (a file that is not safetensors, an encoder-only file from a URL,
//    a download cut short, a 404, an address the page's CSP blocks) leaves the model card, its radio, the
//    caption under the player and Cache Storage in one consistent state: the plain reason in the card (the
//    technical one under Details), the radio on the model still in use, no download progress left, nothing
//    rejected cached (also after a reload), the caption naming what is shown.
// Skips when /usr/bin/chromium is absent outside CI.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../scripts/chromium-flags';
import { isCI } from '../helpers/env';
import { syntheticWeights } from '../../src/model/synthetic';
import { writeSafetensors } from '../../src/model/safetensors';

const CHROMIUM = '/usr/bin/chromium';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const haveChromium = existsSync(CHROMIUM);
const skip = !haveChromium && !isCI();
if (skip) console.warn(`demo deploy e2e skipped: ${CHROMIUM} is absent (install the Debian chromium package; CI fails instead of skipping)`);

const SUB = '/some/sub/path/';
const tid = (id: string) => `[data-testid="${id}"]`;
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/**
 * The build under SUB, plus: /broken-worker/ (the same build, its worker file 404), /broken-script/ (its main
 * script 404), SUB + 'truncated.safetensors' (test-weights.safetensors's Content-Length, 16 KiB of it, then
 * the connection closes).
 */
function serve(dir: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const prefix = [SUB, '/broken-worker/', '/broken-script/'].find((p) => path.startsWith(p));
    if (!prefix) return void res.writeHead(404).end('not found');
    const rel = path.slice(prefix.length) || 'index.html';
    if (rel === 'truncated.safetensors') {
      const whole = readFileSync(join(dir, 'test-weights.safetensors'));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(whole.byteLength) });
      const body = whole.subarray(0, 16 << 10);
      res.write(body, () => setTimeout(() => res.destroy(), 200));
      return;
    }
    if ((prefix === '/broken-worker/' && /worker-entry-.*\.js$/.test(rel)) || (prefix === '/broken-script/' && /assets\/index-.*\.js$/.test(rel))) return void res.writeHead(404).end('not found');
    const file = normalize(join(dir, rel));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

async function waitStatus(page: Page, states: string[], timeout: number): Promise<string> {
  await page.waitForFunction((s) => s.includes(document.querySelector<HTMLElement>('[data-testid="status"]')?.dataset.state ?? ''), states, { timeout, polling: 200 });
  return (await page.getAttribute(tid('status'), 'data-state')) ?? '';
}

/** Decode and wait for it to finish; fails with the page's messages otherwise. */
async function decode(page: Page): Promise<void> {
  await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
  await page.click(tid('decode'));
  const state = await waitStatus(page, ['done', 'error', 'cancelled'], 400_000);
  if (state !== 'done') throw new Error(`decode ended ${state}: ${await page.textContent(tid('status'))} / ${await page.textContent(tid('error'))}`);
}

/** The frame canvas's luma variance (0: blank). */
function frameVariance(page: Page): Promise<number> {
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
    return sumSq / n - (sum / n) ** 2;
  });
}

describe.skipIf(skip)('the built demo, deployed under a sub-path (headless Chromium)', () => {
  let outDir = '';
  let server: Server | null = null;
  let origin = '';
  let browser: Browser | null = null;

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI needs Chromium for the demo e2e test`);
    outDir = mkdtempSync(join(tmpdir(), 'wan-vae-deploy-'));
    await build({ configFile: join(repoRoot, 'vite.config.ts'), root: join(repoRoot, 'src', 'demo'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    // the failures' files: a decoder of the embedded default's architecture (another seed), an encoder-only
    // file, and 660 bytes that are not safetensors (their first 8 bytes read as a huge header length)
    const w = syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 3 });
    const tensors = Object.fromEntries([...w.map].map(([k, v]) => [k, { shape: v.shape, data: v.data }]));
    writeFileSync(join(outDir, 'test-weights.safetensors'), writeSafetensors(tensors));
    const enc = Object.fromEntries(Object.entries(tensors).map(([k, v]) => [k.replace(/^decoder\./, 'encoder.'), v]));
    writeFileSync(join(outDir, 'encoder.safetensors'), writeSafetensors(enc));
    ({ server, origin } = await serve(outDir));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: chromiumFlags() });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => (server ? server.close(ok) : ok(null)));
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  async function withContext(fn: (context: BrowserContext) => Promise<void>): Promise<void> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await fn(context);
    } finally {
      await context.close();
    }
  }

  it('the build uses relative paths only: index.html names ./assets/…, no /assets/ absolute URL anywhere', () => {
    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    expect(html).toMatch(/src="\.\/assets\/index-[\w-]+\.js"/);
    expect(html).toMatch(/src="\.\/boot\.js"/);
    expect(html).not.toMatch(/(src|href)="\/[^/]/);
  });

  it(
    'served from /some/sub/path/, it decodes the default to a non-blank frame',
    () =>
      withContext(async (context) => {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        const failed: string[] = [];
        page.on('requestfailed', (r) => failed.push(r.url()));
        page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
        await page.goto(`${origin}${SUB}`);
        await decode(page);
        expect(await frameVariance(page), 'the frame canvas is blank').toBeGreaterThan(1);
        expect(await page.textContent(tid('frame-label'))).toMatch(/^frame \d \/ 9$/);
        expect(await page.getAttribute('html', 'data-app')).toBe('ready');
        expect(await page.isHidden(tid('boot-error'))).toBe(true);
        // the decode measured this device: the next estimate comes from its rate, a range of 2x, not 30x
        await page.waitForSelector(`${tid('estimate')}:has-text("the last decode reached on this device")`, { timeout: 30_000 });
        const [lo, hi] = [...((await page.textContent(tid('estimate'))) ?? '').matchAll(/([\d.]+) (ms|s)\b/g)].slice(0, 2).map((m) => Number(m[1]) * (m[2] === 'ms' ? 1e-3 : 1));
        expect(hi! / lo!, 'the measured estimate spans more than 2x').toBeLessThanOrEqual(2.01);
        expect(await page.textContent(tid('estimate-short'))).toMatch(/on this device \(measured\)/);
        // nothing pinned: the compare card says what to do, not "A: – · B: #1"
        expect(await page.textContent(tid('compare-labels'))).toMatch(/^Nothing pinned yet: pin the latest decode \(#1\) as A/);
        expect(failed, 'requests outside the sub-path or missing').toEqual([]);
        expect(errors).toEqual([]);
      }),
    500_000,
  );

  it(
    '1440 px, Advanced open: the plan stays in view at the Budget field; plan rows explain themselves on a tap; help in user words',
    () =>
      withContext(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1440, height: 1000 });
        await page.goto(`${origin}${SUB}`);
        await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
        await page.click(`${tid('advanced')} > summary`);
        await page.locator(tid('budget')).scrollIntoViewIfNeeded();
        const budget = (await page.locator(tid('budget')).boundingBox())!;
        const peak = (await page.locator(tid('plan-peak')).boundingBox())!;
        expect(budget.y + budget.height, 'the Budget field is not on screen').toBeLessThanOrEqual(1000);
        expect(peak.y >= 0 && peak.y + peak.height <= 1000, `the planned peak is off screen (y ${peak.y}) while the Budget field is on it`).toBe(true);
        // typing a budget changes the plan that is on screen
        await page.fill(tid('budget'), '1');
        await page.waitForSelector(`${tid('plan')}[data-state="refused"]`, { timeout: 30_000 });
        expect(await page.isVisible(tid('plan-error'))).toBe(true);
        await page.fill(tid('budget'), '');
        await page.waitForSelector(`${tid('plan')}[data-state="ready"]`, { timeout: 30_000 });
        // a plan row's explanation opens on a click (a tap on a phone), not only as a hover tooltip
        const help = page.locator(`${tid('plan')} tr[data-help="cache"]`);
        expect(await help.isHidden()).toBe(true);
        await page.click(`${tid('plan')} tr[data-owner="cache"] button`);
        expect(await help.isVisible()).toBe(true);
        expect(await help.textContent()).toMatch(/remembers of the last frames/);
        const text = (await page.textContent(tid('options'))) ?? '';
        for (const jargon of ['--cpu-budget', 'latent-rate', 'cache rings', 'operand load', 'conv3d']) expect(text, `the options speak of "${jargon}"`).not.toContain(jargon);
      }),
    180_000,
  );

  it(
    'opened from disk (file://) it says that it must be served over http(s), and why',
    () =>
      withContext(async (context) => {
        const page = await context.newPage();
        await page.goto(`file://${join(outDir, 'index.html')}`);
        await page.waitForSelector(`${tid('boot-error')}:not([hidden])`, { timeout: 30_000 });
        const text = (await page.textContent(tid('boot-error'))) ?? '';
        expect(text).toMatch(/must be served over http\(s\)/);
        expect(text).toMatch(/do not run module scripts or Web Workers from file:\/\/ pages/);
        // without its stylesheet (not loadable from file:// either) the page shows the message alone
        expect(await page.isHidden('main')).toBe(true);
        expect(await page.textContent(tid('status'))).toMatch(/could not start/);
        expect(await page.textContent(tid('adapter'))).not.toMatch(/probing/);
        expect(await page.textContent(tid('model-info'))).not.toMatch(/^loading/);
      }),
    60_000,
  );

  it(
    'with its main script missing it says that a file of the build did not load',
    () =>
      withContext(async (context) => {
        const page = await context.newPage();
        await page.goto(`${origin}/broken-script/`);
        await page.waitForSelector(`${tid('boot-error')}:not([hidden])`, { timeout: 30_000 });
        expect(await page.textContent(tid('boot-error'))).toMatch(/could not start: one of its files did not load.*could not load .*assets\/index-/s);
        expect(await page.textContent(tid('status'))).toMatch(/could not start/);
      }),
    60_000,
  );

  it(
    'with its worker file missing the model card says the decoder did not start (no eternal "loading…")',
    () =>
      withContext(async (context) => {
        const page = await context.newPage();
        await page.goto(`${origin}/broken-worker/`);
        await page.waitForSelector(`${tid('model-info')}[data-state="bad"]`, { timeout: 120_000 });
        expect(await page.textContent(`${tid('model-info')} [data-part="reason"]`)).toMatch(/decoder \(a Web Worker\) did not start/);
        expect(await page.textContent(tid('error'))).toMatch(/did not start/);
        expect(await page.getAttribute(tid('status'), 'data-state')).toBe('error');
        expect(await page.isDisabled(tid('decode'))).toBe(true);
      }),
    180_000,
  );

  it(
    'every failure of the audit leaves the card, radio, caption and Cache Storage consistent',
    () =>
      withContext(async (context) => {
        const base = `${origin}${SUB}`;
        let page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(base);
        await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
        const cachedUrls = () => page.evaluate(async () => (await (await caches.open('wan-vae-weights-v1')).keys()).map((r) => r.url));
        /** the model card after a failure: the reason in plain words, the technical one under Details, the radio on `radio` */
        const afterFailure = async (label: string, reason: RegExp, details: RegExp, radio: string, still: RegExp) => {
          const status = `Loading model ${label} failed`;
          await page.waitForFunction(
            (t) => {
              const el = document.querySelector<HTMLElement>('[data-testid="status"]');
              return el?.dataset.state === 'error' && el.textContent === t;
            },
            status,
            { timeout: 60_000, polling: 200 },
          );
          expect(await page.getAttribute(tid('model-info'), 'data-state')).toBe('bad');
          const card = (await page.textContent(`${tid('model-info')} [data-part="reason"]`)) ?? '';
          expect(card.startsWith(`Could not load ${label}: `), card).toBe(true);
          expect(card).toMatch(reason);
          expect(card).toMatch(still);
          expect(await page.textContent(`${tid('model-info')} details`)).toMatch(details);
          expect(await page.isChecked(tid(radio)), `the radio is not on ${radio}: ${card}`).toBe(true);
          expect(await page.textContent(tid('weights-cache'))).not.toMatch(/downloading/);
          expect(await page.textContent(tid('status'))).not.toMatch(/downloading/);
          expect(await page.textContent(tid('error'))).toMatch(reason);
          expect(await page.isDisabled(tid('decode')), 'Decode is off after a failed model load').toBe(false);
        };
        const loadUrl = async (u: string) => {
          await page.check(tid('weights-url-choice'));
          await page.fill(tid('weights-url'), u);
          await page.click(tid('weights-url-load'));
        };
        // the generated default decoded: the caption says what is shown
        await decode(page);
        expect(await page.textContent(tid('caption'))).toMatch(/Shown: the generated latents decoded with the generated model\. .*random weights.*coloured noise/);

        // 1. a file that is not safetensors, from the file picker
        const notes = new Uint8Array(660);
        new DataView(notes.buffer).setBigUint64(0, 8241904413164530000n, true);
        await page.check(tid('weights-file-choice'));
        await page.setInputFiles(tid('weights-file'), { name: 'notes.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(notes) });
        await afterFailure(
          'notes.safetensors',
          /This file is not a safetensors file \(its header says 8241904413164530000 bytes, the file has 660\)\./,
          /header length 8241904413164530000 does not fit the file \(660 bytes\).*\[bad-input\]/,
          'weights-default',
          /Still using the generated model\./,
        );

        // 2. an encoder-only file from a URL: refused, and not kept in Cache Storage
        await loadUrl(`${base}encoder.safetensors`);
        await afterFailure('encoder.safetensors', /This file holds no VAE decoder/, /missing tensor decoder\.conv1\.weight/, 'weights-default', /Still using the generated model/);
        expect(await cachedUrls()).toEqual([]);
        expect(await page.textContent(tid('weights-cache'))).toMatch(/encoder\.safetensors was not kept in this browser's cache/);

        // 3. a download cut short: no progress left on screen, nothing cached
        await loadUrl(`${base}truncated.safetensors`);
        await afterFailure('truncated.safetensors', /The download stopped part-way/, /stopped after \d+ of \d+ bytes/, 'weights-default', /Still using the generated model/);
        expect(await cachedUrls()).toEqual([]);

        // 4. a 404
        await loadUrl(`${base}Wan2.1_VAE.safetensors`);
        await afterFailure('Wan2.1_VAE.safetensors', /Nothing was found at .*Wan2\.1_VAE\.safetensors \(the server answered 404 Not Found\)/, /HTTP 404/, 'weights-default', /Still using/);

        // 5. a Windows path typed as the URL: the page's CSP blocks it, and the page says so (not CORS)
        await loadUrl('C:\\Users\\me\\Wan2.1_VAE.safetensors');
        await afterFailure(
          'C:\\Users\\me\\Wan2.1_VAE.safetensors',
          /may only download from http\(s\) addresses.*the page's security policy/,
          /Content-Security-Policy \(connect-src\)/,
          'weights-default',
          /Still using/,
        );
        expect(await page.textContent(`${tid('model-info')} [data-part="reason"]`)).not.toMatch(/CORS|cross-origin/);

        // latents from a 404: the same in the latents card (reason, Details, radio back on what is in use)
        await page.check(tid('latents-url-choice'));
        await page.fill(tid('latents-url'), `${base}missing.npy`);
        await page.click(tid('latents-url-load'));
        await page.waitForSelector(`${tid('latents-info')}[data-state="bad"]`, { timeout: 60_000 });
        expect(await page.textContent(`${tid('latents-info')} [data-part="reason"]`)).toMatch(
          /^Could not read missing\.npy: Nothing was found at .*missing\.npy \(the server answered 404 Not Found\).*Still using the generated latents\.$/,
        );
        expect(await page.textContent(`${tid('latents-info')} details`)).toMatch(/HTTP 404/);
        expect(await page.isChecked(tid('latents-default'))).toBe(true);

        // after the failures the generated decode is still what the caption describes
        expect(await page.textContent(tid('caption'))).toMatch(/Shown: the generated latents decoded with the generated model/);

        // real (non-generated) weights from a URL: the caption follows once they decoded
        await loadUrl(`${base}test-weights.safetensors`);
        await page.waitForSelector(`${tid('model-info')}[data-state="ok"]:has-text("test-weights.safetensors")`, { timeout: 60_000 });
        expect(await page.isChecked(tid('weights-url-choice'))).toBe(true);
        expect(await page.textContent(tid('caption')), 'the caption describes the decode on screen, not the model just loaded').toMatch(/coloured noise/);
        await decode(page);
        const caption = (await page.textContent(tid('caption'))) ?? '';
        expect(caption).toMatch(/Shown: the generated latents decoded with test-weights\.safetensors/);
        expect(caption).not.toMatch(/coloured noise/);
        expect(await page.isHidden(`${tid('caption')} [data-part="hint"]`)).toBe(true);

        // a failure now keeps the radio on URL, the card names the weights in use
        await page.check(tid('weights-file-choice'));
        await page.setInputFiles(tid('weights-file'), { name: 'notes.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(notes) });
        await afterFailure('notes.safetensors', /This file is not a safetensors file/, /header length/, 'weights-url-choice', /Still using test-weights\.safetensors\./);
        expect(await page.textContent(tid('caption'))).toMatch(/Shown: the generated latents decoded with test-weights\.safetensors/);
        expect(errors).toEqual([]);

        // after a reload Cache Storage and the page list only the weights that loaded
        expect(await cachedUrls()).toEqual([`${base}test-weights.safetensors`]);
        await page.close();
        page = await context.newPage();
        await page.goto(base);
        await page.waitForSelector(`${tid('decode')}:not([disabled])`, { timeout: 120_000 });
        await page.waitForSelector(`${tid('weights-cache')}:has-text("Cached in this browser")`, { timeout: 30_000, state: 'attached' });
        expect(await page.textContent(tid('weights-cache'))).toMatch(/^Cached in this browser: 1 weights file, [\d.]+ (KiB|MiB) \(test-weights\.safetensors\)\.$/);
      }),
    900_000,
  );
});
