// Weights downloaded from a URL are kept in the browser's Cache Storage (keyed by URL), so a reload
// does not download hundreds of MB again; the page says what is cached and can clear it.
import { formatBytes } from './format';

export const WEIGHTS_CACHE = 'wan-vae-weights-v1';

function available(): boolean {
  return typeof caches !== 'undefined';
}

/** The cached bytes of `url`, or null. */
export async function cachedBytes(url: string): Promise<Uint8Array | null> {
  if (!available()) return null;
  const hit = await (await caches.open(WEIGHTS_CACHE)).match(url);
  return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
}

/** Keep `bytes` for `url`; returns the reason when it could not (quota, no Cache Storage), else ''. */
export async function storeBytes(url: string, bytes: Uint8Array): Promise<string> {
  if (!available()) return 'this page has no Cache Storage (not a secure context?)';
  try {
    const body = new Blob([bytes.slice().buffer as ArrayBuffer]);
    await (await caches.open(WEIGHTS_CACHE)).put(url, new Response(body, { headers: { 'content-length': String(bytes.byteLength) } }));
    return '';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Drop the cached copy of `url` (weights the decoder rejected must not be offered again after a reload). */
export async function forgetBytes(url: string): Promise<void> {
  if (available()) await (await caches.open(WEIGHTS_CACHE)).delete(url);
}

/** "N files, X cached" or '' when nothing is cached. */
export async function weightsCacheSummary(): Promise<string> {
  if (!available()) return '';
  const c = await caches.open(WEIGHTS_CACHE);
  const keys = await c.keys();
  if (!keys.length) return '';
  let bytes = 0;
  for (const k of keys) bytes += Number((await c.match(k))?.headers.get('content-length') ?? 0);
  return `Cached in this browser: ${keys.length} weights file${keys.length > 1 ? 's' : ''}, ${formatBytes(bytes)} (${keys.map((k) => decodeURIComponent(new URL(k.url).pathname.split('/').pop() ?? '')).join(', ')}).`;
}

/** Delete every cached weights file; returns the line to show. */
export async function clearWeightsCache(): Promise<string> {
  if (!available()) return 'This page has no Cache Storage: nothing to clear.';
  const had = await weightsCacheSummary();
  await caches.delete(WEIGHTS_CACHE);
  return had ? 'Cleared the cached weights.' : 'No cached weights to clear.';
}
