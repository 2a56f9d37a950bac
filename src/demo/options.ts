// The options form: read and write the decoder switches, and disable the ones this adapter or model
// cannot use (with a note saying why). Tiles are chosen as a grid; the tile core in latent pixels
// follows from the latent size. Norm mode is not a decoder option yet (see index.html).
import type { WorkerDecodeOptions } from '../worker/protocol';

export interface DemoOptions {
  cache: 'on' | 'off';
  precision: 'f32' | 'f16';
  backend: 'webgpu' | 'cpu';
  latentStats: 'official' | 'none';
  /** spatial tile grid (rows x columns), 'none' = whole frames */
  tile: 'none' | '2x2' | '3x3' | '4x4';
  tileMode: 'exact' | 'blend';
  tileOrder: 'tile-major' | 'frame-major';
}

export const DEFAULT_OPTIONS: DemoOptions = { cache: 'on', precision: 'f32', backend: 'webgpu', latentStats: 'official', tile: 'none', tileMode: 'exact', tileOrder: 'tile-major' };

const CHOICES: { [K in keyof DemoOptions]: readonly DemoOptions[K][] } = {
  cache: ['on', 'off'],
  precision: ['f32', 'f16'],
  backend: ['webgpu', 'cpu'],
  latentStats: ['official', 'none'],
  tile: ['none', '2x2', '3x3', '4x4'],
  tileMode: ['exact', 'blend'],
  tileOrder: ['tile-major', 'frame-major'],
};

export const OPTION_NAMES = Object.keys(CHOICES) as (keyof DemoOptions)[];

/** Options from untrusted input (a recipe or the URL): unknown values fall back to the defaults. */
export function sanitizeOptions(o: unknown): DemoOptions {
  const src = (o && typeof o === 'object' ? o : {}) as Record<string, unknown>;
  const out = { ...DEFAULT_OPTIONS } as Record<keyof DemoOptions, string>;
  for (const k of OPTION_NAMES) if ((CHOICES[k] as readonly unknown[]).includes(src[k])) out[k] = src[k] as string;
  return out as DemoOptions;
}

function radio(form: HTMLFormElement, name: keyof DemoOptions, value: string): HTMLInputElement {
  const el = form.querySelector<HTMLInputElement>(`input[name="${name}"][value="${value}"]`);
  if (!el) throw new Error(`demo: options form lacks ${name}=${value}`);
  return el;
}

export function readOptions(form: HTMLFormElement): DemoOptions {
  const out: Record<string, string> = {};
  for (const k of OPTION_NAMES) out[k] = form.querySelector<HTMLInputElement>(`input[name="${k}"]:checked`)?.value ?? DEFAULT_OPTIONS[k];
  return sanitizeOptions(out);
}

export function writeOptions(form: HTMLFormElement, o: DemoOptions): void {
  for (const k of OPTION_NAMES) radio(form, k, o[k]).checked = true;
}

export interface Capabilities {
  webgpu: boolean;
  f16: boolean;
  /** model version, null while none is loaded */
  version: '2.1' | '2.2' | null;
}

/**
 * Disable what cannot run and move the selection off it; each disabled choice gets a one-line note.
 * Returns the options after the move.
 */
export function applyConstraints(form: HTMLFormElement, caps: Capabilities): DemoOptions {
  const notes: Partial<Record<keyof DemoOptions, string>> = {};
  const set = (name: keyof DemoOptions, value: string, disabled: boolean, fallback: string, note: string) => {
    const el = radio(form, name, value);
    el.disabled = disabled;
    if (disabled) {
      notes[name] = note;
      if (el.checked) radio(form, name, fallback).checked = true;
    }
  };
  set('backend', 'webgpu', !caps.webgpu, 'cpu', 'No WebGPU here: decoding falls back to the CPU reference (slow).');
  const backend = readOptions(form).backend;
  set(
    'precision',
    'f16',
    backend === 'cpu' || !caps.f16,
    'f32',
    backend === 'cpu' ? 'The CPU backend computes in f32 only.' : "f16 needs the WebGPU feature 'shader-f16', which this adapter lacks.",
  );
  set('cache', 'off', caps.version === '2.2', 'on', 'Cache off is Wan2.1 only: the official Wan2.2 code fails without the cache.');
  for (const t of ['2x2', '3x3', '4x4']) set('tile', t, backend === 'cpu', 'none', 'Tiles apply to the webgpu backend.');
  for (const k of OPTION_NAMES) {
    const el = form.querySelector<HTMLElement>(`[data-note="${k}"]`);
    if (el) el.textContent = notes[k] ?? '';
  }
  return readOptions(form);
}

/**
 * What the worker gets: RGBA frames for display, no whole-video copy at the end (frames are kept here).
 * `shape` is the latent [z, T, h, w]: a grid of ny x nx tiles has cores of ceil(h/ny) x ceil(w/nx).
 */
export function toWorkerOptions(o: DemoOptions, shape: readonly number[]): WorkerDecodeOptions {
  const out: WorkerDecodeOptions = { cache: o.cache, precision: o.precision, backend: o.backend, latentStats: o.latentStats, rgba: true, collect: false };
  if (o.tile !== 'none' && o.backend === 'webgpu') {
    const [ny, nx] = o.tile.split('x').map(Number) as [number, number];
    out.tile = { th: Math.ceil(shape[2]! / ny), tw: Math.ceil(shape[3]! / nx), mode: o.tileMode, order: o.tileOrder };
  }
  return out;
}

export function describeOptions(o: DemoOptions): string {
  const tile = o.tile === 'none' ? '' : ` · ${o.tile} tiles ${o.tileMode} ${o.tileOrder}`;
  return `cache ${o.cache} · ${o.precision} · ${o.backend}${o.latentStats === 'none' ? ' · stats none' : ''}${tile}`;
}
