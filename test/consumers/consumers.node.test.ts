// The package as users get it (issue 15): `npm pack`, installed from the tarball into a folder outside
// the repository, then every way of embedding it, each decoding the embedded default and checking the
// frame count against the one the library's default gives (computed here from the sources; the pages
// decode its first two latent frames, a first chunk and a steady one, in 5/9 of the decode time):
// plain Node 20 (Dawn), the CLI of the installed package, a vite app (tsc with skipLibCheck false,
// `vite build`, the dev server), a webpack 5 app, an esbuild bundle and a plain <script type="module">
// page (headless Chromium, SwiftShader WebGPU). Node project only (it drives its own Chromium).
// The trained default model (issue 28): the package exports it (`wan-vae-webgpu/trained`, the Node entry,
// the files as `wan-vae-webgpu/models/*`), and the vite (build and dev), webpack and plain-page fixtures and
// a Node script load it from the installed package. The README's Node and page blocks run here as
// written against the installed package (test/docs/readme-blocks.ts extracts them): the Node ones as
// .mjs modules in the app, the page ones as module scripts of a page with an import map, whose plan
// must equal its decode's measured peak.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../scripts/chromium-flags';
import { framesFor, inferConfig } from '../../src/model/config';
import { embeddedDefault } from '../../src/model/default-model';
import { defaultSample, MODEL_DECODER_FILE } from '../../src/model/samples';
import { SAMPLES } from '../../src/model/samples';
import { docBlocks, pageHtml, where, type Block } from '../docs/readme-blocks';
import { install, ok, openPage, pack, removeWork, run, serve, TOOLS, treeBytes, viteDev, webpackBuild, type Installed, type Packed, type PageOutcome } from './harness';

const MiB = 1024 * 1024;
const repoRootDir = join(import.meta.dirname, '..', '..');
const CHROMIUM = '/usr/bin/chromium';

let packed: Packed;
let installed: Installed;
let browser: Browser | null = null;
let expected: { frames: number; size: [number, number] };
/** the bundler pages decode the default's first two latent frames (a first chunk and a steady one; firstFrames() of each fixture) */
const PAGE_LATENT_FRAMES = 2;
let expectedPage: { frames: number; size: [number, number] };
const timings: Record<string, number> = {};
/** per page: where its worker came from (file URL, or blob: for the inline copy) */
const workers: Record<string, string[]> = {};
const sizes: Record<string, number> = {};

beforeAll(async () => {
  const d = await embeddedDefault();
  const cfg = inferConfig(d.weights);
  const [, T, h, w] = d.latents.shape;
  expected = { frames: framesFor(cfg, T), size: [w * cfg.scale, h * cfg.scale] };
  expect(T).toBeGreaterThan(PAGE_LATENT_FRAMES);
  expectedPage = { frames: framesFor(cfg, PAGE_LATENT_FRAMES), size: expected.size };
  packed = await pack();
  timings.pack = packed.seconds;
  installed = await install(packed);
  timings.install = installed.seconds;
}, 600_000);

afterAll(async () => {
  await browser?.close();
  console.log(
    `consumers: ${JSON.stringify({ tarballBytes: packed?.size, unpackedBytes: packed?.unpackedSize, folderBytes: packed?.folderBytes, installBytes: installed?.installBytes, packageBytes: installed?.packages, ...sizes, seconds: timings, workers })}`,
  );
  if (packed) removeWork(packed.work);
});

async function page(name: string, url: string, timeoutMs?: number): Promise<PageOutcome> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM, args: chromiumFlags() });
  const o = await openPage(browser, url, timeoutMs);
  workers[name] = o.workers.map((u) => (u.startsWith('blob:') ? 'blob:' : new URL(u).pathname));
  return o;
}

/** What the fixtures report for the trained default model they load (weights, sample latents, plan). */
function expectTrained(o: { trained?: { dim?: number; latents?: number[]; frames?: number; weightBytes?: number; error?: string } }, what: string): void {
  const s = defaultSample();
  expect(o.trained?.error, `${what}: trained model: ${o.trained?.error}`).toBeUndefined();
  expect(o.trained, `${what}: trained model`).toMatchObject({ dim: 32, latents: s.latentShape, frames: s.frames });
  // the files' bytes where the fixture read them itself (trainedDefaultBytes; createTrainedDecoder keeps them in the worker)
  if (o.trained!.weightBytes !== undefined) expect(o.trained!.weightBytes).toBe(readFileSync(join(repoRootDir, 'models', MODEL_DECODER_FILE)).length);
}

/**
 * Serves `root`, opens `path` there in Chromium as page `name` and checks its decode (the default's first two
 * latent frames); returns the outcome and the server's URL (the server is closed by then).
 */
async function fixturePage(name: string, root: string, path: string): Promise<PageOutcome & { url: string }> {
  const s = await serve(root);
  try {
    const o = await page(name, `${s.url}${path}`);
    expectDecoded(o, name, expectedPage);
    return { ...o, url: s.url };
  } finally {
    await s.close();
  }
}

function expectDecoded(o: { frames?: number; planned?: number; streamed?: number; size?: [number, number]; error?: string }, what: string, want = expected): void {
  expect(o.error, `${what}: ${o.error}`).toBeUndefined();
  expect(o.frames, `${what}: frames reported`).toBe(want.frames);
  expect(o.planned, `${what}: frames planned`).toBe(want.frames);
  expect(o.streamed, `${what}: frames streamed through onFrame`).toBe(want.frames);
  expect(o.size, `${what}: frame size`).toEqual(want.size);
}

describe('the packed package', () => {
  it('holds the built library, its declarations, the CLI with its default model and sample, and LICENSE; no sources, demo or benchmark', () => {
    const f = new Set(packed.files);
    // the CLI's default decode (`wan-vae decode`) reads the trained model and its default sample from models/
    const sample = defaultSample().files;
    const model = [`models/${MODEL_DECODER_FILE}`, `models/samples/${sample.latents}`, `models/samples/${sample.source}`];
    for (const need of [
      'package.json',
      'LICENSE',
      'README.md',
      'bin/wan-vae.mjs',
      'dist/cli.js',
      'dist/lib/index.js',
      'dist/lib/node.js',
      'dist/lib/decoder.worker.js',
      'dist/lib/worker-inline.js',
      'dist/types/index.d.ts',
      'dist/types/node/index.d.ts',
      ...model,
    ])
      expect(f.has(need), `${need} in the tarball`).toBe(true);
    const unwanted = packed.files.filter((p) => /^(src|test|bench|shaders|models\/train)\/|^dist\/(demo|bench)|\.map$|encoder|\.torch\.npy$/.test(p));
    expect(unwanted, 'files a user does not need').toEqual([]);
    // every sample `wan-vae samples` lists can be decoded from the package, and the trained entry is there
    for (const s of SAMPLES) for (const file of [s.files.latents, s.files.source]) expect(f.has(`models/samples/${file}`), `models/samples/${file} in the tarball`).toBe(true);
    // and the pages `wan-vae --help` sends a reader to
    for (const need of ['models/samples/samples.json', 'dist/lib/trained.js', 'dist/types/model/trained.d.ts', 'docs/cli.md', 'docs/cli-reference.md'])
      expect(f.has(need), `${need} in the tarball`).toBe(true);
  });

  it('exports the trained model and its files, and has no install-time scripts (no prepare)', () => {
    const manifest = JSON.parse(readFileSync(join(installed.app, 'node_modules', 'wan-vae-webgpu', 'package.json'), 'utf8')) as { exports: Record<string, unknown>; scripts?: Record<string, string> };
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining(['.', './node', './trained', './worker', './models/*']));
    for (const s of ['prepare', 'preinstall', 'install', 'postinstall']) expect(manifest.scripts?.[s], `scripts.${s}`).toBeUndefined();
  });

  it('installs into a browser app in under 5 MB without models (no native Dawn: webgpu is an optional peer)', () => {
    expect(Object.keys(installed.packages).sort()).toEqual(['@webgpu/types', 'wan-vae-webgpu']);
    const models = join(installed.app, 'node_modules', 'wan-vae-webgpu', 'models');
    const modelBytes = existsSync(models) ? treeBytes(models) : 0;
    sizes.modelBytes = modelBytes;
    sizes.withoutModels = installed.installBytes - modelBytes;
    expect(installed.installBytes - modelBytes).toBeLessThan(5 * MiB);
  });
});

describe('Node 20', () => {
  const app = () => installed.app;
  // generous limits: a first decode with a cold Mesa shader cache took 182 s at load average 15
  const nodeScript = () => run(process.execPath, ['decode.mjs'], { cwd: join(app(), 'node-script'), timeoutMs: 480_000 });
  const cli = (args: string[]) => run(join(app(), 'node_modules', '.bin', 'wan-vae'), args, { cwd: app(), timeoutMs: 480_000 });

  it('says how to install webgpu when it is missing (script and CLI), then decodes the default with it', async () => {
    const without = await nodeScript();
    expect(without.code).not.toBe(0);
    expect(without.stderr).toContain('npm install webgpu');
    const cliWithout = await cli(['decode', '--out', join(app(), 'out', 'no.npy')]);
    expect(cliWithout.code).toBe(2);
    expect(cliWithout.stderr).toMatch(/^wan-vae: no-webgpu: .*npm install webgpu/m);

    const t0 = performance.now();
    ok(await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', 'webgpu@^0.6.2'], { cwd: app(), timeoutMs: 300_000 }), 'npm install webgpu');
    timings.installWebgpu = (performance.now() - t0) / 1000;
    const r = ok(await nodeScript(), 'node decode.mjs');
    timings.node = r.seconds;
    const o = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { frames: number; planned: number; streamed: number; size: [number, number]; adapter: string };
    expectDecoded(o, 'node decode.mjs');
  }, 1_200_000);

  it('`node -e "import(\'wan-vae-webgpu/node\').then(...)"` decodes the default', async () => {
    const oneLiner =
      "import('wan-vae-webgpu/node').then(async (w) => { await w.installNodeWebGPU(); const d = await w.embeddedDefault(); const dec = new w.WanVaeDecoder(d.weights); const r = await dec.decode(d.latents); dec.dispose(); console.log(r.frames, r.width, r.height); })";
    const r = ok(await run(process.execPath, ['-e', oneLiner], { cwd: app(), timeoutMs: 480_000 }), 'node -e');
    expect(r.stdout.trim().split('\n').at(-1)).toBe(`${expected.frames} ${expected.size[0]} ${expected.size[1]}`);
  }, 600_000);

  it('`wan-vae-webgpu/node` gives the trained default model from the package (trainedDefault, models/* exported)', async () => {
    const r = ok(await run(process.execPath, ['trained.mjs'], { cwd: join(app(), 'node-script'), timeoutMs: 300_000 }), 'node trained.mjs');
    const o = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    const s = defaultSample();
    expect(o).toMatchObject({ dim: 32, latents: s.latentShape, clip: [3, s.frames, s.height, s.width], sample: s.name, frames: s.frames, size: [s.width, s.height], card: true });
    expect(o.weightBytes).toBe(readFileSync(join(repoRootDir, 'models', MODEL_DECODER_FILE)).length);
  }, 300_000);

  it('the installed CLI decodes the default (`npx wan-vae decode --json`)', async () => {
    expect(existsSync(join(app(), 'node_modules', 'webgpu')), 'webgpu installed by the previous test').toBe(true);
    const out = join(app(), 'out', 'video.npy');
    const r = ok(await cli(['decode', '--out', out, '--json']), 'wan-vae decode');
    timings.cli = r.seconds;
    const o = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { frames: number; width: number; height: number; sample?: string; psnrVsSource?: number };
    // the CLI's default is the trained model's default sample (the package carries both files): the
    // packed weights must decode it as PyTorch does (same PSNR against the source clip within 0.05 dB, as
    // test/model-samples); stale or wrong packed weights, or the random embedded default, land far off
    const sample = defaultSample();
    expect(o.sample).toBe(sample.name);
    expect(Math.abs(o.psnrVsSource! - sample.psnrTorch), `PSNR against the source clip ${o.psnrVsSource} dB, PyTorch ${sample.psnrTorch}`).toBeLessThan(0.05);
    expect(o.frames).toBe(sample.frames);
    expect([o.width, o.height]).toEqual([sample.width, sample.height]);
    expect(readFileSync(out).length).toBeGreaterThan(4 * 3 * sample.frames * sample.width * sample.height);
  }, 600_000);
});

describe('browser apps (headless Chromium, SwiftShader)', () => {
  const dir = (name: string) => join(installed.app, name);

  it('vite app: tsc --noEmit with skipLibCheck false and no extra types', async () => {
    const tsconfig = JSON.parse(readFileSync(join(dir('vite-app'), 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions.skipLibCheck).toBe(false);
    expect(tsconfig.compilerOptions.types).toBeUndefined();
    const r = ok(await run(process.execPath, [TOOLS.tsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: dir('vite-app') }), 'tsc --noEmit');
    timings.tsc = r.seconds;
  }, 300_000);

  it('vite app: `vite build` decodes the default', async () => {
    const b = ok(await run(process.execPath, [TOOLS.vite, 'build', '--logLevel', 'warn'], { cwd: dir('vite-app') }), 'vite build');
    const o = await fixturePage('vite build', join(dir('vite-app'), 'dist'), '/');
    timings.viteBuild = b.seconds + o.seconds;
    expectTrained(o as never, 'vite build');
    expect(
      o.workers.some((u) => u.startsWith(o.url)),
      `worker from a file (${o.workers})`,
    ).toBe(true);
  }, 300_000);

  it('vite app: the dev server decodes the default, the worker file served from node_modules', async () => {
    const dev = await viteDev(dir('vite-app'));
    try {
      const o = await page('vite dev', dev.url);
      timings.viteDev = o.seconds;
      expectDecoded(o, `vite dev\n${dev.log()}`, expectedPage);
      expectTrained(o as never, `vite dev\n${dev.log()}`);
      expect(
        o.workers.some((u) => u.startsWith(dev.url)),
        `worker from a file (${o.workers})`,
      ).toBe(true);
    } finally {
      await dev.stop();
    }
  }, 300_000);

  it('webpack 5 app decodes the default, its worker emitted by webpack', async () => {
    const b = ok(await webpackBuild(dir('webpack-app')), 'webpack');
    const o = await fixturePage('webpack', dir('webpack-app'), '/index.html');
    timings.webpack = b.seconds + o.seconds;
    expectTrained(o as never, 'webpack');
    expect(
      o.workers.some((u) => u.startsWith(o.url)),
      `worker from a file (${o.workers})`,
    ).toBe(true);
  }, 300_000);

  it('esbuild bundle decodes the default (inline worker: esbuild does not copy the worker file)', async () => {
    const b = ok(await run(TOOLS.esbuild, ['src/index.js', '--bundle', '--format=esm', '--target=es2022', '--minify', '--outdir=dist', '--log-level=warning'], { cwd: dir('esbuild-app') }), 'esbuild');
    const o = await fixturePage('esbuild', dir('esbuild-app'), '/index.html');
    timings.esbuild = b.seconds + o.seconds;
    expect(
      o.workers.some((u) => u.startsWith('blob:')),
      `inline worker (${o.workers})`,
    ).toBe(true);
  }, 300_000);

  it('plain <script type="module"> page with an import map decodes the default', async () => {
    const o = await fixturePage('plain', installed.app, '/plain-page/index.html');
    timings.plain = o.seconds;
    expectTrained(o as never, 'plain page');
    expect(o.workers, 'the worker file of dist/lib').toContain(`${o.url}/node_modules/wan-vae-webgpu/dist/lib/decoder.worker.js`);
  }, 600_000);
});

describe('README.md (and docs/embedding.md) code blocks, as written, against the installed package', () => {
  const blocks = docBlocks();
  const app = () => installed.app;
  /** a file name for a block: its markdown file and line */
  const slug = (b: Block) => `${b.file.replace(/\W+/g, '-')}-${b.line}`;
  /** The block as JavaScript: ts blocks with their types stripped by esbuild (imports left as they are). */
  async function asJs(b: Block, name: string): Promise<string> {
    if (!/^t/.test(b.lang)) return b.code;
    const dir = join(app(), 'readme');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.ts`), b.code);
    ok(await run(TOOLS.esbuild, [`${name}.ts`, '--format=esm', '--target=es2022', `--outfile=${name}.js`, '--log-level=warning'], { cwd: dir }), `esbuild ${where(b)}`);
    return readFileSync(join(dir, `${name}.js`), 'utf8');
  }

  const nodeBlocks = blocks.filter((b) => b.kind === 'node');
  it.each(nodeBlocks.map((b) => [where(b), b] as const))(
    '%s runs as a Node module (.mjs) in the app',
    async (_, b) => {
      expect(existsSync(join(app(), 'node_modules', 'webgpu')), 'webgpu installed by the Node 20 tests').toBe(true);
      const file = join(app(), `readme-${slug(b)}.mjs`);
      writeFileSync(file, await asJs(b, `node-${slug(b)}`));
      const r = await run(process.execPath, [file], { cwd: app(), timeoutMs: 480_000 });
      expect(r.code, `${where(b)} exited ${r.code}:\n${r.stderr.slice(-2000)}`).toBe(0);
    },
    600_000,
  );

  it('html blocks map the package names to files the package has', () => {
    for (const b of blocks.filter((x) => x.kind === 'html')) {
      const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(b.code);
      if (!map) continue;
      const imports = (JSON.parse(map[1]!) as { imports: Record<string, string> }).imports;
      for (const [name, path] of Object.entries(imports)) {
        // the README's page sits in the app's root folder (next to node_modules)
        expect(existsSync(join(app(), path)), `${where(b)}: ${name} -> ${path}`).toBe(true);
      }
    }
  });

  const pageBlocks = blocks.filter((b) => b.kind === 'page');
  // The trained model's default sample (astronaut-128: 9 frames of 128x128) took 200 s in SwiftShader
  // (this 2-core machine, 2026-12-02, 1e586aa): the page is served the smallest sample's latents
  // (rocket-64: 2 latent frames, 5 frames of 64x64) under the default's file name. The block still runs
  // as written through the same code (the package's trained entry, its worker, the trained weights, a
  // first and a steady chunk, plan = peak); the default sample's own decode is checked against PyTorch
  // by the installed CLI above (Dawn) and by test/model-samples, its loading in a page by the fixtures.
  const trainedFiles = '/node_modules/wan-vae-webgpu/models/samples/';
  const smallest = [...SAMPLES].sort((a, b) => a.frames * a.width * a.height - b.frames * b.width * b.height)[0]!;
  const smallerSample = { [trainedFiles + defaultSample().files.latents]: trainedFiles + smallest.files.latents };
  it.each(pageBlocks.map((b) => [where(b), b] as const))(
    "%s runs in a page (headless Chromium); its plan equals its decode's peak",
    async (_, b) => {
      const dir = join(app(), 'readme');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `page-${slug(b)}.html`), pageHtml(await asJs(b, `page-${slug(b)}`)));
      const s = await serve(app(), smallerSample);
      try {
        const o = (await page(where(b), `${s.url}/readme/page-${slug(b)}.html`, 540_000)) as PageOutcome & { peak?: number };
        expect(o.error, `${where(b)}: ${o.error}`).toBeUndefined();
        expect(o.planned, `${where(b)}: plan.plannedPeakGpuBytes (the block names its plan \`plan\`)`).toBeTypeOf('number');
        expect(o.peak, `${where(b)}: result.peakGpuBytes (the block names its decode's result \`result\`)`).toBeTypeOf('number');
        expect(o.planned, `${where(b)}: the plan's peak is the decode's measured peak`).toBe(o.peak);
        // a block of the trained entry read the smaller sample (the entry still asks for the default's file)
        if (b.code.includes('wan-vae-webgpu/trained')) expect(s.aliased(), `${where(b)}: requests for ${Object.keys(smallerSample)[0]}`).toBeGreaterThan(0);
      } finally {
        await s.close();
      }
    },
    600_000,
  );
});
