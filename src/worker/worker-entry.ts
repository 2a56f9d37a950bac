// The decoder worker's entry: the comlink API (decoder.worker.ts), then one READY message, which tells
// spawn.ts that the worker's code loaded and runs (comlink ignores messages without its request id).
import './decoder.worker';
import { WORKER_READY } from './ready';

self.postMessage(WORKER_READY);
