// Throughput of a queue of decodes on one GPU against several (issue 14: "two GPUs decode a queue of 8
// videos in <= 0.6x the time of one, with no duplicated weights"): a DecoderPool (src/node/pool.ts) over
// the first N adapters Dawn lists, one host copy of the official-shape generated weights, N_ITEMS queued
// decodes of the same size, timed from the first queued item to the last result. Run it twice on a
// machine with two GPUs (kind nvidia-h200-x2): MEMBERS=1 then MEMBERS=2. Each member uploads the weights
// once (its own device); the host holds one copy (`weights` below is shared, not cloned).
// Build: npx vite build --config bench/levers/vite.pool.config.ts  (-> .h200-levers/pool-throughput.js)
// Run (GPU machine, after `source .gpu-bundle/boot.sh`):
//   MEMBERS=2 ITEMS=8 node .h200-levers/pool-throughput.js [--latent-size 21x60x104] [--version 2.1] [OUT.jsonl]
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { DecoderPool, listAdapters } from '../../src/node/pool';
import { installNodeWebGPU } from '../../src/node/install-webgpu';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const version = arg('--version', '2.1') as '2.1' | '2.2';
const [T, h, w] = arg('--latent-size', '21x60x104').split('x').map(Number) as [number, number, number];
const members = Number(process.env.MEMBERS ?? 1),
  items = Number(process.env.ITEMS ?? 8);
const outFile = process.argv.slice(2).find((a) => a.endsWith('.jsonl'));
const flags = ['enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia'];
await installNodeWebGPU(flags);
// identical GPUs (two 'NVIDIA H200') share a name: select them by PCI bus (ADAPTERS=pci-...,pci-... or,
// where names repeat, nvidia-smi's bus ids; needs Mesa's device-select Vulkan layer, see pool.ts)
const listed = await listAdapters();
const pciIds = () =>
  execFileSync('nvidia-smi', ['--query-gpu=pci.bus_id', '--format=csv,noheader'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((id) => {
      const [d, b, sf] = id
        .trim()
        .toLowerCase()
        .replace(/^0000(?=[0-9a-f]{4}:)/, '')
        .split(':');
      const [sl, f] = sf!.split('.');
      return `pci-${d}_${b}_${sl}_${f}`;
    });
const adapters = process.env.ADAPTERS ? process.env.ADAPTERS.split(',') : new Set(listed).size < listed.length ? pciIds() : listed;
console.error(`adapters listed: ${listed.join(' | ')}; pool members from: ${adapters.join(' | ')}`);
if (adapters.length < members) throw new Error(`MEMBERS=${members} but Dawn lists ${adapters.length} adapter(s): ${adapters.join(', ')}`);
const weights = syntheticWeights(OFFICIAL[version]);
const t0 = performance.now();
const pool = await DecoderPool.create(weights, { adapters: adapters.slice(0, members), dawnFlags: flags });
const created = (performance.now() - t0) / 1000;
const z = OFFICIAL[version].zDim;
const lat = (seed: number) => ({ data: syntheticLatents(z, T, h, w, seed), shape: [z, T, h, w] as [number, number, number, number] });
const t1 = performance.now();
const results = await Promise.all(Array.from({ length: items }, (_, i) => pool.decode(lat(i + 1), { precision: 'f16', latentStats: 'none', collect: false })));
const seconds = (performance.now() - t1) / 1000;
pool.dispose();
const line = {
  probe: 'pool-throughput',
  version,
  latent: [z, T, h, w],
  members,
  items,
  adapters: adapters.slice(0, members),
  seconds: +seconds.toFixed(2),
  poolCreateSeconds: +created.toFixed(2),
  perItem: results.map((r) => ({ member: r.member, seconds: r.seconds, tensorCores: r.options.tensorCores, peakGpuBytes: r.peakGpuBytes })),
};
console.log(JSON.stringify(line));
if (outFile) appendFileSync(outFile, JSON.stringify(line) + '\n');
