// Weights downloaded from a URL are kept in the browser's Cache Storage (keyed by URL), so a reload
// does not download hundreds of MB again; the page says what is cached and can clear it. A download is
// streamed into the cache (its body passes through, counted, never held whole), and read back as the
// cached response's Blob: disk-backed in Chromium, so the decoder worker reads it by slices whatever its
// size (no ArrayBuffer of the file; Chrome's largest is just under 2 GiB).
import { formatBytes } from './format';

export const WEIGHTS_CACHE = 'wan-vae-weights-v1';

export function hasWeightsCache(): boolean {
  return typeof caches !== 'undefined';
}

/** The cached body of `url` as a Blob (not read: slices of it are read when asked), or null. */
export async function cachedBlob(url: string): Promise<Blob | null> {
  if (!hasWeightsCache()) return null;
  const hit = await (await caches.open(WEIGHTS_CACHE)).match(url);
  return hit ? hit.blob() : null;
}

/**
 * Why `bytes` more would not fit the origin's storage quota (navigator.storage.estimate), or '' when they
 * may (or the browser does not say).
 */
export async function quotaProblem(bytes: number): Promise<string> {
  const est = await navigator.storage?.estimate?.().catch(() => null);
  if (!est?.quota) return '';
  const free = est.quota - (est.usage ?? 0);
  return bytes > free ? `it needs ${formatBytes(bytes)}, this site may store ${formatBytes(free)} more` : '';
}

/**
 * Keep the stream `body` for `url` (the download passes through as it arrives): resolves once the whole
 * body is in the cache; rejects with the stream's error (a failed check, a broken download) or the
 * cache's (quota), and then nothing is kept.
 */
export async function storeStream(url: string, body: ReadableStream<Uint8Array>, size: number | null): Promise<void> {
  if (!hasWeightsCache()) throw new Error('this page has no Cache Storage (not a secure context?)');
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (size !== null) headers['content-length'] = String(size);
  await (await caches.open(WEIGHTS_CACHE)).put(url, new Response(body, { headers }));
}

/** Drop the cached copy of `url` (weights the decoder rejected must not be offered again after a reload). */
export async function forgetBytes(url: string): Promise<void> {
  if (hasWeightsCache()) await (await caches.open(WEIGHTS_CACHE)).delete(url);
}

/** "N files, X cached" or '' when nothing is cached. */
export async function weightsCacheSummary(): Promise<string> {
  if (!hasWeightsCache()) return '';
  const c = await caches.open(WEIGHTS_CACHE);
  const keys = await c.keys();
  if (!keys.length) return '';
  let bytes = 0;
  // the Blob's size (the body as stored; a download without Content-Length has none in its headers)
  for (const k of keys) bytes += (await (await c.match(k))?.blob())?.size ?? 0;
  return `Cached in this browser: ${keys.length} weights file${keys.length > 1 ? 's' : ''}, ${formatBytes(bytes)} (${keys.map((k) => decodeURIComponent(new URL(k.url).pathname.split('/').pop() ?? '')).join(', ')}).`;
}

/** Delete every cached weights file; returns the line to show. */
export async function clearWeightsCache(): Promise<string> {
  if (!hasWeightsCache()) return 'This page has no Cache Storage: nothing to clear.';
  const had = await weightsCacheSummary();
  await caches.delete(WEIGHTS_CACHE);
  return had ? 'Cleared the cached weights.' : 'No cached weights to clear.';
}
