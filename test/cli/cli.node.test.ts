// The `wan-vae` command as a user runs it: `node bin/wan-vae.mjs decode|plan ...` in a child process
// (the current sources built first, test/helpers/cli.ts). Small generated weights
// (Wan2.1 architecture, dim 4, z 16) and latents written to a temporary folder; every option family of
// `decode` and `plan`; outputs read back with parseNpy and compared with the library's own decode (so a
// CLI that ignored an option, wrote the wrong frames or the wrong layout fails); exit codes; and the
// one-line errors for bad files and bad option values (exit 2, one `wan-vae: <code>: ...` line naming
// the file / tensor / option, expected vs actual).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { parseNpy, writeNpy } from '../../src/model/npy';
import { writeSafetensors } from '../../src/model/safetensors';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { buildCli, repoRoot as root, runCli, type CliRun } from '../helpers/cli';
import { compare } from '../helpers/compare';
import { needGpu } from '../helpers/need';

let launcher = '';
const cli = (...args: string[]): CliRun => runCli(launcher, dir, args);

/** Expects exit code 2 and exactly one stderr line `wan-vae: <code>: ...` matching `re`. */
function expectError(r: CliRun, code: string, re: RegExp): void {
  expect(r.errLines, r.errLines.join('\n')).toHaveLength(1);
  expect(r.errLines[0]).toMatch(new RegExp(`^wan-vae: ${code}: `));
  expect(r.errLines[0]).toMatch(re);
  expect(r.code).toBe(2);
}

let dir = '';
// generated Wan2.1-architecture decoder, dim 4, z 16 (so the official statistics apply); latent [16, 2, 4, 4]
const spec = { version: '2.1', dim: 4, zDim: 16, seed: 9 } as const;
const weights = syntheticWeights(spec);
const shape = [16, 2, 4, 4] as [number, number, number, number];
const latents = { data: syntheticLatents(...shape), shape };
let reference: Float32Array;

beforeAll(async () => {
  launcher = buildCli('test');
  dir = mkdtempSync(join(tmpdir(), 'wan-vae-cli-'));
  const tensors = Object.fromEntries([...weights.map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]));
  writeFileSync(join(dir, 'w.safetensors'), writeSafetensors(tensors));
  writeFileSync(join(dir, 'l.npy'), writeNpy(shape, latents.data));
  // the reference: the library's CPU decode with no statistics
  const dec = new WanVaeDecoder(weights);
  reference = (await dec.decode(latents, { backend: 'cpu', latentStats: 'none' })).video;
  dec.dispose();
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** decode of w.safetensors + l.npy with extra options, --out <name>.npy --json; returns the run and the video. */
function decode(name: string, ...opts: string[]) {
  const r = cli('decode', '--weights', 'w.safetensors', '--latents', 'l.npy', '--out', `${name}.npy`, '--json', ...opts);
  if (r.code !== 0) throw new Error(`wan-vae decode ${opts.join(' ')} exited ${r.code}: ${r.errLines.join(' | ')}`);
  return { r, video: parseNpy(new Uint8Array(readFileSync(join(dir, `${name}.npy`))), `${name}.npy`) };
}

describe('wan-vae decode', () => {
  beforeEach(async (ctx) => void (await needGpu(ctx))); // the child process needs the same adapter
  it('webgpu: writes float32 [3, 1+4(T-1), 8h, 8w] equal to the library decode; --json reports measured = planned peak', () => {
    const { r, video } = decode('base', '--latent-stats', 'none');
    expect(video.shape).toEqual([3, 5, 32, 32]);
    const c = compare(video.data, reference);
    expect(c.maxAbs).toBeLessThanOrEqual(1e-3);
    const j = r.json!;
    expect(j).toMatchObject({ frames: 5, height: 32, width: 32, backend: 'webgpu', latentStats: 'none', version: '2.1', dim: 4, zDim: 16 });
    expect(j.peakGpuBytes).toBe(j.plannedPeakGpuBytes);
    expect(typeof j.adapter).toBe('string');
    // the start-up inside `seconds` (building the GPU decoder): its phases and total, in ms, within the decode's time
    const st = j.startup as Record<'totalMs' | 'readyMs' | 'overlappedSubmits', number>;
    expect(Object.keys(st).sort()).toEqual(['events', 'overlappedSubmits', 'pipelinesMs', 'prepMs', 'readyMs', 'resourcesMs', 'totalMs', 'uploads']);
    // each weight preparation's counts: this plan (f32, a CPU adapter: no staging) packs its 39 portable conv weights in JS
    const up = (j.startup as unknown as { uploads: Record<string, { gpu: number; js: number; chunks: number; uploadedMiB: number; ms: number }> }).uploads;
    expect(Object.keys(up).sort()).toEqual(['blocked', 'pack', 'wino']);
    expect(up.pack).toMatchObject({ gpu: 0, js: 39, chunks: 0, uploadedMiB: 0 });
    expect(up.blocked).toMatchObject({ gpu: 0, js: 0, chunks: 0, uploadedMiB: 0 }); // no tensor cores here
    expect(st.totalMs).toBeGreaterThan(0);
    expect(st.totalMs).toBeLessThanOrEqual((j.seconds as number) * 1000);
    // the build overlaps the first chunk: ready (weights prepared) no later than the whole build, its timeline ordered
    expect(st.readyMs).toBeLessThanOrEqual(st.totalMs + 1);
    expect(st.overlappedSubmits).toBeGreaterThanOrEqual(0);
    const events = (j.startup as unknown as { events: [number, string][] }).events;
    expect(events.length).toBeGreaterThan(0);
    expect(events.some(([, what]) => what === 'pipelines compiled')).toBe(true);
    for (const [ms, what] of events) expect(ms >= 0 && ms <= (j.seconds as number) * 1000, `${what} at ${ms} ms`).toBe(true);
  });

  it('--backend cpu: the CPU reference, the same frames', () => {
    const { r, video } = decode('cpu', '--latent-stats', 'none', '--backend', 'cpu');
    expect(r.json).toMatchObject({ backend: 'cpu' });
    expect(compare(video.data, reference).maxAbs).toBe(0);
  });

  it('--latent-stats official | FILE.safetensors: official means/stds change the output; a file of them gives the same as official', () => {
    const off = decode('official', '--latent-stats', 'official');
    expect(off.r.json).toMatchObject({ latentStats: 'official' });
    expect(compare(off.video.data, reference).maxAbs).toBeGreaterThan(1e-2); // the statistics were applied
    // the published Wan2.1 statistics written to a file: the same decode
    const { mean, std } = { mean: new Float32Array(16), std: new Float32Array(16) };
    const text =
      'mean -0.7571 -0.7089 -0.9113 0.1075 -0.1745 0.9653 -0.1517 1.5508 0.4134 -0.0715 0.5517 -0.3632 -0.1922 -0.9497 0.2503 -0.2921 std 2.8184 1.4541 2.3275 2.6558 1.2196 1.7708 2.6052 2.0743 3.2687 2.1526 2.8652 1.5579 1.6382 1.1253 2.8251 1.9160';
    const nums = text
      .split(' ')
      .filter((t) => !/[a-z]/.test(t))
      .map(Number);
    mean.set(nums.slice(0, 16));
    std.set(nums.slice(16));
    writeFileSync(join(dir, 'stats.safetensors'), writeSafetensors({ '@mean': { shape: [16], data: mean }, '@std': { shape: [16], data: std } }));
    const file = decode('statsfile', '--latent-stats', 'stats.safetensors');
    expect(compare(file.video.data, off.video.data).maxAbs).toBe(0);
  });

  it('memory levers: exact tiles (tile-major with the CPU store, fused norms; frame-major with chunked norms) equal the untiled decode', () => {
    const a = decode('tiles-a', '--latent-stats', 'none', '--tile', '2x4', '--tile-mode', 'exact', '--tile-order', 'tile-major', '--tile-store', 'cpu', '--norm', 'fused');
    expect(a.r.json!.options).toMatchObject({ norm: 'fused', tile: { th: 2, tw: 4, mode: 'exact', order: 'tile-major', store: 'cpu' } });
    expect(compare(a.video.data, reference).maxAbs).toBeLessThanOrEqual(1e-3);
    const b = decode('tiles-b', '--latent-stats', 'none', '--tile', '4x2', '--tile-order', 'frame-major', '--norm', 'chunked', '--norm-chunk', '7');
    expect(b.r.json!.options).toMatchObject({ norm: 'chunked', normChunk: 7, tile: { th: 4, tw: 2, order: 'frame-major' } });
    expect(compare(b.video.data, reference).maxAbs).toBeLessThanOrEqual(1e-3);
  });

  it('--tile-mode blend, --precision f16 (where the adapter has shader-f16), --budget: approximations within measured bounds', () => {
    const blend = decode('blend', '--latent-stats', 'none', '--tile', '2x4', '--tile-mode', 'blend');
    expect(blend.r.json!.options).toMatchObject({ tile: { mode: 'blend' } });
    const cb = compare(blend.video.data, reference);
    console.log(`CLI blend 2x4 tiles: PSNR ${cb.psnr.toFixed(1)} dB vs the exact decode`);
    // measured 130 dB here (2026-12-01, lavapipe: the tiny decoder's halo-2 context is nearly enough); the
    // bound 20 dB is one an all-zero video fails (checked), so a blend that dropped or misplaced tiles fails
    expect(compare(new Float32Array(reference.length), reference).psnr).toBeLessThan(20);
    expect(cb.psnr).toBeGreaterThan(20);
    const auto = decode('auto', '--latent-stats', 'none', '--precision', 'auto', '--budget', '4096');
    expect(auto.r.json!.options).toMatchObject({ precision: 'f32' }); // auto prefers f32 when it fits
    const p = cli('decode', '--weights', 'w.safetensors', '--latents', 'l.npy', '--out', 'f16.npy', '--json', '--latent-stats', 'none', '--precision', 'f16');
    if (p.code === 0) {
      expect(p.json!.options).toMatchObject({ precision: 'f16' });
      const v = parseNpy(new Uint8Array(readFileSync(join(dir, 'f16.npy'))));
      const c16 = compare(v.data, reference);
      console.log(`CLI f16: PSNR ${c16.psnr.toFixed(1)} dB vs the f32 CPU decode`);
      expect(c16.psnr).toBeGreaterThan(45);
    } else expectError(p, 'unsupported', /shader-f16/);
  });

  it('--cache off: the per-frame remedy, T frames', () => {
    const { video, r } = decode('nocache', '--latent-stats', 'none', '--cache', 'off');
    expect(video.shape).toEqual([3, 2, 32, 32]);
    expect(r.json!.options).toMatchObject({ cache: 'off' });
  });

  it('--synthetic 2.1 --latent-size 1x2x2: official-shape generated weights', () => {
    const r = cli('decode', '--synthetic', '2.1', '--latent-size', '1x2x2', '--out', 'syn.npy', '--json');
    expect(r.code, r.errLines.join('\n')).toBe(0);
    expect(r.json).toMatchObject({ version: '2.1', dim: 96, zDim: 16, frames: 1, height: 16, width: 16 });
    expect(parseNpy(new Uint8Array(readFileSync(join(dir, 'syn.npy')))).shape).toEqual([3, 1, 16, 16]);
  });

  it('--tensor-cores on without subgroup matrices: decodes with the portable kernels and says so on stderr', () => {
    const r = cli('decode', '--weights', 'w.safetensors', '--latents', 'l.npy', '--out', 'tc.npy', '--json', '--latent-stats', 'none', '--tensor-cores', 'on');
    expect(r.code).toBe(0);
    if (!(r.json!.options as { tensorCores?: boolean }).tensorCores) expect(r.errLines.join('\n')).toMatch(/--tensor-cores on was not used/);
  });
});

describe('bin/wan-vae.mjs without a build', () => {
  it('says how to build dist/cli.js, exit code 1', () => {
    const bare = join(dir, 'bare', 'bin');
    mkdirSync(bare, { recursive: true });
    copyFileSync(join(root, 'bin', 'wan-vae.mjs'), join(bare, 'wan-vae.mjs'));
    const r = spawnSync(process.execPath, [join(bare, 'wan-vae.mjs'), 'plan'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^wan-vae: dist\/cli\.js is missing; build it with `npm run build:cli`/);
  });
});

describe('wan-vae decode: one-line errors, exit code 2', () => {
  it('a truncated weights file names the file and the tensor', () => {
    const full = readFileSync(join(dir, 'w.safetensors'));
    writeFileSync(join(dir, 'trunc.safetensors'), full.subarray(0, full.length - 100));
    expectError(cli('decode', '--weights', 'trunc.safetensors', '--latents', 'l.npy', '--out', 'x.npy'), 'bad-input', /trunc\.safetensors.*truncated/);
  });

  it('latents with the wrong channel count: expected vs actual', () => {
    writeFileSync(join(dir, 'l4.npy'), writeNpy([4, 2, 4, 4], new Float32Array(4 * 2 * 16)));
    expectError(cli('decode', '--weights', 'w.safetensors', '--latents', 'l4.npy', '--latent-stats', 'none', '--out', 'x.npy'), 'bad-input', /4 channels.*expects 16/);
  });

  it('a weights file missing a decoder tensor names the key', () => {
    const tensors = Object.fromEntries([...weights.map].filter(([k]) => k !== 'decoder.head.2.weight').map(([k, t]) => [k, { shape: t.shape, data: t.data }]));
    writeFileSync(join(dir, 'missing.safetensors'), writeSafetensors(tensors));
    expectError(cli('decode', '--weights', 'missing.safetensors', '--latents', 'l.npy', '--out', 'x.npy'), 'bad-input', /decoder\.head\.2\.weight/);
  });

  it('files that are not there or not latents', () => {
    expectError(cli('decode', '--weights', 'w.safetensors', '--latents', 'nope.npy', '--out', 'x.npy'), 'bad-input', /cannot read latents file nope\.npy: no such file or folder \(ENOENT\)/);
    writeFileSync(join(dir, 'junk.npy'), 'not numpy at all');
    expectError(cli('decode', '--weights', 'w.safetensors', '--latents', 'junk.npy', '--out', 'x.npy'), 'bad-input', /junk\.npy: /);
    writeFileSync(join(dir, 'lat.safetensors'), writeSafetensors({ latents: { shape: shape, data: latents.data } }));
    expectError(cli('decode', '--weights', 'w.safetensors', '--latents', 'lat.safetensors', '--latents-key', 'nokey', '--out', 'x.npy'), 'bad-input', /nokey/);
    expectError(cli('decode', '--weights', 'w.safetensors', '--latents', 'l.npy', '--latent-stats', 'nostats.safetensors', '--out', 'x.npy'), 'bad-input', /nostats\.safetensors/);
  });

  it.each([
    [['--precision', 'f64'], 'bad-input', /--precision must be one of f32\|f16\|auto, got 'f64'/],
    [['--tile', '3by3'], 'bad-input', /--tile must be none, auto or HxW/],
    [['--budget', '-5'], 'bad-input', /--budget must be a positive number of MiB, got '-5'/],
    [['--norm-chunk', '7'], 'bad-input', /--norm-chunk applies to --norm chunked only/],
    [['--norm', 'chunked', '--norm-chunk', '0'], 'bad-input', /--norm-chunk must be a positive whole number/],
    [['--tile-store', 'cpu', '--tile-order', 'frame-major'], 'bad-input', /--tile-store cpu needs --tile-order tile-major/],
    [['--cache', 'maybe'], 'bad-input', /--cache must be one of on\|off/],
    [['--frobnicate'], 'bad-input', /unknown option --frobnicate/],
    [['--tile'], 'bad-input', /--tile needs a value/],
    [['--budget', '0.001'], 'limits', /no plan fits a budget of 0 MiB/],
  ] as const)('decode %s', (opts, code, re) => {
    expectError(cli('decode', '--weights', 'w.safetensors', '--latents', 'l.npy', '--latent-stats', 'none', '--out', 'x.npy', ...opts), code, re);
  });

  it('--weights without --latents, --synthetic without a size, an unknown command', () => {
    expectError(cli('decode', '--weights', 'w.safetensors'), 'bad-input', /pass both --weights and --latents, or neither/);
    expectError(cli('decode', '--synthetic', '2.1'), 'bad-input', /--synthetic needs --latent-size TxHxW/);
    expectError(cli('encode'), 'bad-input', /unknown command 'encode'/);
  });
});

describe('wan-vae plan and decode agree', () => {
  beforeEach(async (ctx) => void (await needGpu(ctx)));
  it('plan on the adapter found gives the plan a decode of the same size and flags runs (Wan2.1 official shapes, 1 frame of 32x32; with --budget)', () => {
    for (const extra of [[], ['--budget', '300', '--precision', 'auto']]) {
      const d = cli('decode', '--synthetic', '2.1', '--latent-size', '1x4x4', '--out', 'agree.npy', '--json', ...extra);
      expect(d.code, d.errLines.join('\n')).toBe(0);
      const p = cli('plan', '--vae', '2.1', '--size', '32x32', '--frames', '1', '--json', ...extra);
      expect(p.code, p.errLines.join('\n')).toBe(0);
      expect(p.json!.adapter).toMatchObject({ assumed: null });
      expect(p.json!.plannedPeakGpuBytes, `plan ${extra.join(' ')}`).toBe(d.json!.plannedPeakGpuBytes);
      expect(p.json!.plan).toBe(d.json!.plan);
      expect(d.json!.peakGpuBytes).toBe(d.json!.plannedPeakGpuBytes);
    }
  });
});

describe('wan-vae plan (no GPU)', () => {
  it("Wan2.1 480x832x81 with WebGPU's default 128 MiB bindings (--adapter default): exact tiles, the numbers consistent", () => {
    const r = cli('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'default', '--json');
    expect(r.code, r.errLines.join('\n')).toBe(0);
    const j = r.json as { plannedPeakGpuBytes: number; breakdown: Record<string, number>; video: object; tiles: number; largestBindingBytes: number };
    expect(j.video).toEqual({ frames: 81, height: 480, width: 832 });
    expect(j.tiles).toBeGreaterThan(1); // whole frames bind more than 128 MiB
    expect(j.largestBindingBytes).toBeLessThanOrEqual(128 * 2 ** 20);
    const { total, ...owners } = j.breakdown;
    expect(Object.values(owners).reduce((a, b) => a + b, 0)).toBe(total);
    expect(j.plannedPeakGpuBytes).toBe(total);
  });

  it('--budget, --precision, --limit-binding, --cache off, --tile none steer the plan', () => {
    const budget = cli('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'default', '--budget', '1536', '--json');
    expect((budget.json as { plannedPeakGpuBytes: number }).plannedPeakGpuBytes).toBeLessThanOrEqual(1536 * 2 ** 20);
    const f16 = cli('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'h200', '--precision', 'f16', '--json');
    expect(f16.json).toMatchObject({ options: { precision: 'f16' } });
    // --adapter h200 (tensor cores): int8 weights on tensor cores, or the portable conv with --tensor-cores off; expected times by the path
    const tc8 = cli(
      'plan',
      '--vae',
      '2.1',
      '--size',
      '480x832',
      '--frames',
      '81',
      '--adapter',
      'h200',
      '--precision',
      'f16',
      '--weights-precision',
      'int8',
      '--limit-binding',
      '4096',
      '--tile',
      'none',
      '--json',
    );
    const off8 = cli(
      'plan',
      '--vae',
      '2.1',
      '--size',
      '480x832',
      '--frames',
      '81',
      '--adapter',
      'h200',
      '--precision',
      'f16',
      '--weights-precision',
      'int8',
      '--limit-binding',
      '4096',
      '--tile',
      'none',
      '--tensor-cores',
      'off',
      '--json',
    );
    expect(tc8.json).toMatchObject({ options: { tensorCores: true, weightsPrecision: 'int8' } });
    expect(off8.json).toMatchObject({ options: { tensorCores: false, weightsPrecision: 'int8' } });
    const secs = (r: typeof tc8) => (r.json as { expectedSeconds: { compute: number } }).expectedSeconds.compute;
    expect(secs(tc8)).toBeLessThan(secs(off8));
    const whole = cli('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'default', '--limit-binding', '4096', '--tile', 'none', '--json');
    expect(whole.json).toMatchObject({ tiles: 0 });
    const off = cli('plan', '--vae', '2.1', '--size', '480x832', '--frames', '21', '--cache', 'off', '--json');
    expect(off.json).toMatchObject({ video: { frames: 21 }, breakdown: { cache: 0 } });
    const text = cli('plan', '--vae', '2.2', '--size', '704x1280', '--frames', '121', '--adapter', 'h200');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Wan2\.2 704x1280, 121 frames \(31 latents\)/);
    expect(text.stdout).toMatch(/^\s+total\s+\d+\.\d MiB$/m);
  });

  it.each([
    [['--size', '481x832', '--frames', '81'], 'bad-input', /--size 481x832: Wan2\.1 needs positive multiples of 8/],
    [['--size', '480x832', '--frames', '80'], 'bad-input', /--frames 80: with the cache a video has 1 \+ 4k frames/],
    [['--size', '480'], 'bad-input', /--size must be HxW in pixels/],
    [['--size', '480x832', '--frames', '81', '--tile', 'none', '--adapter', 'default'], 'limits', /no plan fits .*bindings of at most 128 MiB/],
    [
      ['--size', '480x832', '--frames', '81', '--precision', 'f16', '--adapter', 'default'],
      'unsupported',
      /--precision f16 needs the WebGPU feature 'shader-f16', which the assumed adapter does not offer \(plan: --adapter h200/,
    ],
    [['--size', '480x832', '--frames', '81', '--vae', '3.0'], 'bad-input', /--vae must be one of 2\.1\|2\.2/],
    [['--vae', '2.2', '--size', '704x1280', '--frames', '21', '--cache', 'off'], 'unsupported', /cache off is not possible for Wan2\.2/],
  ] as const)('plan %s', (opts, code, re) => {
    expectError(cli('plan', ...opts), code, re);
  });
});
