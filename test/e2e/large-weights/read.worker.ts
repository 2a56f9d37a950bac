// A worker of test/e2e/large-weights.node.test.ts: opens the posted Blob as the decoder worker does
// (blobSource; openWeights: lazy, one tensor at a time) and reads every decoder tensor as the GPU upload's
// staged preparation does (Weights.prefetch: the slice's byte stream into one reused buffer, then `data`),
// with a weighted sum of each to compare with the same file read in Node. No GPU: the load alone.
import { blobSource } from '../../../src/model/weight-source';
import { openWeights } from '../../../src/model/weights';
import { weightedSum } from './sums';

export interface ReadResult {
  sums: Record<string, number>;
  /** openWeights' figures (format, bytes read, peak window, ms) */
  load: unknown;
  progressCalls: number;
  lastBytesDone: number;
  bytesRead: number;
  ms: number;
}

self.onmessage = async (ev: MessageEvent<{ blob: Blob; name: string }>) => {
  try {
    const t0 = performance.now();
    const src = blobSource(ev.data.blob, ev.data.name);
    let progressCalls = 0,
      lastBytesDone = 0;
    const w = await openWeights(src, {
      onProgress: (p) => {
        progressCalls++;
        lastBytesDone = p.bytesDone;
      },
    });
    // as the GPU upload reads them (runStagedPrep): each tensor read ahead into the reused buffers, then its values
    const sums: Record<string, number> = {};
    for (const k of [...w.map.keys()].sort()) {
      await w.prefetch(k);
      sums[k] = weightedSum(w.get(k).data);
    }
    w.releaseReads();
    const r: ReadResult = { sums, load: w.load, progressCalls, lastBytesDone, bytesRead: src.bytesRead, ms: performance.now() - t0 };
    postMessage({ ok: true, value: r });
  } catch (e) {
    postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) });
  }
};
