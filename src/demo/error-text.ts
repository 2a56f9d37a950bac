// A decoder error as one line for the page: its message and, by error code, what the user can try.
// Used by the banner (messages.ts) and the plain-words layer (plain-error.ts).
import { DecoderError } from '../gpu/errors';

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
