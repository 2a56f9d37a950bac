// A Wan2.2-layout f32 safetensors file larger than 2.2 GiB (the official decoder shapes after a 671 MB
// encoder-sized hole, so decoder offsets pass 2^31; a sparse file in a temp dir, removed after, as is the
// browser profile holding its Cache Storage copy) in headless Chromium, taken as the demo page takes weights
// (src/demo/sources.ts): through a `File` (setInputFiles on a file input: a disk-backed File) and through
// `fetch` from the local server (streamed into Cache Storage, read back as the cached Blob).
// CI: a worker reads every decoder tensor from each as the decoder worker does (blobSource + openWeights):
// every tensor equal to the same file read in Node through a file handle, per-tensor progress, the page's
// JS heap and the renderer's peak RSS during each read (reset before it: /proc/<pid>/clear_refs) bounded
// by a few of the largest tensor, far below the file's size.
// WAN_VAE_LARGE_DECODE=1 adds the decode: a 1-frame 2x2 latent through the decoder worker on SwiftShader
// from the File and from the cached copy (equal bit for bit), against the decode of the same file in Node
// (Dawn + lavapipe, the CLI's file-handle source). Measured 2026-12-02 on the 2-core Debian machine (under
// load), at 6754acf (the upload's staged reads into one reused buffer): the File decode 55.9 s, the cached
// copy's 50.8 s (the last tensor read at 23.5 / 16.9 s), equal bit for bit, max |SwiftShader - lavapipe|
// 6.85e-7 at a video RMS of 0.414, renderer peak 854 MB; the test 205 s in all, too slow for CI (before, a
// FileReaderSync buffer per tensor: decodes 140-219 / 126-140 s, renderer 2.33 GB, the test 471-492 s).
// The weights are random where written and zero in the holes: every conv's output channel reads its first
// 8 input channels (one short write per output channel), biases and gammas in full, so the file stays
// sparse (about 130 MB on disk) and the decode is not trivial. Skips when /usr/bin/chromium is absent outside CI.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../scripts/chromium-flags';
import { WanVaeDecoder } from '../../src/decoder';
import { decoderShapes, OFFICIAL, rng } from '../../src/model/synthetic';
import { openWeights } from '../../src/model/weights';
import { fileSource } from '../../src/node/file-source';
import { isCI } from '../helpers/env';
import { freePort } from '../helpers/port';
import { writeSparseWan22 } from '../helpers/sparse-wan22';
import type { HarnessResult, ReadAllResult } from './large-weights/harness';
import { weightedSum } from './large-weights/sums';

const CHROMIUM = '/usr/bin/chromium';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const haveChromium = existsSync(CHROMIUM);
const skip = !haveChromium && !isCI();
if (skip) console.warn(`large-weights e2e skipped: ${CHROMIUM} is absent (install the Debian chromium package; CI fails instead of skipping)`);

/** 1 latent frame of 2x2, z 48 */
const LATENT = { shape: [48, 1, 2, 2] as [number, number, number, number], data: Array.from({ length: 48 * 4 }, (_, i) => Math.sin(i * 0.7) * 1.5) };
const READ_IN = 8;

/**
 * Writes the sparse Wan2.2-layout file at `path` (test/helpers/sparse-wan22.ts); returns its size and the
 * decoder's bytes. Biases and gammas in full; of every conv weight [cout, cin, ...kernel], the first
 * READ_IN input channels of each output channel.
 */
function writeLargeFile(path: string): { size: number; decoderBytes: number } {
  const rand = rng(23);
  const u = () => rand() * 2 - 1;
  const f = writeSparseWan22(path, (write, k, s) => {
    if (s.length === 1 || k.endsWith('.gamma')) {
      const n = s.reduce((a, b) => a * b, 1);
      write(new Uint8Array(Float32Array.from({ length: n }, () => (k.endsWith('.gamma') ? 1 + 0.2 * u() : 0.05 * u())).buffer), 0);
      return;
    }
    const [cout, cin, ...kern] = s as [number, number, ...number[]];
    const taps = kern.reduce((a, b) => a * b, 1);
    const m = Math.min(cin, READ_IN) * taps;
    const a = Math.sqrt(3 / m);
    const row = new Float32Array(m);
    for (let o = 0; o < cout; o++) {
      for (let i = 0; i < m; i++) row[i] = a * u();
      write(new Uint8Array(row.buffer), o * cin * taps * 4);
    }
  });
  return { size: f.size, decoderBytes: f.decoderBytes };
}

/** Peak RSS (VmHWM) of the Chromium processes below `pid` (this test's process), by Chromium process type. */
function peakRss(pid = process.pid): Record<string, number> {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const below = (p: number): boolean => p === pid || (parent.has(p) && p !== 1 && below(parent.get(p)!));
  const out: Record<string, number> = {};
  for (const p of parent.keys()) {
    if (p === pid || !below(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('chrom')) continue;
      const type = /--type=([\w-]+)/.exec(cmd)?.[1] ?? 'browser';
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      out[type] = Math.max(out[type] ?? 0, hwm);
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Resets the peak RSS (VmHWM) of the Chromium renderers below `pid` to their RSS now (clear_refs 5), so that
 * peakRss() gives the peak from here on; returns the largest renderer's RSS at the reset (the peak's floor).
 */
function resetPeakRss(pid = process.pid): number {
  let floor = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      let p = Number(d);
      // below this process?
      while (p > 1 && p !== pid) {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      }
      if (p === pid && Number(d) !== pid && cmd.includes('chrom') && cmd.includes('--type=renderer')) {
        writeFileSync(`/proc/${d}/clear_refs`, '5');
        floor = Math.max(floor, Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1] ?? 0) * 1024);
      }
    } catch {
      /* gone, or not ours */
    }
  }
  return floor;
}

const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;

describe.skipIf(skip)('a > 2.2 GiB Wan2.2 f32 checkpoint in headless Chromium (File and fetch)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wan-vae-large-e2e-'));
  const file = join(dir, 'wan22-f32.safetensors');
  let server: ViteDevServer | null = null;
  let context: BrowserContext | null = null;
  let page: Page | null = null;
  let url = '';
  let made = { size: 0, decoderBytes: 0 };
  const errors: string[] = [];

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI needs Chromium for the e2e tests`);
    const t0 = performance.now();
    made = writeLargeFile(file);
    console.log(`large-weights e2e: wrote ${made.size} bytes (sparse) in ${(performance.now() - t0).toFixed(0)} ms`);
    const port = await freePort();
    // the harness page from the repo (transformed on the fly), the large file from the temp dir as a public file (Range requests served)
    server = await createServer({
      configFile: false,
      root: repoRoot,
      publicDir: dir,
      logLevel: 'warn',
      optimizeDeps: { entries: ['test/e2e/large-weights/index.html'] },
      worker: { format: 'es' },
      server: { host: '127.0.0.1', port, strictPort: true, fs: { allow: [repoRoot] }, hmr: false, watch: null },
    });
    await server.listen();
    url = `http://127.0.0.1:${port}/`;
    // a profile on disk (in the temp dir): Cache Storage of an off-the-record context lives in memory, with a quota to match
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: [...chromiumFlags(), '--enable-precise-memory-info'] });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    // a failed request is named by its URL (the console's 'Failed to load resource' line names none)
    page.on('response', (r) => r.status() >= 400 && errors.push(`HTTP ${r.status()} for ${r.url()}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console.error: ${m.text()}`);
      else if (m.text().startsWith('[harness]')) console.log(m.text());
    });
    await page.goto(`${url}test/e2e/large-weights/index.html`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60_000 });
    await page.setInputFiles('#weights', file);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    // removing the profile's 2.9 GB Cache Storage copy waits on the disk (measured 25-90 s here, 2026-12-02):
    // a detached `rm -rf` does it while the next test files run
    const rm = spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' });
    rm.on('error', () => rmSync(dir, { recursive: true, force: true }));
    rm.unref();
  });

  it('reads every decoder tensor through a File and through fetch + Cache Storage, equal to Node, with bounded memory', async () => {
    expect(made.size).toBeGreaterThan(2.2 * 2 ** 30);
    expect(made.decoderBytes).toBeGreaterThan(2 ** 31);
    const read = (kind: 'file' | 'url') =>
      page!.evaluate(([k, u]) => (window as unknown as { readAll: (k: string, u: string) => Promise<ReadAllResult> }).readAll(k, u), [kind, `${url}wan22-f32.safetensors`] as const);
    // what the page still holds after a read: its JS heap after a full collection (CDP HeapProfiler.collectGarbage).
    // Before one, the heap counts the download's streamed chunks not yet collected (496 MB in one CI run,
    // 2026-12-03: garbage, not a held file), so a bound on it tests V8's timing instead of the page.
    const cdp = await context!.newCDPSession(page!);
    const heldHeap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return page!.evaluate(() => (performance as { memory?: { usedJSHeapSize?: number } }).memory?.usedJSHeapSize ?? null);
    };
    // each read's own renderer peak: reset before it (the fetch path's after its download into Cache Storage)
    const fileFloor = resetPeakRss();
    const viaFile = await read('file');
    const afterFile = peakRss();
    const fileHeld = await heldHeap();
    await page!.evaluate(([u]) => (window as unknown as { fetchOnly: (k: string, u: string) => Promise<void> }).fetchOnly('url', u), [`${url}wan22-f32.safetensors`] as const);
    const afterDownload = peakRss();
    // the download's buffers may still be resident here (558-603 MB, not yet reclaimed): the floor says so
    const urlFloor = resetPeakRss();
    const viaUrl = await read('url');
    const afterUrl = peakRss();
    const urlHeld = await heldHeap();
    for (const [name, r, held] of [
      ['File', viaFile, fileHeld],
      ['fetch', viaUrl, urlHeld],
    ] as const)
      console.log(
        `large-weights e2e, ${name}: ${r.via}, ${r.size} bytes, download ${r.downloadMs.toFixed(0)} ms (${r.downloadEvents} progress events), every decoder tensor read in ${r.ms.toFixed(0)} ms (${JSON.stringify(r.load)}), page heap ${mb(r.pageHeapBytes ?? 0)} at the read's end, ${mb(held ?? 0)} held after a collection`,
      );
    console.log(
      `large-weights e2e: Chromium peak RSS by process during the File read ${JSON.stringify(afterFile)} (renderer ${mb(fileFloor)} at its start), until the download's end ${JSON.stringify(afterDownload)}, during the read of the cached copy ${JSON.stringify(afterUrl)} (renderer ${mb(urlFloor)} at its start)`,
    );

    // the same file in Node, through a file handle
    const src = fileSource(file);
    const w = await openWeights(src);
    const sums: Record<string, number> = {};
    for (const k of [...w.map.keys()].sort()) sums[k] = weightedSum(w.get(k).data);
    src.close();

    expect(viaFile.via).toBe('file');
    expect(viaUrl.via, `the fetch path did not go through Cache Storage: ${viaUrl.cacheError}`).toBe('stored');
    expect(viaUrl.size).toBe(made.size);
    expect(viaUrl.downloadEvents).toBeGreaterThan(0);
    const tensors = decoderShapes(OFFICIAL['2.2']).length;
    for (const [r, held] of [
      [viaFile, fileHeld],
      [viaUrl, urlHeld],
    ] as const) {
      expect(Object.keys(r.sums)).toHaveLength(tensors);
      expect(r.sums).toEqual(sums);
      // per-tensor progress up to every decoder byte; the encoder half is never read
      expect(r.progressCalls).toBe(tensors);
      expect(r.lastBytesDone).toBe(made.decoderBytes);
      expect(r.bytesRead).toBeLessThan(made.decoderBytes + 2 ** 20);
      // the page never holds the file (--enable-precise-memory-info: the heap is measured, never null here)
      expect(held).not.toBeNull();
      expect(held!).toBeLessThan(128 * 2 ** 20);
    }
    // the renderer (the page and its workers) holds one tensor's staging buffer (the largest, 113 MB), not
    // the file (2.89 GB) nor a buffer per tensor: renderer peak RSS during each read 274 / 278 MB (File /
    // cached copy), 2026-12-02, this 2-core machine, Chromium 156; 1.47-1.67 GB when each read was a
    // FileReaderSync buffer of its own, freed late by V8. The read of the cached copy starts where the
    // download left the renderer (RSS 563 MiB at its start in one CI run, 2026-12-02, the download's buffers not
    // yet reclaimed), so each read is bounded by what it adds over its start: at most 256 MiB
    expect(afterFile.renderer!).toBeLessThan(2 ** 29);
    expect(afterFile.renderer! - fileFloor).toBeLessThan(2 ** 28);
    expect(afterUrl.renderer! - urlFloor).toBeLessThan(2 ** 28);
    expect(afterUrl.renderer!).toBeLessThan(2 ** 30);
    expect(errors).toEqual([]);
  }, 240_000);

  it.runIf(process.env.WAN_VAE_LARGE_DECODE === '1')(
    'decodes a 1x2x2 latent through the decoder worker from the File and from the cached copy, as Node decodes the same file',
    async () => {
      const run = (kind: 'file' | 'url') =>
        page!.evaluate(([k, u, l]) => (window as unknown as { decodeWith: (...a: unknown[]) => Promise<HarnessResult> }).decodeWith(k, u, l), [kind, `${url}wan22-f32.safetensors`, LATENT] as const);
      const show = (name: string, r: HarnessResult) =>
        console.log(
          `large-weights e2e decode, ${name}: ${r.via}, load ${r.loadMs.toFixed(0)} ms, upload + decode ${r.decodeMs.toFixed(0)} ms (last tensor read at ${r.readsDoneMs.toFixed(0)} ms), ${r.reads} tensor reads, page heap ${mb(r.pageHeapBytes ?? 0)}, GPU ${mb(r.gpuBytes)}`,
        );
      const viaFile = await run('file');
      show('File', viaFile);
      const viaUrl = await run('url');
      show('fetch', viaUrl);
      console.log(`large-weights e2e decode: Chromium peak RSS by process ${JSON.stringify(peakRss())}`);
      // one latent frame: the temporal upsamples (time_conv) are not run, so the upload never reads them
      const used = decoderShapes(OFFICIAL['2.2']).filter(([k]) => !k.includes('.time_conv.'));
      const usedBytes = used.reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 4), 0);
      for (const r of [viaFile, viaUrl]) {
        expect(r.shape).toEqual([3, 1, 32, 32]);
        expect(r.reads).toBe(used.length);
        expect(r.lastRead!.bytesDone).toBe(usedBytes);
      }
      // the first test stored the file in Cache Storage (run alone, this one downloads it)
      expect(['cached', 'stored']).toContain(viaUrl.via);
      expect(viaUrl.video).toEqual(viaFile.video);
      const src = fileSource(file);
      const dec = new WanVaeDecoder(await openWeights(src));
      try {
        const ref = (await dec.decode({ data: Float32Array.from(LATENT.data), shape: LATENT.shape }, { latentStats: 'none', conv: 'direct' })).video!;
        let maxErr = 0,
          rms = 0;
        for (let i = 0; i < ref.length; i++) {
          maxErr = Math.max(maxErr, Math.abs(ref[i]! - viaFile.video[i]!));
          rms += ref[i]! * ref[i]!;
        }
        console.log(`large-weights e2e decode: max |SwiftShader - lavapipe| ${maxErr.toExponential(2)}, video RMS ${Math.sqrt(rms / ref.length).toFixed(3)}`);
        expect(Math.sqrt(rms / ref.length)).toBeGreaterThan(0.01);
        expect(maxErr).toBeLessThan(1e-3);
      } finally {
        dec.dispose();
        src.close();
      }
      expect(errors).toEqual([]);
    },
    1_200_000,
  );
});
