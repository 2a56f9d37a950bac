// The WGSL of the Winograd kernels that the decoder's plans do not compile (winograd-in/-out with 2 and 4 tiles per
// invocation), specialised as the decoder specialises its pipelines (gpu/kernel.ts specializedSource: the
// overrides written as consts, f32 and f16 storage), written as a `wan-vae shaders --dump` folder so that
// test/wgpu/compile-dir.ts compiles them on wgpu (naga):
//   npx vite build --config bench/probes/vite.wino-dump.config.ts && node .h200/probe/wino-dump.js DIR
//   node_modules/.bin/deno run --unstable-webgpu --allow-read test/wgpu/compile-dir.ts DIR
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { specializedSource, type AnyKernelDef, type Elem } from '../../src/gpu/kernel';
import { winogradIn, winogradOut } from '../../src/kernels/winograd';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node wino-dump.js DIR');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const index: { file: string; key: string }[] = [];
const put = (def: AnyKernelDef, ov: Record<string, number>, elem: Elem) => {
  const file = `${def.id}-${elem}-${Object.entries(ov)
    .map(([k, v]) => `${k}${v}`)
    .join('-')}.wgsl`;
  writeFileSync(join(dir, file), specializedSource(def, ov, elem));
  index.push({ file, key: file });
};
const inOv = [
  { KT: 3, UP: 0, NORM: 1, SILU: 1 },
  { KT: 1, UP: 1, NORM: 0, SILU: 0 },
];
for (const r of [2, 4] as const) {
  for (const T of [2, 4] as const) {
    for (const ov of inOv) put(winogradIn(r, 'elem', T), ov, 'f16');
    put(winogradIn(r, 'f32', T), inOv[0]!, 'f16');
    for (const HAS_RES of [0, 1, 2]) put(winogradOut(r, 'elem', T), { HAS_RES }, 'f32');
    put(winogradOut(r, 'f32', T), { HAS_RES: 2 }, 'f16');
  }
}
writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 1)}\n`);
console.log(`${index.length} shaders in ${dir}`);
