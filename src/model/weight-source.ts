// Where a checkpoint's bytes come from, read by ranges: bytes in memory (tests, embedders), a Blob / File
// (slices; FileReaderSync in a worker), a URL (Range requests; a server that ignores Range gives a 200 and
// its body is streamed instead). A Node file handle is src/node/file-source.ts. Parsers read the header
// through `read`, then each decoder tensor through `readSync` when the source has it (the GPU upload reads
// a tensor when it packs it: the file is never held whole), else every decoder tensor up front; the
// upload's staged reads go through `readInto` where a source has it (one reused buffer, no buffer per tensor).
// Every source counts the bytes it returned (`bytesRead`): tests check that an encoder is never read.
import { DecoderError } from '../gpu/errors';

export interface WeightSource {
  /** names the file in error messages */
  readonly name: string;
  /** the file's size in bytes */
  readonly size: number;
  /** bytes returned by read / readSync so far */
  bytesRead: number;
  /** `length` bytes at `offset` (a range past the end is a 'bad-input' error naming the file) */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** the same, synchronously (Node files, Blobs in a worker, bytes); absent where only async reads exist */
  readSync?: (offset: number, length: number) => Uint8Array;
  /** false: reads are views into memory the source holds anyway (bytes); default: each read is a buffer of its own */
  readonly fresh?: boolean;
  /**
   * `length` bytes at `offset` read into the start of `into` (a staging buffer the caller reuses, at least
   * `length` bytes), returned as a view of them. The view's buffer replaces `into`: a byte stream's reader
   * takes `into` over (detaching it) and hands back the same memory as a new ArrayBuffer. Blobs, URLs
   * with Range, Node files (src/node/file-source.ts); absent for bytes in memory (views already) and
   * servers without Range.
   */
  readInto?: (offset: number, length: number, into: ArrayBuffer) => Promise<Uint8Array<ArrayBuffer>>;
}

/**
 * The first `length` bytes of `stream` read into `into` (see WeightSource.readInto). A byte stream (a
 * Blob's, in Chromium) is read with a BYOB reader straight into `into`: no buffer per read. Otherwise its
 * chunks are copied there (each chunk a small buffer of the stream's). Fewer bytes than `length`: null.
 */
export async function streamInto(stream: ReadableStream<Uint8Array>, length: number, into: ArrayBuffer): Promise<Uint8Array<ArrayBuffer> | null> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: 'byob' });
  } catch {
    // not a byte stream: chunks copied below
  }
  let buf = into;
  let at = 0;
  if (byob) {
    try {
      while (at < length) {
        const { done, value } = await byob.read(new Uint8Array(buf, at, length - at));
        if (value) buf = value.buffer as ArrayBuffer;
        if (done || !value) break;
        at += value.byteLength;
      }
    } finally {
      void byob.cancel().catch(() => undefined);
    }
  } else {
    const r = stream.getReader();
    const dst = new Uint8Array(buf);
    try {
      while (at < length) {
        const { done, value } = await r.read();
        if (done) break;
        const k = Math.min(value.byteLength, length - at);
        dst.set(value.subarray(0, k), at);
        at += k;
      }
    } finally {
      void r.cancel().catch(() => undefined);
    }
  }
  return at === length && buf.byteLength >= length ? new Uint8Array(buf, 0, length) : null;
}

/** The error of a range outside the file. */
export function checkRange(src: { name: string; size: number }, offset: number, length: number): void {
  if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0 && offset + length <= src.size))
    throw new DecoderError('bad-input', `${src.name}: bytes ${offset}..${offset + length} lie past the end of the file (${src.size} bytes); truncated?`);
}

/** A source over bytes in memory (views, no copies). */
export function bytesSource(bytes: Uint8Array, name: string): WeightSource {
  const src: WeightSource = {
    name,
    size: bytes.byteLength,
    bytesRead: 0,
    fresh: false,
    readSync(offset, length) {
      checkRange(src, offset, length);
      src.bytesRead += length;
      return bytes.subarray(offset, offset + length);
    },
    read: async (offset, length) => src.readSync!(offset, length),
  };
  return src;
}

/**
 * A source over a Blob or File: `slice().arrayBuffer()` per range; sync reads through FileReaderSync
 * (workers); `readInto` through the slice's byte stream into the caller's buffer. FileReaderSync makes an
 * ArrayBuffer per read that the worker's GC frees late (a whole-file read of 113 MB tensors kept
 * 1.1-1.4 GB alive in headless Chromium 156, 2026-12-02); readInto keeps one (255 MB renderer peak).
 */
export function blobSource(blob: Blob, name: string): WeightSource {
  const Sync = (globalThis as { FileReaderSync?: new () => { readAsArrayBuffer(b: Blob): ArrayBuffer } }).FileReaderSync;
  const reader = Sync ? new Sync() : null;
  const src: WeightSource = {
    name,
    size: blob.size,
    bytesRead: 0,
    async read(offset, length) {
      checkRange(src, offset, length);
      const b = new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer());
      if (b.byteLength !== length) throw new DecoderError('bad-input', `${name}: read ${b.byteLength} of ${length} bytes at ${offset}; the file changed or is unreadable`);
      src.bytesRead += length;
      return b;
    },
    async readInto(offset, length, into) {
      checkRange(src, offset, length);
      const b = await streamInto(blob.slice(offset, offset + length).stream(), length, into);
      if (!b) throw new DecoderError('bad-input', `${name}: could not read ${length} bytes at ${offset}; the file changed or is unreadable`);
      src.bytesRead += length;
      return b;
    },
    ...(reader
      ? {
          readSync(offset: number, length: number) {
            checkRange(src, offset, length);
            const b = new Uint8Array(reader.readAsArrayBuffer(blob.slice(offset, offset + length)));
            src.bytesRead += length;
            return b;
          },
        }
      : {}),
  };
  return src;
}

/**
 * A source over a URL. The size comes from a `Range: bytes=0-0` probe (Content-Range) or the response's
 * Content-Length. Reads are Range requests; a server answering 200 (Range ignored) is read as one streamed
 * body from the start (ranges then must come in file order, as the parsers ask for them; an earlier range
 * restarts the body). In a worker, `readSync` uses a synchronous XMLHttpRequest with Range.
 */
export async function urlSource(url: string, name = url): Promise<WeightSource> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { Range: 'bytes=0-0' } });
  } catch (e) {
    throw new DecoderError('bad-input', `could not fetch ${url}: ${e instanceof Error ? e.message : String(e)} (network error or the server does not allow cross-origin requests)`);
  }
  if (!res.ok) throw new DecoderError('bad-input', `could not fetch ${url}: HTTP ${res.status} ${res.statusText}`);
  const ranged = res.status === 206;
  const size = ranged ? Number(/\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1]) : Number(res.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size < 0) throw new DecoderError('bad-input', `${url}: the server gives no file size (Content-Range / Content-Length)`);
  // the streamed body of a server without Range: position `at`, bytes not yet taken in `pending`
  let body: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let at = 0;
  let pending: Uint8Array = new Uint8Array(0);
  if (!ranged) body = res.body?.getReader() ?? null;
  else void res.body?.cancel();
  const streamed = async (offset: number, length: number): Promise<Uint8Array> => {
    if (!body || offset < at) {
      void body?.cancel();
      const r = await fetch(url);
      if (!r.ok || !r.body) throw new DecoderError('bad-input', `could not fetch ${url}: HTTP ${r.status} ${r.statusText}`);
      body = r.body.getReader();
      at = 0;
      pending = new Uint8Array(0);
    }
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (!pending.byteLength) {
        const { done, value } = await body.read();
        if (done) throw new DecoderError('bad-input', `${url}: the body ended at byte ${at}, before ${offset + length}; truncated?`);
        pending = value;
      }
      // skip up to `offset`, then copy
      const skip = Math.min(pending.byteLength, Math.max(0, offset - at));
      pending = pending.subarray(skip);
      at += skip;
      if (at < offset) continue;
      const k = Math.min(pending.byteLength, length - filled);
      out.set(pending.subarray(0, k), filled);
      pending = pending.subarray(k);
      filled += k;
      at += k;
    }
    return out;
  };
  const src: WeightSource = {
    name,
    size,
    bytesRead: 0,
    async read(offset, length) {
      checkRange(src, offset, length);
      if (!length) return new Uint8Array(0);
      let b: Uint8Array;
      if (!ranged) b = await streamed(offset, length);
      else {
        const r = await fetch(url, { headers: { Range: `bytes=${offset}-${offset + length - 1}` } });
        if (r.status !== 206) throw new DecoderError('bad-input', `${url}: HTTP ${r.status} to a Range request for bytes ${offset}..${offset + length}`);
        b = new Uint8Array(await r.arrayBuffer());
      }
      if (b.byteLength !== length) throw new DecoderError('bad-input', `${url}: got ${b.byteLength} of ${length} bytes at ${offset}`);
      src.bytesRead += length;
      return b;
    },
  };
  if (ranged)
    src.readInto = async (offset, length, into) => {
      checkRange(src, offset, length);
      if (!length) return new Uint8Array(into, 0, 0);
      const r = await fetch(url, { headers: { Range: `bytes=${offset}-${offset + length - 1}` } });
      if (r.status !== 206 || !r.body) throw new DecoderError('bad-input', `${url}: HTTP ${r.status} to a Range request for bytes ${offset}..${offset + length}`);
      const b = await streamInto(r.body, length, into);
      if (!b) throw new DecoderError('bad-input', `${url}: got fewer than ${length} bytes at ${offset}`);
      src.bytesRead += length;
      return b;
    };
  const X = (globalThis as { XMLHttpRequest?: typeof XMLHttpRequest }).XMLHttpRequest;
  const inWorker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';
  if (ranged && X && inWorker)
    src.readSync = (offset, length) => {
      checkRange(src, offset, length);
      if (!length) return new Uint8Array(0);
      const x = new X();
      x.open('GET', url, false);
      x.responseType = 'arraybuffer';
      x.setRequestHeader('Range', `bytes=${offset}-${offset + length - 1}`);
      x.send();
      const b = new Uint8Array(x.response as ArrayBuffer);
      if (x.status !== 206 || b.byteLength !== length) throw new DecoderError('bad-input', `${url}: HTTP ${x.status}, ${b.byteLength} of ${length} bytes at ${offset}`);
      src.bytesRead += length;
      return b;
    };
  return src;
}
