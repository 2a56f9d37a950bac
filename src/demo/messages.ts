// The page's voice: the status line (idle / running / done / error, read by tests through data-state)
// and the error banner. Decoder errors come from the worker as DecoderError with a code; the banner shows
// their message, prefixed with what the page was doing.
import { DecoderError } from '../gpu/errors';

export type StatusState = 'idle' | 'loading' | 'running' | 'done' | 'cancelled' | 'error';

const HINTS: Partial<Record<DecoderError['code'], string>> = {
  'no-webgpu': 'Try the cpu backend, or a browser with WebGPU.',
  limits: 'The adapter is too small for this decode: try tiles, f16, norm fused or smaller latents.',
  oom: 'The GPU ran out of memory: try tiles, f16, norm fused, a budget, or smaller latents.',
  'device-lost': 'The GPU device was lost: reload the page.',
  unsupported: '',
};

export function errorText(e: unknown): string {
  if (e instanceof DecoderError) return [e.message, HINTS[e.code]].filter(Boolean).join(' ');
  if (e instanceof Error) return e.message;
  return String(e);
}

export class Messages {
  constructor(
    private readonly statusEl: HTMLElement,
    private readonly errorEl: HTMLElement,
  ) {}

  status(text: string, state: StatusState): void {
    this.statusEl.textContent = text;
    this.statusEl.dataset.state = state;
  }

  /** Show `what: message` in the error banner (and the code, for decoder errors). */
  error(what: string, e: unknown): void {
    const code = e instanceof DecoderError ? ` [${e.code}]` : '';
    this.errorEl.textContent = `${what}: ${errorText(e)}${code}`;
    this.errorEl.dataset.code = e instanceof DecoderError ? e.code : 'page';
    this.errorEl.hidden = false;
  }

  clearError(): void {
    this.errorEl.hidden = true;
    this.errorEl.textContent = '';
  }
}
