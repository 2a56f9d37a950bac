// The trained default model (models/, issue 12): its decoder loads through the same loader as real Wan
// weights, the shipped samples match models/samples/samples.json, and the WebGPU decode of the test sample
// (rocket-64: 5 frames of 64x64, a clip never used in training) matches the float64 PyTorch decode of the
// same f16 weights and latents within 1e-3 and reaches the PSNR against the source clip that PyTorch measured.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { DecoderError } from '../../src/gpu/errors';
import { writeNpy } from '../../src/model/npy';
import { defaultSample, findSample, loadModelWeights, loadSample, parseU8Npy, psnrVsSource, SAMPLES, fetchReader, ssimVsSource, type ModelReader } from '../../src/model/samples';
import { compare } from '../helpers/compare';
import { isBrowser } from '../helpers/env';
import { needGpu } from '../helpers/need';

const MODELS = new URL('../../models/', import.meta.url);

/** models/ files: fs in Node, fetch from the vitest server in the browser. */
const read: ModelReader = isBrowser
  ? fetchReader(new URL('/models/', location.origin)) // the vitest server's root is the repository
  : async (rel) => {
      const [{ readFile }, { fileURLToPath }] = await Promise.all([import('node:fs/promises'), import('node:url')]);
      const b = await readFile(fileURLToPath(new URL(rel, MODELS)));
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    };

describe('trained default model (models/)', () => {
  it('the sample list matches models/samples/samples.json, one default', async () => {
    const json = JSON.parse(new TextDecoder().decode(await read('samples/samples.json'))) as { samples: Record<string, unknown>[] };
    expect(json.samples.map((s) => s.name)).toEqual(SAMPLES.map((s) => s.name));
    for (const s of json.samples) {
      const t = findSample(s.name as string);
      for (const k of ['frames', 'height', 'width', 'latentShape', 'files', 'psnrTorch', 'torchDecode', 'default', 'heldOut', 'photo', 'title'] as const) expect(t[k], `${t.name}.${k}`).toEqual(s[k]);
    }
    expect(SAMPLES.filter((s) => s.default)).toHaveLength(1);
    expect(defaultSample().name).toBe('astronaut-128');
  });

  it('the decoder loads as a Wan2.1 VAE decoder of width 32 through loadWeights (f16, official keys)', async () => {
    const w = await loadModelWeights(read);
    expect(w.get('decoder.conv1.weight').dtype).toBe('F16');
    const dec = new WanVaeDecoder(w);
    expect([dec.cfg.version, dec.cfg.dim, dec.cfg.zDim, dec.cfg.midDim]).toEqual(['2.1', 32, 16, 128]);
    expect(w.paramCount).toBe(8187315);
    dec.dispose();
  });

  it.skipIf(isBrowser)('every sample loads: latents and uint8 source clip of the listed shapes (Node only: reads all 16 MB)', async () => {
    for (const s of SAMPLES) {
      const l = await loadSample(s.name, read, { torch: true });
      expect(l.latents.shape).toEqual(s.latentShape);
      expect(l.source.shape).toEqual([3, s.frames, s.height, s.width]);
      expect(s.frames).toBe(1 + 4 * (s.latentShape[1] - 1));
      expect([s.height, s.width]).toEqual([8 * s.latentShape[2], 8 * s.latentShape[3]]);
      expect(!!l.torch).toBe(!!s.files.torch);
    }
  });

  it('WebGPU decode of rocket-64 matches the float64 PyTorch decode within 1e-3 and its PSNR vs source', async (ctx) => {
    const gpu = await needGpu(ctx);
    const s = await loadSample('rocket-64', read, { torch: true });
    const dec = new WanVaeDecoder(await loadModelWeights(read), gpu);
    try {
      const r = await dec.decode(s.latents, { backend: 'webgpu' });
      expect([3, r.frames, r.height, r.width]).toEqual(s.source.shape);
      const c = compare(r.video, s.torch!.data);
      const p = psnrVsSource(r.video, s.source.data);
      console.log(`rocket-64 webgpu: max|err| vs PyTorch ${c.maxAbs.toExponential(2)}, PSNR vs source ${p.toFixed(2)} dB (PyTorch ${s.info.psnrTorch}), ${r.seconds.toFixed(1)} s on ${r.adapter}`);
      expect(c.maxAbs).toBeLessThanOrEqual(1e-3);
      expect(Math.abs(p - s.info.psnrTorch)).toBeLessThan(0.05);
      expect(p).toBeGreaterThanOrEqual(28);
      // SSIM vs source: the WebGPU and the PyTorch decode see the same structure (a decode of the wrong frame
      // order or channel layout would fall far below the PyTorch figure)
      const ssimGpu = ssimVsSource(r.video, s.source),
        ssimTorch = ssimVsSource(s.torch!.data, s.source);
      expect(Math.abs(ssimGpu - ssimTorch)).toBeLessThan(1e-4);
      expect(ssimGpu).toBeGreaterThan(0.8);
    } finally {
      dec.dispose();
    }
  });

  it('bad names and files give one-line errors naming what was expected', async () => {
    expect(() => findSample('nope')).toThrow(/no sample named 'nope' \(samples: astronaut-128, rocket-64/);
    const f32 = writeNpy([2], new Float32Array([1, 2]));
    const e = (() => {
      try {
        parseU8Npy(f32, 'x.npy');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(DecoderError);
    expect((e as DecoderError).message).toBe("x.npy: dtype <f4, expected uint8 '|u1'");
    expect(psnrVsSource(new Float32Array([2, -1]), new Float32Array([1, -1]))).toBe(Infinity);
    expect(psnrVsSource(new Float32Array([0, 0]), new Float32Array([1, 1]))).toBeCloseTo(10 * Math.log10(4), 10);
  });
});
