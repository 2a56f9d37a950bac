// One decode through the worker client: frames stream into a FrameStore (and to the caller, to draw
// them); the result becomes a DecodeRecord, also when the decode fails or is cancelled part-way.
import type { Latents } from '../model/latents';
import type { DecoderClient } from '../worker/client';
import { FrameStore, type StoredFrame } from './frames';
import type { Resolved } from './fit';
import { describeDecode, type DemoOptions } from './options';
import type { DecodeRecord } from './record';

export interface RunOutcome {
  record: DecodeRecord;
  /** the error when the decode did not finish (cancel included) */
  error?: unknown;
}

/** Frame callbacks travel on their own message port: wait a moment for any still in flight. */
async function settle(store: FrameStore, frames: number, ms = 3000): Promise<void> {
  const until = performance.now() + ms;
  while (store.count < frames && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
}

/** After a failed or cancelled decode the count is unknown: wait until no frame came for `quietMs`. */
async function quiet(store: FrameStore, quietMs = 300): Promise<void> {
  let last = -1;
  while (store.count !== last) {
    last = store.count;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

export async function runDecode(
  client: DecoderClient,
  latents: Latents,
  options: DemoOptions,
  /** what to decode: the worker options and their plan (resolvePlan) */
  resolved: Resolved,
  label: string,
  hooks: { onStart: (store: FrameStore) => void; onFrame: (f: StoredFrame, store: FrameStore) => void },
): Promise<RunOutcome> {
  const { worker: workerOpts, plan } = resolved;
  const store = new FrameStore(plan.frames, plan.height, plan.width);
  hooks.onStart(store);
  const record: DecodeRecord = {
    label: `${label} ${describeDecode(options, workerOpts, latents.shape)}`,
    options,
    store,
    seconds: 0,
    adapter: options.backend === 'cpu' ? 'cpu (reference)' : '',
    backend: options.backend,
    shape: latents.shape,
    planned: options.backend === 'webgpu' ? plan.memory : null,
    measured: null,
    complete: false,
  };
  const t0 = performance.now();
  try {
    const r = await client.decode(latents, workerOpts, (f) => hooks.onFrame(store.add(f, performance.now() - t0), store));
    await settle(store, r.frames);
    Object.assign(record, {
      seconds: r.seconds,
      adapter: r.adapter,
      measured: r.memory ?? null,
      peak: r.peakGpuBytes,
      complete: store.complete,
    });
    return { record };
  } catch (error) {
    await quiet(store);
    record.seconds = (performance.now() - t0) / 1000;
    return { record, error };
  }
}
