// Where input bytes come from: a file picker, a file dropped on a card, or a URL (streamed, with
// progress; optionally through the weights cache). Each yields { bytes, name } plus the URL when there
// was one (kept for recipes).
import { checkSafetensorsPrefix } from '../model/safetensors';
import { cachedBytes, storeBytes } from './weights-cache';

export interface Loaded {
  bytes: Uint8Array;
  /** a picked or dropped File (weights are loaded from it by slices) */
  blob?: Blob;
  name: string;
  url?: string;
  /** from the browser's cache (no download) */
  cached?: boolean;
  /** downloaded and kept in the cache */
  stored?: boolean;
  /** why it could not be kept */
  cacheError?: string;
}

/** Files up to this size are also read into `bytes` (latents, small checkpoints); larger ones stay a File only. */
export const COPY_FILE_BYTES = 256 * 2 ** 20;

/**
 * A picked or dropped file: `blob` is the File itself (the decoder worker reads a checkpoint from it by
 * slices, any size, no copy); `bytes` its contents when it is at most COPY_FILE_BYTES (latents are read
 * from them), else empty.
 */
export async function fromFile(file: File): Promise<Loaded> {
  return { bytes: file.size <= COPY_FILE_BYTES ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0), blob: file, name: file.name };
}

/** Fetch a URL, reporting received bytes; errors name the URL and the HTTP status. */
export async function fromUrl(url: string, onProgress?: (received: number, total: number | null) => void, o: { cache?: boolean } = {}): Promise<Loaded> {
  const loaded = await download(url, onProgress, o.cache ?? false);
  if (!o.cache || loaded.cached) return loaded;
  const why = await storeBytes(loaded.url!, loaded.bytes);
  return { ...loaded, stored: !why, ...(why ? { cacheError: why } : {}) };
}

async function download(url: string, onProgress: ((received: number, total: number | null) => void) | undefined, useCache: boolean): Promise<Loaded> {
  let parsed: URL;
  try {
    parsed = new URL(url, location.href);
  } catch {
    throw new Error(`not a valid URL: ${url}`);
  }
  const name = decodeURIComponent(parsed.pathname.split('/').pop() || 'download');
  if (useCache) {
    const hit = await cachedBytes(parsed.href).catch(() => null);
    if (hit) return { bytes: hit, name, url: parsed.href, cached: true };
  }
  let res: Response;
  try {
    res = await fetch(parsed);
  } catch (e) {
    throw new Error(`could not fetch ${parsed.href}: ${e instanceof Error ? e.message : String(e)} (network error or the server does not allow cross-origin requests)`);
  }
  if (!res.ok) throw new Error(`could not fetch ${parsed.href}: HTTP ${res.status} ${res.statusText}`);
  const total = Number(res.headers.get('content-length')) || null;
  if (!res.body) return { bytes: new Uint8Array(await res.arrayBuffer()), name, url: parsed.href };
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let received = 0;
  // a .safetensors is checked from its header and the Content-Length before the rest of the body is read
  // (not when the body is content-encoded: Content-Length then counts the compressed bytes)
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  let need = total && !encoded && /\.safetensors$/i.test(name) ? 8 : 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    onProgress?.(received, total);
    while (need && received >= need) {
      const prefix = new Uint8Array(need);
      let at = 0;
      for (const p of parts) {
        const k = Math.min(p.length, need - at);
        prefix.set(p.subarray(0, k), at);
        at += k;
      }
      try {
        const r = checkSafetensorsPrefix(prefix, total!, parsed.href);
        need = 'need' in r ? r.need : 0;
      } catch (e) {
        void reader.cancel();
        throw e;
      }
    }
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, name, url: parsed.href };
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
