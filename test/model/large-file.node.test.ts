// A Wan2.2-layout f32 safetensors file larger than 2.2 GiB (test/helpers/sparse-wan22.ts: the official
// decoder shapes, the full-model encoder half as padding; a sparse file in a temp dir, a marker written at
// the start of every decoder tensor) loads through a file handle: every decoder tensor read back equal to what was written, the
// process's peak RSS under 1 GiB, the load's window bounded by the largest tensor (issue 23).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { openWeights } from '../../src/model/weights';
import { fileSource } from '../../src/node/file-source';
import { writeSparseWan22 } from '../helpers/sparse-wan22';

const dir = mkdtempSync(join(tmpdir(), 'wan-vae-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** the marker of tensor `i`: 256 f32 values */
const marker = (i: number) => Float32Array.from({ length: 256 }, (_, k) => Math.sin(i * 1000 + k));

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

    const src = fileSource(path);
    const progress: number[] = [];
    const w = await openWeights(src, { onProgress: (p) => progress.push(p.bytesDone) });
    expect(inferConfig(w).version).toBe('2.2');
    let sum = 0;
    shapes.forEach(([k, s], i) => {
      const d = w.get(k, s).data;
      const m = marker(i);
      const n = Math.min(m.length, d.length);
      expect(Array.from(d.subarray(0, n)), k).toEqual(Array.from(m.subarray(0, n)));
      sum += d.length * 4;
    });
    src.close();
    const load = w.load!;
    expect(load.decoderBytes).toBe(sum);
    expect(load.decoderBytes).toBeGreaterThan(2 ** 31);
    // the encoder half is never read: header + decoder tensors
    expect(src.bytesRead).toBe(8 + headerBytes + sum); // the first 8 bytes twice (format sniff, header length)
    expect(progress.length).toBe(shapes.length);
    expect(progress.at(-1)).toBe(sum);
    // one tensor at a time: the largest (1024 x 1024 x 27 f32, 113 MB) plus the small ones kept
    expect(load.peakWindowBytes).toBeLessThan(256 * 2 ** 20);
    const rss = process.resourceUsage().maxRSS * 1024;
    console.log(
      `large file: ${size} bytes, decoder ${sum} bytes read in ${load.readMs.toFixed(0)} ms (index ${load.indexMs.toFixed(1)} ms), peak window ${load.peakWindowBytes} bytes, process peak RSS ${rss} bytes`,
    );
    expect(rss).toBeLessThan(2 ** 30);
  }, 300_000);
});
