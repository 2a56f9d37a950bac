// The benchmark page: reads the configuration from the URL, starts the suite in a dedicated worker,
// shows its log and the markdown summary, and hands the report (JSON text, Infinity kept as a string)
// to headless Chromium's host (bench/run.mjs) through `window.benchDone` / `window.benchFailed` when
// it exposed them, else offers it as a download.
import type { WorkerOut } from './bench.worker';
import type { SuiteConfig } from './lib/types';
import { markdown } from './report/markdown';

declare global {
  interface Window {
    benchDone?: (json: string) => Promise<void>;
    benchFailed?: (message: string) => Promise<void>;
  }
}

function config(): SuiteConfig {
  const q = new URLSearchParams(location.search);
  const cfg = q.get('cfg');
  if (cfg) return JSON.parse(cfg) as SuiteConfig;
  const num = (k: string) => (q.get(k) ? Number(q.get(k)) : undefined);
  return {
    quick: q.get('quick') === '1',
    only: (q.get('only') ?? '').split(',').filter(Boolean),
    runs: num('runs'),
    repeats: num('repeats'),
    frames: num('frames'),
    commit: q.get('commit') ?? 'unknown (page opened by hand)',
    flags: [],
    args: [...q.entries()].map(([k, v]) => `${k}=${v}`),
    engine: navigator.userAgent,
  };
}

const logEl = document.getElementById('log')!;
const say = (line: string) => {
  console.log(`[bench] ${line}`);
  logEl.textContent += `${line}\n`;
};

const worker = new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module' });
worker.onerror = (e) => {
  const msg = `worker error: ${e.message} (${e.filename}:${e.lineno})`;
  say(msg);
  void window.benchFailed?.(msg);
};
worker.onmessage = (e: MessageEvent<WorkerOut>) => {
  const m = e.data;
  if ('log' in m) say(m.log);
  else if ('error' in m) {
    say(`FAILED: ${m.error}`);
    void window.benchFailed?.(m.error);
  } else {
    const json = JSON.stringify(m.report, (_k, v) => (v === Infinity ? 'Infinity' : v), 1);
    const summary = document.getElementById('summary')!;
    summary.textContent = markdown(m.report, null, null);
    summary.hidden = false;
    const a = document.getElementById('download') as HTMLAnchorElement;
    a.href = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    a.download = `${m.report.env.machine}-${m.report.startedAt.slice(0, 10)}.json`;
    a.hidden = false;
    void window.benchDone?.(json);
  }
};
worker.postMessage({ cfg: config() });
