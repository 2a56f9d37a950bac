// The trained default model (models/, issue 12) and its shipped samples: the list, how to load a sample
// (latents, uint8 source clip, optional PyTorch decode) through any byte reader (fs in Node, fetch in the
// browser), and PSNR of a decode against its source clip. Platform-neutral: no node: imports here.
import { DecoderError } from '../gpu/errors';
import { parseLatents, type Latents } from './latents';
import { parseNpy } from './npy';
import { psnr, ssim } from './quality';
import { loadWeights, type Weights } from './weights';

/** The trained decoder: Wan2.1 architecture at base width 32, f16, official key names (models/README.md). */
export const MODEL_DECODER_FILE = 'wan21-d32-decoder.safetensors';
export const MODEL_NAME = 'wan21-d32 (trained default, dim 32)';

export interface SampleInfo {
  name: string;
  title: string;
  /** the scikit-image photograph the camera moves over, or 'procedural' */
  photo: string;
  /** 'clip': a clip (camera move) never used in training; 'photograph': a photograph never used in training */
  heldOut: 'clip' | 'photograph';
  frames: number;
  height: number;
  width: number;
  /** [z, T, h, w] */
  latentShape: [number, number, number, number];
  /** file names under models/samples/ */
  files: { latents: string; source: string; torch?: string };
  /** PSNR (dB, over [-1, 1]) of the PyTorch decode of the shipped latents against the source clip */
  psnrTorch: number;
  /** precision of that PyTorch decode ('float64' ones ship as `files.torch`) */
  torchDecode: 'float64' | 'float32';
  default: boolean;
}

/** models/samples/samples.json, checked against the files by test/model-samples. */
export const SAMPLES: readonly SampleInfo[] = [
  {
    name: 'astronaut-128',
    title: 'Astronaut portrait, pan and zoom',
    photo: 'astronaut',
    heldOut: 'clip',
    frames: 9,
    height: 128,
    width: 128,
    latentShape: [16, 3, 16, 16],
    files: { latents: 'astronaut-128.latents.npy', source: 'astronaut-128.source.npy', torch: 'astronaut-128.torch.npy' },
    psnrTorch: 23.045,
    torchDecode: 'float64',
    default: true,
  },
  {
    name: 'rocket-64',
    title: 'Rocket launch, small pan (the test sample)',
    photo: 'rocket',
    heldOut: 'clip',
    frames: 5,
    height: 64,
    width: 64,
    latentShape: [16, 2, 8, 8],
    files: { latents: 'rocket-64.latents.npy', source: 'rocket-64.source.npy', torch: 'rocket-64.torch.npy' },
    psnrTorch: 32.837,
    torchDecode: 'float64',
    default: false,
  },
  {
    name: 'chelsea-256',
    title: 'Chelsea the cat, pan and rotation (photograph never seen in training)',
    photo: 'chelsea',
    heldOut: 'photograph',
    frames: 17,
    height: 256,
    width: 256,
    latentShape: [16, 5, 32, 32],
    files: { latents: 'chelsea-256.latents.npy', source: 'chelsea-256.source.npy' },
    psnrTorch: 28.947,
    torchDecode: 'float32',
    default: false,
  },
  {
    name: 'shapes-256',
    title: 'Procedural scene: shapes moving over a moving gradient',
    photo: 'procedural',
    heldOut: 'clip',
    frames: 17,
    height: 256,
    width: 256,
    latentShape: [16, 5, 32, 32],
    files: { latents: 'shapes-256.latents.npy', source: 'shapes-256.source.npy' },
    psnrTorch: 30.428,
    torchDecode: 'float32',
    default: false,
  },
  {
    name: 'coffee-480x832',
    title: 'Coffee cup, slow pan at 480x832',
    photo: 'coffee',
    heldOut: 'clip',
    frames: 5,
    height: 480,
    width: 832,
    latentShape: [16, 2, 60, 104],
    files: { latents: 'coffee-480x832.latents.npy', source: 'coffee-480x832.source.npy' },
    psnrTorch: 29.957,
    torchDecode: 'float32',
    default: false,
  },
];

/** The sample the CLI and the demo decode when none is named. */
export function defaultSample(): SampleInfo {
  return SAMPLES.find((s) => s.default)!;
}

export function findSample(name: string): SampleInfo {
  const s = SAMPLES.find((x) => x.name === name);
  if (!s) throw new DecoderError('bad-input', `no sample named '${name}' (samples: ${SAMPLES.map((x) => x.name).join(', ')})`);
  return s;
}

/** Reads a file of models/ by its path relative to that folder (e.g. 'samples/rocket-64.latents.npy'). */
export type ModelReader = (rel: string) => Promise<Uint8Array>;

/** A reader over HTTP(S) / file URLs: `base` is the URL of the models/ folder (ending in '/'). */
export function fetchReader(base: string | URL): ModelReader {
  return async (rel) => {
    const url = new URL(rel, base);
    const r = await fetch(url);
    if (!r.ok) throw new DecoderError('bad-input', `cannot fetch ${url.href}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  };
}

/** A video clip [3, F, H, W] in [-1, 1]. */
export interface Clip {
  data: Float32Array;
  shape: [number, number, number, number];
}

export interface LoadedSample {
  info: SampleInfo;
  latents: Latents;
  /** the source clip, from uint8: x = u8 / 127.5 - 1 */
  source: Clip;
  /** the float64 PyTorch decode of the same weights and latents, clamped (only where `info.files.torch`) */
  torch?: Clip;
}

/** A uint8 .npy (`|u1`), C order; a clear error for anything else. */
export function parseU8Npy(buf: Uint8Array, source: string): { shape: number[]; data: Uint8Array } {
  if (buf.byteLength < 10 || buf[0] !== 0x93 || buf[1] !== 0x4e) throw new DecoderError('bad-input', `${source}: not a .npy file (missing \\x93NUMPY magic)`);
  const major = buf[6]!;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  const hstart = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(buf.subarray(hstart, hstart + hlen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shapeStr = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr !== '|u1') throw new DecoderError('bad-input', `${source}: dtype ${descr ?? '?'}, expected uint8 '|u1'`);
  if (/'fortran_order':\s*True/.test(header)) throw new DecoderError('bad-input', `${source}: Fortran-order arrays are not supported`);
  if (shapeStr === undefined) throw new DecoderError('bad-input', `${source}: unreadable .npy header: ${header.trim()}`);
  const shape = shapeStr
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length)
    .map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const off = hstart + hlen;
  if (buf.byteLength - off < n) throw new DecoderError('bad-input', `${source}: shape [${shape}] needs ${n} data bytes, file has ${buf.byteLength - off}; truncated?`);
  return { shape, data: buf.subarray(off, off + n) };
}

function clipShape(shape: number[], info: SampleInfo, what: string): [number, number, number, number] {
  const want = [3, info.frames, info.height, info.width];
  if (shape.length !== 4 || shape.some((v, i) => v !== want[i])) throw new DecoderError('bad-input', `sample ${info.name}: ${what} has shape [${shape}], expected [${want}]`);
  return shape as [number, number, number, number];
}

/** uint8 [3, F, H, W] -> [-1, 1] floats, as the recipe quantised the source (models/train/data.py `quantize`). */
export function u8ToClip(data: Uint8Array): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i]! / 127.5 - 1;
  return out;
}

/**
 * A source clip `.npy` to measure a decode against (`wan-vae decode --source`): uint8 [3, F, H, W]
 * (x = u8 / 127.5 - 1, as the samples and models/train/encode.py) or float [3, F, H, W] in [-1, 1].
 * `want` is the decode's shape [3, F, H, W]; anything else is a one-line error naming the file.
 */
export function parseSourceClip(buf: Uint8Array, source: string, want: readonly number[]): Clip {
  const isU8 = /'descr':\s*'\|u1'/.test(new TextDecoder().decode(buf.subarray(0, Math.min(buf.byteLength, 256))));
  const a = isU8 ? parseU8Npy(buf, source) : parseNpy(buf, source);
  if (a.shape.length !== 4 || a.shape.some((v, i) => v !== want[i])) throw new DecoderError('bad-input', `${source}: source clip has shape [${a.shape}], expected the decode's [${want}]`);
  const data = isU8 ? u8ToClip(a.data as Uint8Array) : (a.data as Float32Array);
  if (!isU8)
    for (let i = 0; i < data.length; i++)
      if (!(Math.abs(data[i]!) <= 1.001)) throw new DecoderError('bad-input', `${source}: source clip value ${data[i]} at index ${i} is outside [-1, 1] (float clips are in [-1, 1]; or save uint8)`);
  return { data, shape: a.shape as [number, number, number, number] };
}

/** The trained decoder's weights, through the same loader as real Wan weights. */
export async function loadModelWeights(read: ModelReader): Promise<Weights> {
  return loadWeights(await read(MODEL_DECODER_FILE), `models/${MODEL_DECODER_FILE}`);
}

/** Latents, source clip and (where shipped) the PyTorch decode of one sample, shapes checked. */
export async function loadSample(name: string, read: ModelReader, opts: { torch?: boolean } = {}): Promise<LoadedSample> {
  const info = findSample(name);
  const rel = (f: string) => `samples/${f}`;
  const [lb, sb, tb] = await Promise.all([read(rel(info.files.latents)), read(rel(info.files.source)), opts.torch && info.files.torch ? read(rel(info.files.torch)) : Promise.resolve(null)]);
  const latents = parseLatents(lb, `models/samples/${info.files.latents}`);
  if (latents.shape.some((v, i) => v !== info.latentShape[i])) throw new DecoderError('bad-input', `sample ${name}: latents have shape [${latents.shape}], expected [${info.latentShape}]`);
  const u8 = parseU8Npy(sb, `models/samples/${info.files.source}`);
  const source: Clip = { data: u8ToClip(u8.data), shape: clipShape(u8.shape, info, 'the source clip') };
  let torch: Clip | undefined;
  if (tb) {
    const t = parseNpy(tb, `models/samples/${info.files.torch}`);
    torch = { data: t.data, shape: clipShape(t.shape, info, 'the PyTorch decode') };
  }
  return { info, latents: { ...latents, source: `sample ${name}` }, source, torch };
}

/** PSNR in dB over [-1, 1] (peak-to-peak 2) of `video` (clamped to [-1, 1]) against `ref`; Infinity when equal. */
export function psnrVsSource(video: Float32Array, ref: Float32Array): number {
  return psnr(video, ref);
}

/** SSIM (luma, 11x11 Gaussian window, per frame, mean; src/model/quality.ts) of `video` against a sample's source clip. */
export function ssimVsSource(video: Float32Array, source: Clip): number {
  return ssim(video, source.data, source.shape);
}
