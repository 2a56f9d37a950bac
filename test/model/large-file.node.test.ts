// A Wan2.2-layout f32 safetensors file larger than 2.2 GiB (test/helpers/sparse-wan22.ts: the official
// decoder shapes, the full-model encoder half as padding; a sparse file in a temp dir, a marker written at
// the start of every decoder tensor) loads through a file handle: every decoder tensor read back equal to
// what was written, through the staged upload's reads (Weights.prefetch: one reused buffer) and the
// synchronous ones, the process's peak RSS under 1 GiB, the load's window bounded by the largest tensor
// (issue 23). And the prefetch of 16-bit and f64 tensors (converted into one reused f32 buffer) gives the
// values of the synchronous read, bit for bit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { openWeights, type Weights } from '../../src/model/weights';
import { fileSource } from '../../src/node/file-source';
import { writeSparseWan22 } from '../helpers/sparse-wan22';

const dir = mkdtempSync(join(tmpdir(), 'wan-vae-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** the marker of tensor `i`: 256 f32 values */
const marker = (i: number) => Float32Array.from({ length: 256 }, (_, k) => Math.sin(i * 1000 + k));

const bits = (d: Float32Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength);

describe('a > 2.2 GiB f32 safetensors file', () => {
  it('loads by ranges with peak RSS under 1 GiB', async () => {
    const path = join(dir, 'wan22-f32.safetensors');
    const { size, headerBytes, shapes } = writeSparseWan22(path, (write, _k, s, i) => {
      const n = Math.min(
        256,
        s.reduce((a, b) => a * b, 1),
      );
      write(new Uint8Array(marker(i).buffer, 0, n * 4), 0);
    });
    expect(size).toBeGreaterThan(2.2 * 2 ** 30);
    const largest = Math.max(...shapes.map(([, s]) => s.reduce((a, b) => a * b, 4)));
    const rssNow = () => process.resourceUsage().maxRSS * 1024;

    // each decoder tensor as the staged upload reads it (prefetch into one reused buffer, then its values) or synchronously
    const readAll = async (w: Weights, prefetch: boolean): Promise<number> => {
      let sum = 0;
      for (const [i, [k, s]] of shapes.entries()) {
        if (prefetch) await w.prefetch(k);
        const d = w.get(k, s).data;
        const m = marker(i);
        const n = Math.min(m.length, d.length);
        expect(Array.from(d.subarray(0, n)), k).toEqual(Array.from(m.subarray(0, n)));
        sum += d.length * 4;
      }
      return sum;
    };
    const rssBefore = rssNow();
    const staged = fileSource(path);
    const ws = await openWeights(staged);
    const stagedSum = await readAll(ws, true);
    staged.close();
    ws.releaseReads();
    const rssStaged = rssNow();
    // prefetch holds the one staging buffer (the largest tensor's bytes; f32: no conversion buffer) and the small tensors
    expect(ws.load!.peakWindowBytes).toBeGreaterThanOrEqual(largest);
    expect(ws.load!.peakWindowBytes).toBeLessThan(largest + 4 * 2 ** 20);

    const src = fileSource(path);
    const progress: number[] = [];
    const w = await openWeights(src, { onProgress: (p) => progress.push(p.bytesDone) });
    expect(inferConfig(w).version).toBe('2.2');
    const sum = await readAll(w, false);
    src.close();
    expect(stagedSum).toBe(sum);
    const load = w.load!;
    expect(load.decoderBytes).toBe(sum);
    expect(load.decoderBytes).toBeGreaterThan(2 ** 31);
    // the encoder half is never read: header + decoder tensors
    expect(src.bytesRead).toBe(8 + headerBytes + sum); // the first 8 bytes twice (format sniff, header length)
    expect(staged.bytesRead).toBe(8 + headerBytes + sum);
    expect(progress.length).toBe(shapes.length);
    expect(progress.at(-1)).toBe(sum);
    // one tensor at a time: the largest (1024 x 1024 x 27 f32, 113 MB) plus the small ones kept
    expect(load.peakWindowBytes).toBeLessThan(256 * 2 ** 20);
    const rss = rssNow();
    console.log(
      `large file: ${size} bytes, decoder ${sum} bytes; staged reads (prefetch; the first pass over the new file, page cache cold) in ${ws.load!.readMs.toFixed(0)} ms, window ${ws.load!.peakWindowBytes} bytes, process peak RSS ${rssBefore} -> ${rssStaged} bytes; ` +
        `synchronous reads in ${load.readMs.toFixed(0)} ms (index ${load.indexMs.toFixed(1)} ms), window ${load.peakWindowBytes} bytes, process peak RSS then ${rss} bytes`,
    );
    expect(rss).toBeLessThan(2 ** 30);
  }, 300_000);
});

describe('prefetch of 16-bit and f64 tensors', () => {
  it('converts into one reused f32 buffer, bit for bit as the synchronous read', async () => {
    // four decoder tensors of 70,001 values (over the kept-small limit, odd: BF16's last single value), one per dtype, random bits
    const n = 70_001;
    const dtypes = [
      ['decoder.head.2.weight', 'F16', 2],
      ['decoder.conv1.weight', 'BF16', 2],
      ['decoder.middle.0.residual.2.weight', 'F64', 8],
      ['decoder.middle.0.residual.6.weight', 'F32', 4],
    ] as const;
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
    const header: Record<string, unknown> = {};
    const parts: Uint8Array[] = [];
    let off = 0;
    for (const [k, dtype, bytes] of dtypes) {
      const b = Uint8Array.from({ length: n * bytes }, rand);
      // finite f64 / f32 values: the exponent's top bits cleared in each element's last byte
      if (dtype === 'F64' || dtype === 'F32') for (let i = bytes - 1; i < b.length; i += bytes) b[i]! &= 0x3f;
      header[k] = { dtype, shape: [n], data_offsets: [off, off + b.length] };
      parts.push(b);
      off += b.length;
    }
    let json = JSON.stringify(header);
    while ((8 + json.length) % 8) json += ' ';
    // an odd header length (7 bytes off 8): every tensor's bytes unaligned in the file
    json += ' '.repeat(7);
    const head = Buffer.alloc(8 + json.length);
    head.writeBigUInt64LE(BigInt(json.length), 0);
    head.write(json, 8);
    const path = join(dir, 'mixed.safetensors');
    writeFileSync(path, Buffer.concat([head, ...parts]));

    const a = fileSource(path);
    const sync = await openWeights(a);
    const want = new Map(dtypes.map(([k]) => [k, Buffer.from(bits(sync.get(k).data))]));
    a.close();
    const b = fileSource(path);
    const staged = await openWeights(b);
    for (const [k] of dtypes) {
      await staged.prefetch(k);
      const d = staged.get(k).data;
      expect(d.length, k).toBe(n);
      expect(bits(d).equals(want.get(k)!), k).toBe(true);
    }
    // the staging buffer (the largest tensor's bytes, F64) and one f32 conversion buffer
    expect(staged.load!.peakWindowBytes).toBe(8 * n + 4 * n);
    b.close();
  });
});
