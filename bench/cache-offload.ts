// Offloaded caches, measured (issue 14): the same exact tiles decoded frame-major with every tile's cache
// rings resident, frame-major with the idle tiles' rings parked in CPU memory (--cache-offload on), and
// tile-major with the CPU store, against whole frames: seconds, peak GPU bytes (arena, = planned), the
// plan's CPU bytes and bus bytes (parked-ring uploads counted at queue.writeBuffer), max |err|.
// Usage: node node_modules/.cache/raw-build.mjs bench/cache-offload.ts node_modules/.cache/co.mjs && node node_modules/.cache/co.mjs [dim T h w th tw]
// (raw-build: esbuild with ?raw WGSL imports; any bundler of src/ works). Writes nothing: paste the table.
import { installNodeWebGPU } from '../src/node/install-webgpu';
import { WanVaeDecoder, type DecodeOptions } from '../src/decoder';
import { syntheticLatents, syntheticWeights } from '../src/model/synthetic';

const [dim, T, h, w, th, tw] = (process.argv.slice(2).length ? process.argv.slice(2) : ['16', '5', '16', '32', '8', '16']).map(Number) as [number, number, number, number, number, number];
await installNodeWebGPU();
const dec = new WanVaeDecoder(syntheticWeights({ version: '2.1', dim, zDim: 16, seed: 1 }));
const latents = { data: syntheticLatents(16, T, h, w), shape: [16, T, h, w] as [number, number, number, number] };
const tile = { th, tw, mode: 'exact' as const };
const rows: [string, DecodeOptions][] = [
  ['whole frames', {}],
  ['frame-major, caches resident', { tile: { ...tile, order: 'frame-major' } }],
  ['frame-major, caches offloaded', { tile: { ...tile, order: 'frame-major' }, cacheOffload: 'on' }],
  ['tile-major, CPU store', { tile: { ...tile, order: 'tile-major', store: 'cpu' } }],
];
const mib = (n: number) => (n / 2 ** 20).toFixed(2);
let ref: Float32Array | null = null;
const out = [
  `dim ${dim}, latents [16, ${T}, ${h}, ${w}], tiles ${th}x${tw} latent px (exact), f32`,
  '',
  '| order | s | peak GPU MiB (planned) | CPU MiB (by owner) | bus MiB / frame (levers) | max abs err vs whole |',
  '|---|---:|---:|---|---:|---:|',
];
for (const [name, o] of rows) {
  const p = dec.plan(latents.shape, { ...o, latentStats: 'none' });
  await dec.decode(latents, { ...o, latentStats: 'none' }); // warm: pipelines compiled, buffers made
  const t0 = performance.now();
  const r = await dec.decode(latents, { ...o, latentStats: 'none' });
  const s = (performance.now() - t0) / 1000;
  ref ??= r.video;
  let err = 0;
  for (let i = 0; i < ref.length; i++) err = Math.max(err, Math.abs(r.video[i]! - ref[i]!));
  const host = Object.entries(p.host)
    .filter(([k, v]) => k !== 'total' && v)
    .map(([k, v]) => `${k} ${mib(v)}`)
    .join(', ');
  out.push(
    `| ${name} | ${s.toFixed(2)} | ${mib(r.peakGpuBytes!)} (${mib(p.memory.total)}) | ${mib(p.host.total)} (${host}) | ${mib(p.bus.perFrame)} (${mib(p.bus.store + p.bus.cache)} in all) | ${err} |`,
  );
  console.error(out.at(-1));
}
dec.dispose();
console.log(out.join('\n'));
