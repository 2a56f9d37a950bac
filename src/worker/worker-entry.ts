// The decoder worker's entry: serves the comlink API (decoder.worker.ts), then posts one READY message,
// which tells spawn.ts that the worker's code loaded and runs (comlink ignores messages without its
// request id). The only module with effects at start, as an entry: the package is `sideEffects: false`.
import { exposeDecoderWorker } from './decoder.worker';
import { WORKER_READY } from './ready';

exposeDecoderWorker();
self.postMessage(WORKER_READY);
