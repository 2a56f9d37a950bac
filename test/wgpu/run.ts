// The decoder on wgpu (the WebGPU engine of Firefox and Deno; shader compiler naga), run by Deno:
//   deno run --unstable-webgpu --unstable-sloppy-imports --allow-read --allow-env test/wgpu/run.ts [NAME ...]
// over the built library (dist/lib/index.js: `npm run build:lib`, or the two vite builds test/run.mjs
// makes). The cases are the Dawn tests' essentials, compared the same way: every golden case of
// ../shared/golden (float64 PyTorch decodes) within 1e-3 of the clamped @video, the Wan2.1 cache-off
// loop against @video_nocache, f16 storage at >= 45 dB; the trained model's samples rocket-64 and
// astronaut-128 within 1e-3 of their float64 PyTorch decodes (models/samples/*.torch.npy); exact 2x3
// tiles of wan22-tiny within 1e-5 of the untiled decode and 1e-3 of @video. (The shaders of the default 480x832 plan are
// compiled on wgpu by test/cli/shaders.node.test.ts through test/wgpu/compile-dir.ts.) Without ../shared (WAN_SHARED_DIR overrides the path) or an
// adapter the cases are skipped with the reason, and fail under CI=1 (as test/helpers/need.ts does).
// The last stdout line is `N passed, N failed, N skipped` (test/run.mjs adds it to its own); the exit
// code is non-zero on any failure. Arguments: case names (substrings) to run only those.
import type { DecodeOptions } from '../../src/index';
import { parseSafetensors, toFloat32, type StFile } from '../../src/model/safetensors';
import { compare } from '../helpers/compare';

declare const Deno: {
  args: string[];
  env: { get(name: string): string | undefined };
  readFile(path: string): Promise<Uint8Array>;
  exit(code: number): never;
};

const root = new URL('../../', import.meta.url);
// the built library at run time (a variable specifier: the type checker takes the types from src/ instead)
const LIB = new URL('dist/lib/index.js', root).href;
const { loadWeights, parseNpy, WanVaeDecoder } = (await import(LIB)) as typeof import('../../src/index');
const sharedDir = Deno.env.get('WAN_SHARED_DIR') ?? new URL('../shared/', root).pathname;
const isCI = !!Deno.env.get('CI') && Deno.env.get('CI') !== '0' && Deno.env.get('CI') !== 'false';

class Skip extends Error {}
/** Ends the case: skipped with `reason`, or under CI a failure naming it. */
function cannotRun(reason: string): never {
  if (isCI) throw new Error(`this case must run under CI, but ${reason}`);
  throw new Skip(reason);
}
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

async function readOr(path: string, what: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch {
    return cannotRun(`${what} is absent (${path})`);
  }
}

const goldens = new Map<string, { bytes: Uint8Array; f: StFile }>();
/** A golden file: its bytes (the weights load through the library's loadWeights) and its tensors. */
async function golden(name: string): Promise<{ bytes: Uint8Array; f: StFile }> {
  let g = goldens.get(name);
  if (!g) {
    const bytes = await readOr(`${sharedDir.replace(/\/$/, '')}/golden/${name}.safetensors`, `golden ${name}`);
    g = { bytes, f: parseSafetensors(bytes, name) };
    goldens.set(name, g);
  }
  return g;
}
const clamped = (t: Float32Array) => t.map((v) => Math.min(1, Math.max(-1, v)));

let adapterChecked = false;
async function needGpu(): Promise<void> {
  if (adapterChecked) return;
  const gpu = (navigator as { gpu?: GPU }).gpu;
  if (!gpu) cannotRun('navigator.gpu is undefined (run Deno with --unstable-webgpu)');
  const adapter = await gpu.requestAdapter();
  if (!adapter) cannotRun('requestAdapter() returned null (no Vulkan driver: lavapipe is mesa-vulkan-drivers)');
  const i = adapter.info;
  console.log(`adapter: ${i.vendor} ${i.architecture} ${i.description} (wgpu, Deno); shader-f16 ${adapter.features.has('shader-f16')}`);
  adapterChecked = true;
}

type Decoded = { f: StFile; r: Awaited<ReturnType<InstanceType<typeof WanVaeDecoder>['decode']>> };
const decoders = new Map<string, InstanceType<typeof WanVaeDecoder>>();
const decodes = new Map<string, Promise<Decoded>>();
/**
 * A golden file's latents decoded with `opts`, each (file, options) once: a case that needs a decode an
 * earlier case made (the exact-tiles case's untiled reference) reads it. One decoder per golden file,
 * reused by its cases (cache off, f16, tiles: a decoder decoding again under another plan), disposed at
 * the end; the decoder requests its own device (requestDecoderDevice).
 */
function decodeGolden(name: string, opts: DecodeOptions): Promise<Decoded> {
  const key = `${name} ${JSON.stringify(opts)}`;
  let d = decodes.get(key);
  if (!d) {
    d = (async () => {
      await needGpu();
      const { bytes, f } = await golden(name);
      let dec = decoders.get(name);
      if (!dec) decoders.set(name, (dec = new WanVaeDecoder(loadWeights(bytes, name))));
      const lat = f.tensors.get('@latents')!;
      const stats = { mean: toFloat32(f.tensors.get('@mean')!), std: toFloat32(f.tensors.get('@std')!) };
      return { f, r: await dec.decode({ data: toFloat32(lat), shape: lat.shape as [number, number, number, number] }, { latentStats: stats, ...opts }) };
    })();
    decodes.set(key, d);
  }
  return d;
}

type Case = [name: string, run: () => Promise<string>];
const cases: Case[] = [];

for (const name of ['wan21-tiny', 'wan21-image', 'wan21-small', 'wan22-tiny', 'wan22-small'])
  cases.push([
    `golden ${name}: cache on matches @video within 1e-3`,
    async () => {
      const { f, r } = await decodeGolden(name, {});
      const want = f.tensors.get('@video')!;
      check(JSON.stringify([3, r.frames, r.height, r.width]) === JSON.stringify(want.shape), `shape [3,${r.frames},${r.height},${r.width}], expected [${want.shape}]`);
      const c = compare(r.video, clamped(toFloat32(want)));
      check(c.maxAbs <= 1e-3, `max|err| ${c.maxAbs} > 1e-3 at ${c.maxAbsAt}`);
      check(r.peakGpuBytes === r.plannedPeakGpuBytes, `peak ${r.peakGpuBytes} B != planned ${r.plannedPeakGpuBytes} B`);
      return `max|err| ${c.maxAbs.toExponential(2)}, PSNR ${c.psnr.toFixed(1)} dB, ${r.seconds.toFixed(2)} s, peak ${r.peakGpuBytes} B`;
    },
  ]);

cases.push([
  `golden wan21-tiny: cache off matches @video_nocache within 1e-3`,
  async () => {
    const { f, r } = await decodeGolden('wan21-tiny', { cache: 'off' });
    const c = compare(r.video, clamped(toFloat32(f.tensors.get('@video_nocache')!)));
    check(c.maxAbs <= 1e-3, `max|err| ${c.maxAbs} > 1e-3 at ${c.maxAbsAt}`);
    return `max|err| ${c.maxAbs.toExponential(2)}, ${r.frames} frames`;
  },
]);

cases.push([
  `golden wan22-tiny: f16 storage PSNR >= 45 dB`,
  async () => {
    const { f, r } = await decodeGolden('wan22-tiny', { precision: 'f16' });
    if (r.options.precision !== 'f16') cannotRun(`the device has no shader-f16 (the decode ran ${r.options.precision})`);
    const c = compare(r.video, clamped(toFloat32(f.tensors.get('@video')!)));
    check(c.psnr >= 45, `PSNR ${c.psnr.toFixed(1)} dB < 45`);
    return `max|err| ${c.maxAbs.toExponential(2)}, PSNR ${c.psnr.toFixed(1)} dB`;
  },
]);

cases.push([
  `golden wan22-tiny: exact 2x3 tiles equal the untiled decode within 1e-5 and @video within 1e-3`,
  async () => {
    // the untiled decode of the cache-on case above (decoded once)
    const { f, r } = await decodeGolden('wan22-tiny', {});
    const { r: t } = await decodeGolden('wan22-tiny', { tile: { th: 2, tw: 3, mode: 'exact', order: 'tile-major' } });
    check((t.options.tile as { th?: number } | null)?.th === 2, `the decode was not tiled (tile ${JSON.stringify(t.options.tile)})`);
    const cu = compare(t.video, r.video),
      cg = compare(t.video, clamped(toFloat32(f.tensors.get('@video')!)));
    check(cu.maxAbs <= 1e-5, `vs untiled max|err| ${cu.maxAbs} > 1e-5`);
    check(cg.maxAbs <= 1e-3, `vs golden max|err| ${cg.maxAbs} > 1e-3`);
    return `vs untiled ${cu.maxAbs.toExponential(2)}, vs golden ${cg.maxAbs.toExponential(2)}`;
  },
]);

// rocket-64 whole (2 latent frames: the feature cache across chunks); astronaut-128 its first latent
// frame only: the decoder is causal in time, so latent frame 0 alone decodes video frame 0 of the whole
// decode exactly (CI time: all 9 frames take minutes on lavapipe through wgpu)
for (const [sample, latentFrames] of [
  ['rocket-64', Infinity],
  ['astronaut-128', 1],
] as const)
  cases.push([
    `sample ${sample}${latentFrames === Infinity ? '' : `, latent frame 0`}: matches the float64 PyTorch decode within 1e-3`,
    async () => {
      await needGpu();
      const file = (rel: string) => Deno.readFile(new URL(`models/${rel}`, root).pathname);
      const weights = loadWeights(await file('wan21-d32-decoder.safetensors'), 'models/wan21-d32-decoder.safetensors');
      const lat = parseNpy(await file(`samples/${sample}.latents.npy`), `${sample}.latents.npy`);
      const torch = parseNpy(await file(`samples/${sample}.torch.npy`), `${sample}.torch.npy`);
      // latents [z, T, h, w] -> the first `T1` latent frames; the PyTorch video [3, F, H, W] -> its first 1 + 4 (T1 - 1)
      const [z, T, h, w] = lat.shape as [number, number, number, number];
      const T1 = Math.min(T, latentFrames);
      const data = new Float32Array(z * T1 * h * w);
      for (let c = 0; c < z; c++) data.set((lat.data as Float32Array).subarray(c * T * h * w, (c * T + T1) * h * w), c * T1 * h * w);
      const [, F, H, W] = torch.shape as [number, number, number, number];
      const F1 = 1 + 4 * (T1 - 1);
      const want = new Float32Array(3 * F1 * H * W);
      for (let c = 0; c < 3; c++) want.set((torch.data as Float32Array).subarray(c * F * H * W, (c * F + F1) * H * W), c * F1 * H * W);
      const dec = new WanVaeDecoder(weights);
      try {
        // the samples' latents are normalised with the official Wan2.1 statistics (samples.json), the default
        const r = await dec.decode({ data, shape: [z, T1, h, w] });
        check(JSON.stringify([3, r.frames, r.height, r.width]) === JSON.stringify([3, F1, H, W]), `shape [3,${r.frames},${r.height},${r.width}], expected [3,${F1},${H},${W}]`);
        const c = compare(r.video, want);
        check(c.maxAbs <= 1e-3, `max|err| ${c.maxAbs} > 1e-3 at ${c.maxAbsAt}`);
        return `max|err| vs PyTorch ${c.maxAbs.toExponential(2)} over ${F1} frames, ${r.seconds.toFixed(2)} s`;
      } finally {
        dec.dispose();
      }
    },
  ]);

const only = Deno.args;
let passed = 0,
  failed = 0,
  skipped = 0;
const started = performance.now();
for (const [name, run] of cases) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const t0 = performance.now();
  try {
    const what = await run();
    passed++;
    console.log(`  ok    ${name}: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    if (e instanceof Skip) {
      skipped++;
      console.log(`  skip  ${name}: ${e.message}`);
    } else {
      failed++;
      console.log(`  FAIL  ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
for (const dec of decoders.values()) dec.dispose();
console.log(`test/wgpu/run.ts: ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
Deno.exit(failed > 0 ? 1 : 0);
