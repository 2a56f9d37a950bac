// The GPU upload from lazy weights over a file (Node's file handle, as the CLI reads --weights): the staged
// preparation reads each conv weight ahead (Weights.prefetch: into one reused staging buffer, 16-bit files
// converted into one reused f32 buffer) and writes every weight buffer bit for bit as the same file loaded
// into memory does, on every path of the preparation: the GPU tuning's staged chunks, a CPU adapter's JS
// packing, the Winograd convs' U (exec/wino-weights.ts) or, with U made per call, their rows. F32 and BF16 files (lavapipe).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conv3dTuning } from '../../src/kernels/conv3d';
import { inferConfig } from '../../src/model/config';
import { syntheticWeights } from '../../src/model/synthetic';
import { loadWeights, openWeights, type Weights } from '../../src/model/weights';
import { fileSource } from '../../src/node/file-source';
import { plan } from '../../src/plan/planner';
import { GpuDecoder } from '../../src/runtime/gpu-decoder';
import { getTestDevice, readBytes } from '../helpers/gpu';
import { needDevice } from '../helpers/need';

const gpu = await getTestDevice();
const dir = mkdtempSync(join(tmpdir(), 'wan-vae-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `w` as a safetensors file of `dtype` (BF16: the top half of each f32) at an odd data offset (every tensor unaligned). */
function writeFile(w: Weights, dtype: 'F32' | 'BF16', path: string): void {
  const header: Record<string, unknown> = {};
  const parts: Uint8Array[] = [];
  let off = 0;
  for (const [k, t] of w.map) {
    const f = t.data;
    const b =
      dtype === 'F32'
        ? new Uint8Array(f.buffer.slice(f.byteOffset, f.byteOffset + f.byteLength))
        : new Uint8Array(Uint16Array.from(new Uint32Array(Float32Array.from(f).buffer), (x) => x >>> 16).buffer);
    header[k] = { dtype, shape: t.shape, data_offsets: [off, off + b.byteLength] };
    parts.push(b);
    off += b.byteLength;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8 !== 3) json += ' ';
  const head = Buffer.alloc(8 + json.length);
  head.writeBigUInt64LE(BigInt(json.length), 0);
  head.write(json, 8);
  writeFileSync(path, Buffer.concat([head, ...parts]));
}

describe('GpuDecoder.create from lazy weights over a file = from the same file in memory', () => {
  // (winograd4 'auto': U made per conv call, the rows read ahead and uploaded as they are; 'held': U made at upload)
  for (const [dtype, tuning, conv, winoU] of [
    ['F32', 'gpu', 'direct', 'auto'],
    ['F32', 'cpu', 'direct', 'auto'],
    ['BF16', 'gpu', 'direct', 'auto'],
    ['BF16', 'cpu', 'direct', 'auto'],
    ['BF16', 'gpu', 'winograd4', 'auto'],
    ['BF16', 'gpu', 'winograd4', 'held'],
    ['F32', 'cpu', 'winograd4', 'auto'],
  ] as const)
    it(`${dtype} file, ${tuning} tuning, conv ${conv}${conv === 'direct' ? '' : `, U ${winoU}`}: every weight buffer equal, conv weights read ahead into the reused buffers`, async (ctx) => {
      const { device } = needDevice(ctx, gpu);
      const path = join(dir, `w-${dtype}.safetensors`);
      writeFile(syntheticWeights({ version: '2.1', dim: 16, zDim: 16, seed: 5 }), dtype, path);
      const inMemory = loadWeights(new Uint8Array(readFileSync(path)), path);
      const src = fileSource(path);
      // the staged reads counted (readInto: the prefetch's)
      let staged = 0;
      const readInto = src.readInto!;
      src.readInto = (o, n, into) => (staged++, readInto(o, n, into));
      const lazy = await openWeights(src);
      const p = plan(inferConfig(inMemory), { frames: 1, h: 4, w: 6, cache: 'on', precision: 'f32', conv, winoU });
      const build = (w: Weights) => GpuDecoder.create(device, p, w, { tuning: { ...conv3dTuning[tuning] } });
      const ref = await build(inMemory);
      const dec = await build(lazy);
      try {
        const bufs = (d: GpuDecoder) => (d as unknown as { res: { weights: Map<string, GPUBuffer> } }).res.weights;
        expect([...bufs(dec).keys()].sort()).toEqual([...bufs(ref).keys()].sort());
        expect(bufs(dec).size).toBeGreaterThan(60);
        for (const [k, b] of bufs(ref)) expect(Buffer.from(await readBytes(device, bufs(dec).get(k)!)).equals(Buffer.from(await readBytes(device, b))), k).toBe(true);
        // every conv weight over the kept-small limit went through prefetch (dim 16: the 64-channel 3x3x3 convs and more)
        expect(staged).toBeGreaterThan(5);
        // the window: one staging buffer of the largest tensor's bytes (+ its f32 conversion buffer for BF16) and the small tensors
        const largest = Math.max(...[...inMemory.map.values()].map((w) => w.data.length));
        expect(lazy.load!.peakWindowBytes).toBeGreaterThanOrEqual(largest * (dtype === 'F32' ? 4 : 2 + 4));
      } finally {
        dec.dispose();
        ref.dispose();
        src.close();
      }
    });
});
