// Starts the decoder worker. First the module file next to this one: bundlers (vite, webpack 5) see the
// literal `new Worker(new URL(...), { type: 'module' })` and emit the worker; plain pages load the file
// from the package's dist/lib. When that file cannot be loaded (esbuild does not copy it; a dev server
// that refuses files outside the app's root), the worker's error event arrives before its READY
// message and the inline copy starts from a blob URL instead. Nothing is sent to a worker before READY,
// so no transferred buffer is lost to a worker that failed to start.
import { DecoderError } from '../gpu/errors';
import { inlineWorkerSource } from './inline-source';
import { WORKER_READY } from './ready';

/** Resolves with the worker once it posted READY; rejects with its error event's message. */
function ready(worker: Worker): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const onMessage = (ev: MessageEvent) => {
      if (ev.data !== WORKER_READY) return;
      done();
      resolve(worker);
    };
    const onError = (ev: ErrorEvent) => {
      done();
      worker.terminate();
      reject(new Error(ev.message || 'the worker script could not be loaded'));
    };
    const done = () => {
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
  });
}

/** The worker from its module file (the library build rewrites the URL to ./decoder.worker.js). */
function fileWorker(): Worker {
  return new Worker(new URL('./worker-entry.ts', import.meta.url), { type: 'module' });
}

/** Start the decoder worker (module file, else the inline copy); throws DecoderError('no-webgpu') when neither starts. */
export async function startWorker(): Promise<Worker> {
  if (typeof Worker === 'undefined')
    throw new DecoderError('unsupported', "createDecoder needs Web Workers (a browser); in Node decode in-process with WanVaeDecoder and installNodeWebGPU from 'wan-vae-webgpu/node'");
  let fileError: unknown;
  try {
    return await ready(fileWorker());
  } catch (e) {
    fileError = e;
  }
  const src = await inlineWorkerSource();
  if (src === null) throw new DecoderError('no-webgpu', `the decoder worker failed to start: ${(fileError as Error).message}`);
  const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
  try {
    return await ready(new Worker(url, { type: 'module' }));
  } catch (e) {
    throw new DecoderError('no-webgpu', `the decoder worker failed to start: from its file (${(fileError as Error).message}), inline (${(e as Error).message})`);
  } finally {
    URL.revokeObjectURL(url);
  }
}
