// The library's decode on wgpu (Deno's WebGPU; the engine of Firefox), for bench/h200/scenarios/wgpu.sh:
//   deno run --unstable-webgpu --allow-read --allow-write --allow-env bench/h200/wgpu-decode.ts \
//     --latent-size 21x60x104 [--options JSON] [--runs 2] [--out FILE.npy]
// Generated official-shape Wan2.1 weights (seed 1) and latents: the same as `wan-vae decode --synthetic 2.1
// --latent-size ...`, so the two engines' outputs compare. `--options`: the decode options as the CLI's
// JSON reports them (its `options` record: the Dawn row's plan), else the library's defaults. One JSON
// line per run: seconds (the decode, first run with pipeline compiles), peak and planned GPU bytes (the
// decoder's allocation), the options the decode ran with. `--out`: the last run's video as float32 .npy.
import type { DecodeOptions } from '../../src/index';

// the built library at run time (a variable specifier: the type checker takes the types from src/ instead)
const LIB = new URL('../../dist/lib/index.js', import.meta.url).href;
const { OFFICIAL, syntheticLatents, syntheticWeights, WanVaeDecoder, writeNpy } = (await import(LIB)) as typeof import('../../src/index');

declare const Deno: { args: string[]; writeFile(path: string, data: Uint8Array): Promise<void>; exit(code: number): never };

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i < 0 ? undefined : Deno.args[i + 1];
}
function fail(msg: string): never {
  console.error(`wgpu-decode: ${msg}`);
  return Deno.exit(2);
}

const size = /^(\d+)x(\d+)x(\d+)$/.exec(arg('latent-size') ?? '21x60x104') ?? fail('--latent-size must be TxHxW (latent frames x height x width)');
const [T, h, w] = [Number(size[1]), Number(size[2]), Number(size[3])];
const runs = Number(arg('runs') ?? 2);

/** The CLI's `options` record (booleans for on/off levers, nulls for unset) as DecodeOptions. */
function decodeOptions(json: string | undefined): DecodeOptions {
  if (!json) return {};
  const o = JSON.parse(json) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || k === 'latentStats') continue;
    out[k] = k === 'cacheOffload' || k === 'weightsStream' ? (v ? 'on' : 'off') : v;
  }
  return out as DecodeOptions;
}
const opts = decodeOptions(arg('options'));

const gpu = (navigator as { gpu?: GPU }).gpu ?? fail('navigator.gpu is undefined (run with --unstable-webgpu)');
const adapter = (await gpu.requestAdapter({ powerPreference: 'high-performance' })) ?? fail('requestAdapter() returned null (no Vulkan driver found)');
const info = adapter.info;
console.error(`wgpu-decode: adapter ${info.vendor} ${info.architecture} ${info.description}, features ${[...adapter.features].join(' ')}`);

const dec = new WanVaeDecoder(syntheticWeights({ ...OFFICIAL['2.1'], seed: 1 }));
const z = dec.cfg.zDim;
const latents = { data: syntheticLatents(z, T, h, w), shape: [z, T, h, w] as [number, number, number, number] };
for (let run = 1; run <= runs; run++) {
  const t0 = performance.now();
  const r = await dec.decode(latents, opts);
  const wall = (performance.now() - t0) / 1000;
  console.log(
    JSON.stringify({
      engine: 'wgpu (Deno)',
      adapter: `${info.vendor} ${info.architecture} ${info.description}`.trim(),
      run,
      seconds: r.seconds,
      wall,
      peakGpuBytes: r.peakGpuBytes,
      plannedPeakGpuBytes: r.plannedPeakGpuBytes,
      video: [3, r.frames, r.height, r.width],
      options: r.options,
    }),
  );
  if (run === runs && arg('out')) await Deno.writeFile(arg('out')!, writeNpy([3, r.frames, r.height, r.width], r.video));
}
dec.dispose();
Deno.exit(0);
