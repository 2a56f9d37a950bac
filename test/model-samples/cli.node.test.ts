// The CLI side of the trained default model: `wan-vae samples`, `decode --sample NAME --json` reporting
// psnrVsSource (the WebGPU decode against the sample's source clip), and the one-line error for a bad name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/node/cli';
import { loadSample, parseSourceClip, SAMPLES, ssimVsSource, type ModelReader } from '../../src/model/samples';
import { parseNpy, writeNpy } from '../../src/model/npy';
import { psnr, ssim } from '../../src/model/quality';
import { readFileSync, writeFileSync } from 'node:fs';
import { needGpu } from '../helpers/need';

const dir = mkdtempSync(join(tmpdir(), 'wan-vae-samples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs main(argv), returning its exit code and what it printed on stdout / stderr. */
async function run(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [],
    err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    return { code: await main(argv), out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('wan-vae and the trained default model', () => {
  it('samples --json lists every shipped sample', async () => {
    const r = await run(['samples', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out.at(-1)!) as { decoder: string; samples: { name: string }[] };
    expect(j.decoder).toBe('models/wan21-d32-decoder.safetensors');
    expect(j.samples.map((s) => s.name)).toEqual(SAMPLES.map((s) => s.name));
  });

  it('decode --sample rocket-64 --json reports psnrVsSource equal to the PyTorch figure', async (ctx) => {
    await needGpu(ctx);
    const r = await run(['decode', '--sample', 'rocket-64', '--json', '--out', join(dir, 'r.npy'), '--progress', 'off']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const j = JSON.parse(r.out.at(-1)!) as { sample: string; psnrVsSource: number; ssimVsSource: number; psnrTorch: number; dim: number; frames: number; weights: string };
    console.log(`wan-vae decode --sample rocket-64: psnrVsSource ${j.psnrVsSource} dB, ssimVsSource ${j.ssimVsSource} (PyTorch ${j.psnrTorch})`);
    expect([j.sample, j.dim, j.frames]).toEqual(['rocket-64', 32, 5]);
    expect(j.weights).toMatch(/wan21-d32/);
    expect(Math.abs(j.psnrVsSource - j.psnrTorch)).toBeLessThan(0.05);
    // ssimVsSource: the SSIM of the shipped PyTorch decode against the same source (a field computed on the
    // wrong clip, or missing, fails)
    const read: ModelReader = async (rel) => new Uint8Array(readFileSync(new URL(`../../models/${rel}`, import.meta.url)));
    const s = await loadSample('rocket-64', read, { torch: true });
    expect(Math.abs(j.ssimVsSource - ssimVsSource(s.torch!.data, s.source))).toBeLessThan(1e-3);
    // the CLI sums PSNR / SSIM frame by frame (it keeps no video): the same figures as the whole decode written to r.npy
    const video = parseNpy(new Uint8Array(readFileSync(join(dir, 'r.npy')))).data as Float32Array;
    expect([j.psnrVsSource, j.ssimVsSource]).toEqual([Number(psnr(video, s.source.data).toFixed(3)), Number(ssim(video, s.source.data, s.source.shape).toFixed(4))]);
  });

  it('a bad sample name, or --sample with --weights, is one line on stderr and exit code 2', async () => {
    const a = await run(['decode', '--sample', 'nope', '--out', join(dir, 'x.npy')]);
    expect(a.code).toBe(2);
    expect(a.err).toEqual([expect.stringMatching(/^wan-vae: bad-input: --sample nope: no such sample \(wan-vae samples lists them: astronaut-128, /)]);
    const b = await run(['decode', '--sample', 'rocket-64', '--weights', 'w.safetensors', '--latents', 'l.npy']);
    expect(b.code).toBe(2);
    expect(b.err).toEqual([expect.stringMatching(/--sample decodes a sample of the trained default model: pass it without --weights/)]);
  });

  // --source: any --weights/--latents decode measured against the clip its latents came from (the held-out
  // table, scripts/heldout-webgpu.mjs). The rocket-64 files given by path must give the --sample figures
  // (PyTorch's PSNR): a flag that is ignored (no psnrVsSource), reads the clip wrongly or compares another clip fails.
  it('decode --weights W --latents L --source CLIP --json reports psnrVsSource / ssimVsSource of that clip', async (ctx) => {
    await needGpu(ctx);
    const m = (f: string) => new URL(`../../models/${f}`, import.meta.url).pathname;
    const r = await run([
      'decode',
      '--weights',
      m('wan21-d32-decoder.safetensors'),
      '--latents',
      m('samples/rocket-64.latents.npy'),
      '--source',
      m('samples/rocket-64.source.npy'),
      '--json',
      '--out',
      join(dir, 's.npy'),
      '--progress',
      'off',
    ]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const j = JSON.parse(r.out.at(-1)!) as { sourceClip: string; psnrVsSource: number; ssimVsSource: number; sample?: string };
    const info = SAMPLES.find((s) => s.name === 'rocket-64')!;
    expect(j.sample).toBeUndefined();
    expect(j.sourceClip).toMatch(/rocket-64\.source\.npy$/);
    expect(Math.abs(j.psnrVsSource - info.psnrTorch)).toBeLessThan(0.05);
    const video = parseNpy(new Uint8Array(readFileSync(join(dir, 's.npy')))).data as Float32Array;
    const src = parseSourceClip(new Uint8Array(readFileSync(m('samples/rocket-64.source.npy'))), 'rocket-64', [3, 5, 64, 64]);
    expect(j.ssimVsSource).toBe(Number(ssim(video, src.data, src.shape).toFixed(4)));
    // a clip of another shape is refused by name before the decode; --source without --latents too
    const bad = await run([
      'decode',
      '--weights',
      m('wan21-d32-decoder.safetensors'),
      '--latents',
      m('samples/rocket-64.latents.npy'),
      '--source',
      m('samples/astronaut-128.source.npy'),
      '--out',
      join(dir, 'b.npy'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toEqual([expect.stringMatching(/astronaut-128\.source\.npy: source clip has shape \[3,9,128,128\], expected the decode's \[3,5,64,64\]$/)]);
    const none = await run(['decode', '--source', m('samples/rocket-64.source.npy')]);
    expect(none.code).toBe(2);
    expect(none.err).toEqual([expect.stringMatching(/--source is the clip that --latents were encoded from/)]);
  });

  it('a float source clip is read as [-1, 1] values; one outside is a one-line error', () => {
    // the float form of rocket-64's uint8 clip must equal the uint8 one read through u8 / 127.5 - 1
    const u8 = parseSourceClip(new Uint8Array(readFileSync(new URL('../../models/samples/rocket-64.source.npy', import.meta.url))), 'u8', [3, 5, 64, 64]);
    const f = join(dir, 'f.npy');
    writeFileSync(f, writeNpy([3, 5, 64, 64], u8.data));
    expect(parseSourceClip(new Uint8Array(readFileSync(f)), 'f32', [3, 5, 64, 64]).data).toEqual(u8.data);
    const off = u8.data.slice();
    off[7] = 1.5;
    writeFileSync(f, writeNpy([3, 5, 64, 64], off));
    expect(() => parseSourceClip(new Uint8Array(readFileSync(f)), 'clip.npy', [3, 5, 64, 64])).toThrow(/^clip\.npy: source clip value 1\.5 at index 7 is outside \[-1, 1\]/);
  });
});
