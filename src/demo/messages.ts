// The page's voice: the status line (idle / running / done / error, read by tests through data-state)
// and the error banner. Decoder errors come from the worker as DecoderError with a code; the banner says
// what the page was doing and what went wrong in plain words (plain-error.ts), the technical message under
// a "Details" disclosure.
import { DecoderError } from '../gpu/errors';
import { h } from './dom';
import { plainError } from './plain-error';

export type StatusState = 'idle' | 'loading' | 'running' | 'done' | 'cancelled' | 'error';

export { errorText } from './error-text';

export class Messages {
  constructor(
    private readonly statusEl: HTMLElement,
    private readonly errorEl: HTMLElement,
  ) {}

  status(text: string, state: StatusState): void {
    this.statusEl.textContent = text;
    this.statusEl.dataset.state = state;
  }

  /** Show `what: plain reason` in the error banner, the technical message (and the decoder's code) under Details. */
  error(what: string, e: unknown): void {
    showPlain(this.errorEl, `${what}: `, e);
    this.errorEl.dataset.code = e instanceof DecoderError ? e.code : 'page';
    this.errorEl.hidden = false;
  }

  clearError(): void {
    this.errorEl.hidden = true;
    this.errorEl.textContent = '';
  }
}

/** Fill `el` with `lead` + the plain reason of `e` (+ `tail`), and a Details disclosure with the technical message. */
export function showPlain(el: HTMLElement, lead: string, e: unknown, tail = ''): void {
  const p = plainError(e);
  el.replaceChildren(h('span', { 'data-part': 'reason' }, `${lead}${p.text}${tail}`), ...(p.details ? [h('details', { class: 'tech' }, h('summary', {}, 'Details'), h('code', {}, p.details))] : []));
}
