// Per-layer GPU profile of one whole decode (issue 11): every dispatch in its own compute pass
// (src/runtime/exec/encode.ts passProfile), each pass timed by timestamp queries (bench/lib/pass-probe.ts),
// summed per step kind / kernel and per layer (the vae.py module path of the step) over all chunks.
// Run from the Node bench bundle: node out/bench/bench-node.mjs --profile --model 2.1 --latent 21x60x104
//   --precision f16 --tensor-cores on [--norm fused] [--tile exact:60x52:tile-major:cpu] --name NAME --out DIR
//   --dawn-flags F --commit SHA
// Writes DIR/NAME.json (every layer row) and DIR/NAME.md (the tables of the README). Before the profiled
// decode: one plain decode (compiles, warms) and one timed plain decode (wall ms, what a caller waits for).
// Separate passes add a small gap per dispatch: the profiled sum is GPU time, not the plain decode's wall.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WanVaeDecoder, type DecodeOptions } from '../src/decoder';
import { requestDecoderDevice } from '../src/gpu/device';
import { installNodeWebGPU } from '../src/node/install-webgpu';
import { packConvWeightBlocked } from '../src/kernels/conv3d-mma';
import { passProfile } from '../src/runtime/exec/encode';
import { storageBytes } from '../src/runtime/f16';
import { decodeOptions } from './lib/decode';
import { decodeFlops, latentsFor, modelFor } from './lib/models';
import { PassProbe } from './lib/pass-probe';
import type { ModelSpec } from './lib/types';

interface Row {
  key: string;
  ms: number;
  flops: number;
  dispatches: number;
}

function arg(argv: string[], name: string, dflt?: string): string {
  const i = argv.indexOf(`--${name}`);
  if (i < 0 || i + 1 >= argv.length) {
    if (dflt === undefined) throw new Error(`profile: --${name} is required`);
    return dflt;
  }
  return argv[i + 1]!;
}

/** Sum the timed passes labelled `profile|step|kernel|flops|kind` by `keyOf`, largest time first. */
export function aggregate(each: { label: string; ms: number }[], keyOf: (f: string[]) => string): Row[] {
  const rows = new Map<string, Row>();
  for (const p of each) {
    const f = p.label.split('|');
    if (f[0] !== 'profile') continue;
    const k = keyOf(f);
    const r = rows.get(k) ?? { key: k, ms: 0, flops: 0, dispatches: 0 };
    r.ms += p.ms;
    r.flops += Number(f[3]);
    r.dispatches++;
    rows.set(k, r);
  }
  return [...rows.values()].sort((a, b) => b.ms - a.ms);
}

function table(title: string, rows: Row[], total: number, limit = rows.length): string {
  const lines = [`| ${title} | ms | share | TFLOP/s | dispatches |`, '| --- | ---: | ---: | ---: | ---: |'];
  for (const r of rows.slice(0, limit))
    lines.push(`| ${r.key} | ${r.ms.toFixed(1)} | ${((100 * r.ms) / total).toFixed(1)}% | ${r.flops ? (r.flops / r.ms / 1e9).toFixed(1) : '-'} | ${r.dispatches} |`);
  if (rows.length > limit) {
    const rest = rows.slice(limit);
    const ms = rest.reduce((s, r) => s + r.ms, 0);
    lines.push(`| (${rest.length} more) | ${ms.toFixed(1)} | ${((100 * ms) / total).toFixed(1)}% | | |`);
  }
  return lines.join('\n');
}

export async function profileMain(argv: string[]): Promise<number> {
  const version = arg(argv, 'model', '2.1') as '2.1' | '2.2';
  const spec: ModelSpec = version === '2.1' ? { version, dim: 96, zDim: 16, seed: 1 } : { version, dim: 256, zDim: 48, seed: 1 };
  const latent = arg(argv, 'latent', '5x60x104').split('x').map(Number) as [number, number, number];
  if (latent.length !== 3 || latent.some((n) => !(n >= 1))) throw new Error(`profile: --latent ${arg(argv, 'latent')} is not TxHxW`);
  const opts: DecodeOptions = {
    precision: arg(argv, 'precision', 'f16') as 'f16' | 'f32',
    tensorCores: arg(argv, 'tensor-cores', 'off') === 'on',
    norm: arg(argv, 'norm', 'full') as 'full' | 'fused',
    // --conv auto|direct|winograd|winograd4: the form of the portable f32 3x3 convs (src/kernels/winograd.ts)
    conv: arg(argv, 'conv', 'auto') as DecodeOptions['conv'],
    latentStats: 'none',
    collect: false,
    // --tile MODE:HxW[:ORDER][:STORE] as the bench's decode switch (e.g. exact:60x52:tile-major:cpu, the
    // plan --budget 1536 picks at 480x832 f16 with tensor cores); default whole frames
    ...decodeOptions({ tile: arg(argv, 'tile', 'none') }),
  };
  const name = arg(argv, 'name', `profile-wan${version}-${latent.join('x')}-${opts.precision}${opts.tensorCores ? '-mma' : ''}`);
  const outDir = resolve(arg(argv, 'out', 'bench/results'));
  await installNodeWebGPU(arg(argv, 'dawn-flags', '').split(/\s+/).filter(Boolean));
  const gpu = await requestDecoderDevice({ wantF16: true });
  if (!PassProbe.available(gpu.device)) throw new Error('profile: the device has no timestamp-query (Dawn: allow_unsafe_apis)');
  const { weights, cfg } = modelFor(spec);
  const lat = latentsFor(spec, latent);
  // the CPU part of a cold start on tensor cores: every 5-D conv weight re-blocked (packConvWeightBlocked)
  // and converted to f16 (storageBytes), as src/runtime/exec/weights.ts does before the upload
  const tPrep = performance.now();
  let prepParams = 0;
  for (const [, t] of weights.map)
    if (t.shape.length === 5) {
      const [co, ci, kt, ks] = t.shape as [number, number, number, number];
      storageBytes(packConvWeightBlocked(t.data, co, ci, kt, ks), 'f16');
      prepParams += t.data.length;
    }
  const prepMs = performance.now() - tPrep;
  const dec = new WanVaeDecoder(weights, gpu);
  const t0 = performance.now();
  await dec.decode(lat, opts); // compile + upload + first run
  const coldMs = performance.now() - t0;
  const t1 = performance.now();
  const plain = await dec.decode(lat, opts);
  const wallMs = performance.now() - t1;
  const probe = new PassProbe(gpu.device, 2048);
  passProfile.on = true;
  let busy: Awaited<ReturnType<PassProbe['collect']>>;
  try {
    await dec.decode(lat, opts);
  } finally {
    passProfile.on = false;
    busy = await probe.collect();
  }
  dec.dispose();
  const total = busy.each.reduce((s, p) => s + (p.label.startsWith('profile|') ? p.ms : 0), 0);
  const byKernel = aggregate(busy.each, (f) => f[2]!);
  const byKind = aggregate(busy.each, (f) => f[4]!);
  const byLayer = aggregate(busy.each, (f) => f[1]!);
  const byLayerKernel = aggregate(busy.each, (f) => `${f[1]} ${f[2]}`);
  const byShape = aggregate(busy.each, (f) => `${f[2]}${f[5] ? ` ${f[5]}` : ''}`);
  const flops = decodeFlops(cfg, latent);
  const head = [
    `# GPU profile: Wan${version} latent ${latent.join('x')} -> ${plain.frames} frames ${plain.width}x${plain.height}, ${opts.precision}, tensor cores ${opts.tensorCores ? 'on' : 'off'}, norm ${opts.norm}, conv ${opts.conv}`,
    '',
    `- ${new Date().toISOString()}, commit ${arg(argv, 'commit', 'unknown')}, adapter ${plain.adapter}`,
    `- CPU weight preparation for tensor cores (re-block + f16 of ${(prepParams / 1e6).toFixed(0)} M conv weights, measured alone before the decodes): ${prepMs.toFixed(0)} ms`,
    `- plain decode (warm): ${wallMs.toFixed(0)} ms wall (cold ${coldMs.toFixed(0)} ms); dense ${(flops / 1e12).toFixed(1)} TFLOP -> ${(flops / wallMs / 1e9).toFixed(1)} TFLOP/s effective`,
    `- profiled decode (one pass per dispatch): ${total.toFixed(0)} ms of GPU time in ${busy.passes} passes${busy.untimed ? ` (${busy.untimed} untimed)` : ''}; share = of that sum; TFLOP/s = useful FLOPs of the kernel / its time`,
    '',
  ].join('\n');
  const md = [
    head,
    table('step kind', byKind, total),
    '',
    table('kernel', byKernel, total),
    '',
    table('kernel and conv shape (cin->cout, output frame, taps)', byShape, total, 30),
    '',
    table('layer (vae.py path)', byLayer, total, 40),
    '',
  ].join('\n');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${name}.md`), md);
  writeFileSync(
    join(outDir, `${name}.json`),
    JSON.stringify(
      { version, latent, opts, wallMs, coldMs, prepMs, prepParams, flops, gpuMs: total, passes: busy.passes, untimed: busy.untimed, byKind, byKernel, byShape, byLayer, byLayerKernel },
      null,
      1,
    ),
  );
  console.log(md);
  gpu.device.destroy();
  return 0;
}
