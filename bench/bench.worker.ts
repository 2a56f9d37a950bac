// The benchmark's dedicated worker: runs the suite (bench/lib/suite.ts) on its own WebGPU device and
// posts log lines and the report to the page. Messages: in {cfg}; out {log} | {report} | {error}.
import { runSuite } from './lib/suite';
import type { Report, SuiteConfig } from './lib/types';

// worker time origin = worker creation: this is module fetch + evaluation ("import" of the cold start)
const importedAt = performance.now();

export type WorkerOut = { log: string } | { report: Report } | { error: string };

const post = (m: WorkerOut) => (self as unknown as Worker).postMessage(m);

self.onmessage = (e: MessageEvent<{ cfg: SuiteConfig }>) => {
  runSuite(e.data.cfg, 'chromium', (line) => post({ log: line }), importedAt).then(
    (report) => post({ report }),
    (err: unknown) => post({ error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err) }),
  );
};
