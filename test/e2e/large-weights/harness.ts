// The page of test/e2e/large-weights.node.test.ts: takes weights as the demo page does (src/demo/sources.ts:
// a picked File, or a URL streamed into Cache Storage and read back as the cached Blob), then either reads
// every decoder tensor in a worker (readAll: the load alone, read.worker.ts) or decodes a latent in the
// decoder worker (decodeWith), and reports the figures of the load and the memory held.
import { fromFile, fromUrl, weightsInput, type Loaded } from '../../../src/demo/sources';
import { writeNpy } from '../../../src/model/npy';
import { createDecoder } from '../../../src/worker/client';
import type { WeightsRead } from '../../../src/worker/protocol';
import type { ReadResult } from './read.worker';

export interface ReadAllResult extends ReadResult {
  via: 'file' | 'cached' | 'stored' | 'remote';
  size: number;
  cacheError: string | null;
  downloadMs: number;
  downloadEvents: number;
  pageHeapBytes: number | null;
}

export interface HarnessResult {
  video: number[];
  shape: number[];
  /** weights as the page had them: a File, the cached Blob, or read from the URL by the worker */
  via: 'file' | 'cached' | 'stored' | 'remote';
  size: number;
  cacheError: string | null;
  downloadMs: number;
  loadMs: number;
  decodeMs: number;
  reads: number;
  lastRead: WeightsRead | null;
  /** ms from the decode's start to the last tensor read (the upload's reads) */
  readsDoneMs: number;
  downloadEvents: number;
  pageHeapBytes: number | null;
  workerHeapBytes: number | null;
  gpuBytes: number;
}

const heap = () => (performance as { memory?: { usedJSHeapSize?: number } }).memory?.usedJSHeapSize ?? null;

/** The weights as the page has them: the picked File, or the URL through Cache Storage. */
async function take(kind: 'file' | 'url', url: string): Promise<{ loaded: Loaded; downloadEvents: number; ms: number }> {
  const t0 = performance.now();
  let downloadEvents = 0;
  const loaded = kind === 'file' ? await fromFile(document.querySelector<HTMLInputElement>('#weights')!.files![0]!) : await fromUrl(url, () => downloadEvents++, { cache: true });
  return { loaded, downloadEvents, ms: performance.now() - t0 };
}

const via = (kind: 'file' | 'url', l: Loaded) => (kind === 'file' ? 'file' : l.cached ? 'cached' : l.stored ? 'stored' : 'remote');

/** weights taken ahead by fetchOnly (the fetch path: its download into Cache Storage apart from the read) */
const taken = new Map<'file' | 'url', Awaited<ReturnType<typeof take>>>();

async function fetchOnly(kind: 'file' | 'url', url: string): Promise<void> {
  taken.set(kind, await take(kind, url));
}

async function readAll(kind: 'file' | 'url', url: string): Promise<ReadAllResult> {
  const ahead = taken.get(kind);
  taken.delete(kind);
  const { loaded, downloadEvents, ms } = ahead ?? (await take(kind, url));
  console.info(`[harness] ${kind}: weights in ${ms.toFixed(0)} ms (${via(kind, loaded)}${loaded.cacheError ? `: ${loaded.cacheError}` : ''})`);
  if (!loaded.blob) throw new Error(`no Blob to read: ${loaded.cacheError}`);
  const worker = new Worker(new URL('./read.worker.ts', import.meta.url), { type: 'module' });
  try {
    const r = await new Promise<ReadResult>((resolve, reject) => {
      worker.onmessage = (ev: MessageEvent<{ ok: boolean; value?: ReadResult; message?: string }>) => (ev.data.ok ? resolve(ev.data.value!) : reject(new Error(ev.data.message)));
      worker.onerror = (ev) => reject(new Error(ev.message || 'the read worker failed'));
      worker.postMessage({ blob: loaded.blob, name: loaded.name });
    });
    return { ...r, via: via(kind, loaded), size: loaded.size ?? 0, cacheError: loaded.cacheError ?? null, downloadMs: ms, downloadEvents, pageHeapBytes: heap() };
  } finally {
    worker.terminate();
  }
}

async function decodeWith(kind: 'file' | 'url', url: string, latent: { shape: [number, number, number, number]; data: number[] }): Promise<HarnessResult> {
  const t0 = performance.now();
  const { loaded, downloadEvents } = await take(kind, url);
  const t1 = performance.now();
  const reads: WeightsRead[] = [];
  let readsDone = 0;
  const dec = await createDecoder(weightsInput(loaded), loaded.name, {
    onWeights: (p) => {
      reads.push(p);
      readsDone = performance.now();
    },
  });
  console.info(`[harness] ${kind}: weights in ${(t1 - t0).toFixed(0)} ms, index ${(performance.now() - t1).toFixed(0)} ms`);
  try {
    const t2 = performance.now();
    const latents = await dec.latents(writeNpy(latent.shape, Float32Array.from(latent.data)), 'z.npy');
    const r = await dec.decode(latents, { latentStats: 'none', conv: 'direct' });
    const t3 = performance.now();
    const s = await dec.stats();
    return {
      video: Array.from(r.video!),
      shape: [3, r.frames, r.height, r.width],
      via: via(kind, loaded),
      size: loaded.size ?? 0,
      cacheError: loaded.cacheError ?? null,
      downloadMs: t1 - t0,
      loadMs: t2 - t1,
      decodeMs: t3 - t2,
      reads: reads.length,
      lastRead: reads.at(-1) ?? null,
      readsDoneMs: readsDone - t2,
      downloadEvents,
      pageHeapBytes: heap(),
      workerHeapBytes: s.jsHeapBytes,
      gpuBytes: s.gpuBytes,
    };
  } finally {
    dec.dispose();
  }
}

Object.assign(window, { fetchOnly, readAll, decodeWith });
document.body.dataset.ready = '1';
