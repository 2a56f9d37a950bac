// Where input bytes come from: a file picker, a file dropped on a card, or a URL (streamed, with
// progress). Latents from a URL are read into bytes; weights from a URL are streamed into Cache Storage and
// read back by slices of the cached Blob (weights-cache.ts), or, where nothing can be cached (no Cache
// Storage, over quota), read by the decoder worker from the URL itself (Range requests, a streamed body
// where the server ignores Range: model/weight-source.ts). The URL is kept for recipes.
import { checkSafetensorsPrefix } from '../model/safetensors';
import { cachedBlob, hasWeightsCache, quotaProblem, storeStream } from './weights-cache';

export interface Loaded {
  bytes: Uint8Array;
  /** a picked or dropped File, or the cached body of a URL (weights are loaded from it by slices) */
  blob?: Blob;
  name: string;
  url?: string;
  /** the file's size in bytes, where known */
  size?: number;
  /** weights the worker reads from `url` itself (nothing downloaded here) */
  remote?: boolean;
  /** from the browser's cache (no download) */
  cached?: boolean;
  /** downloaded and kept in the cache */
  stored?: boolean;
  /** why it could not be kept */
  cacheError?: string;
}

/** What the decoder worker loads weights from: the Blob, the URL (read by ranges there), the bytes, or null (the default model). */
export function weightsInput(l: Loaded | null): Uint8Array | Blob | { url: string } | null {
  if (!l) return null;
  if (l.blob) return l.blob;
  return l.remote && l.url ? { url: l.url } : l.bytes;
}

/** Files up to this size are also read into `bytes` (latents, small checkpoints); larger ones stay a File only. */
export const COPY_FILE_BYTES = 256 * 2 ** 20;

const EMPTY = new Uint8Array(0);

/**
 * A picked or dropped file: `blob` is the File itself (the decoder worker reads a checkpoint from it by
 * slices, any size, no copy); `bytes` its contents when it is at most COPY_FILE_BYTES (latents are read
 * from them), else empty.
 */
export async function fromFile(file: File): Promise<Loaded> {
  return { bytes: file.size <= COPY_FILE_BYTES ? new Uint8Array(await file.arrayBuffer()) : EMPTY, blob: file, name: file.name, size: file.size };
}

/**
 * Fetch a URL, reporting received bytes; errors name the URL and the HTTP status. `cache`: weights, streamed
 * into Cache Storage and returned as the cached Blob (`bytes` empty), or `remote` where they cannot be kept.
 */
export async function fromUrl(url: string, onProgress?: (received: number, total: number | null) => void, o: { cache?: boolean } = {}): Promise<Loaded> {
  let parsed: URL;
  try {
    parsed = new URL(url, location.href);
  } catch {
    throw new Error(`not a valid URL: ${url}`);
  }
  const name = decodeURIComponent(parsed.pathname.split('/').pop() || 'download');
  return o.cache ? throughCache(parsed, name, onProgress) : download(parsed, name, onProgress);
}

async function get(parsed: URL): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(parsed);
  } catch (e) {
    throw new Error(`could not fetch ${parsed.href}: ${e instanceof Error ? e.message : String(e)} (network error or the server does not allow cross-origin requests)`);
  }
  if (!res.ok) throw new Error(`could not fetch ${parsed.href}: HTTP ${res.status} ${res.statusText}`);
  return res;
}

/**
 * The check of a .safetensors body as it arrives: its header against the Content-Length, before the rest
 * is read (not when the body is content-encoded: Content-Length then counts the compressed bytes). Throws
 * the header's error; holds only the header's bytes.
 */
function prefixCheck(res: Response, name: string, href: string): (chunk: Uint8Array) => void {
  const total = Number(res.headers.get('content-length')) || null;
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  let need = total && !encoded && /\.safetensors$/i.test(name) ? 8 : 0;
  const parts: Uint8Array[] = [];
  let have = 0;
  return (chunk) => {
    if (!need) return;
    parts.push(chunk);
    have += chunk.byteLength;
    while (need && have >= need) {
      const prefix = new Uint8Array(need);
      let at = 0;
      for (const p of parts) {
        if (at >= need) break;
        const k = Math.min(p.length, need - at);
        prefix.set(p.subarray(0, k), at);
        at += k;
      }
      const r = checkSafetensorsPrefix(prefix, total!, href);
      need = 'need' in r ? r.need : 0;
    }
    if (!need) parts.length = 0;
  };
}

/** Weights from a URL: the cached Blob (a hit, or the body streamed into the cache now), else `remote`. */
async function throughCache(parsed: URL, name: string, onProgress: ((received: number, total: number | null) => void) | undefined): Promise<Loaded> {
  const href = parsed.href;
  const hit = await cachedBlob(href).catch(() => null);
  if (hit) return { bytes: EMPTY, blob: hit, name, url: href, size: hit.size, cached: true };
  const remote = (cacheError: string, size?: number): Loaded => ({ bytes: EMPTY, name, url: href, remote: true, cacheError, ...(size !== undefined ? { size } : {}) });
  if (!hasWeightsCache()) return remote('this page has no Cache Storage (not a secure context?)');
  const res = await get(parsed);
  const total = Number(res.headers.get('content-length')) || null;
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const over = total ? await quotaProblem(total) : '';
  if (over || !res.body) {
    void res.body?.cancel();
    return remote(over || 'the response has no body', total ?? undefined);
  }
  const check = prefixCheck(res, name, href);
  let received = 0;
  // what ended the stream, when the cache did not take the whole body: the header check, the network, or the cache itself
  let failure: { e: unknown } | null = null;
  let broke: { e: unknown } | null = null;
  const body = res.body.getReader();
  const counted = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await body.read();
      } catch (e) {
        broke = { e };
        throw e;
      }
      if (r.done) return ctl.close();
      received += r.value.byteLength;
      try {
        check(r.value);
      } catch (e) {
        failure = { e };
        void body.cancel();
        throw e;
      }
      onProgress?.(received, total);
      ctl.enqueue(r.value);
    },
    cancel: (reason) => body.cancel(reason),
  });
  try {
    await storeStream(href, counted, encoded ? null : total);
  } catch (e) {
    if (failure) throw (failure as { e: unknown }).e;
    if (broke) throw (broke as { e: unknown }).e; // the download broke off (the page reports how far it came)
    // the cache refused the body (quota; an in-memory profile, as in a private window, holds little): the worker reads the URL itself
    return remote(`the browser's cache did not keep it (${e instanceof Error ? e.message : String(e)})`, total ?? undefined);
  }
  const blob = await cachedBlob(href);
  if (!blob) return remote('the cache dropped the file right after it was stored', received);
  return { bytes: EMPTY, blob, name, url: href, size: blob.size, stored: true };
}

/** A URL's body read into bytes (latents), its .safetensors header checked as it arrives. */
async function download(parsed: URL, name: string, onProgress: ((received: number, total: number | null) => void) | undefined): Promise<Loaded> {
  const res = await get(parsed);
  const total = Number(res.headers.get('content-length')) || null;
  if (!res.body) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { bytes, name, url: parsed.href, size: bytes.byteLength };
  }
  const reader = res.body.getReader();
  const check = prefixCheck(res, name, parsed.href);
  const parts: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    onProgress?.(received, total);
    try {
      check(value);
    } catch (e) {
      void reader.cancel();
      throw e;
    }
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, name, url: parsed.href, size: received };
}

/** Make `card` accept a dropped file: highlights while dragging, calls `onFile` with the first file. */
export function acceptDrops(card: HTMLElement, onFile: (file: File) => void): void {
  card.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    card.classList.add('dragover');
  });
  card.addEventListener('dragleave', () => card.classList.remove('dragover'));
  card.addEventListener('drop', (e) => {
    e.preventDefault();
    card.classList.remove('dragover');
    const file = e.dataTransfer?.files[0];
    if (file) onFile(file);
  });
}

/** Keep files dropped outside the cards from navigating the page away. */
export function preventStrayDrops(): void {
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
}
