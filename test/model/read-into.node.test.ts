// WeightSource.readInto (src/model/weight-source.ts, src/node/file-source.ts): the staged upload's reads
// into one reused buffer. A Blob's byte stream and a Range response (BYOB readers), a stream of plain
// chunks (copied), a Node file: the bytes of `read`, at the start of the buffer handed back; a range past
// the end or a stream that ends early is one clear line.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { blobSource, streamInto, urlSource, type WeightSource } from '../../src/model/weight-source';
import { fileSource } from '../../src/node/file-source';

const bytes = Uint8Array.from({ length: 3 * 2 ** 20 + 5 }, (_, i) => (i * 2654435761) >>> 24);
const dir = mkdtempSync(join(tmpdir(), 'wan-vae-read-into-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** reads a few ranges into one buffer, as TensorReader.prefetch does; each equals `read` of the same range */
async function check(src: WeightSource): Promise<void> {
  let into = new ArrayBuffer(2 ** 21 + 64);
  for (const [o, n] of [
    [0, 8],
    [7, 2 ** 21 + 1],
    [2 ** 20 + 3, 12_345],
    [bytes.length - 100, 100],
  ] as const) {
    const got = await src.readInto!(o, n, into);
    expect(got.byteOffset).toBe(0);
    expect(got.byteLength).toBe(n);
    // the same buffer, or (a byte stream's reader took it over) the same memory under a new ArrayBuffer
    expect(got.buffer.byteLength).toBe(2 ** 21 + 64);
    expect(Buffer.from(got).equals(Buffer.from(bytes.subarray(o, o + n))), `${src.name} ${o}+${n}`).toBe(true);
    into = got.buffer;
  }
  const e = await src.readInto!(bytes.length - 4, 8, into).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(DecoderError);
  expect((e as Error).message).toMatch(/lie past the end of the file/);
}

describe('readInto', () => {
  it('a Blob (its byte stream)', async () => check(blobSource(new Blob([bytes]), 'w.safetensors')));

  it('a Node file', async () => {
    const path = join(dir, 'w.bin');
    writeFileSync(path, bytes);
    const src = fileSource(path);
    try {
      await check(src);
    } finally {
      src.close();
    }
  });

  it('a URL served with Range (the response body)', async () => {
    const server = createServer((req, res) => {
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) return void res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
      const [a, b] = [Number(m[1]), Math.min(Number(m[2]), bytes.length - 1)];
      res.writeHead(206, { 'content-range': `bytes ${a}-${b}/${bytes.length}`, 'content-length': b - a + 1 }).end(bytes.subarray(a, b + 1));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const src = await urlSource(`http://127.0.0.1:${(server.address() as { port: number }).port}/w.safetensors`, 'w.safetensors');
      expect(src.size).toBe(bytes.length);
      await check(src);
    } finally {
      server.close();
    }
  });

  it('a stream of plain chunks is copied; one that ends early gives null', async () => {
    const chunks = (n: number) => {
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (at >= n) return c.close();
          c.enqueue(bytes.slice(at, Math.min(n, at + 40_000)));
          at += 40_000;
        },
      });
    };
    const into = new ArrayBuffer(200_000);
    const got = await streamInto(chunks(150_000), 123_456, into);
    expect(got!.buffer).toBe(into);
    expect(Buffer.from(got!).equals(Buffer.from(bytes.subarray(0, 123_456)))).toBe(true);
    expect(await streamInto(chunks(1000), 123_456, into)).toBeNull();
  });
});
