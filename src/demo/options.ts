// The options form: read and write the decoder switches, and disable the ones this adapter or model
// cannot use (with a note saying why). Tiles are chosen as a grid; the tile core in latent pixels
// follows from the latent size. 'auto' (tiles, precision, norm, tile store) and the budget are resolved
// by fitPlan (fit.ts), as the CLI's --tile/--precision/--norm/--tile-store auto and --budget are.
import { DEFAULT_NORM_CHUNK } from '../plan/graph';
import type { WorkerDecodeOptions } from '../worker/protocol';

export interface DemoOptions {
  cache: 'on' | 'off';
  /** 'auto': f32, else f16 where the adapter has shader-f16 (fitPlan) */
  precision: 'f32' | 'f16' | 'auto';
  backend: 'webgpu' | 'cpu';
  /** 'file': the @mean / @std stored with the latents (main.ts puts them into the worker options) */
  latentStats: 'official' | 'none' | 'file';
  /** spatial tile grid (rows x columns), 'none' = whole frames, 'auto' = fitPlan picks */
  tile: 'none' | '2x2' | '3x3' | '4x4' | 'auto';
  tileMode: 'exact' | 'blend';
  tileOrder: 'tile-major' | 'frame-major';
  /**
   * tile-major only: where the latent-rate output of every latent frame waits for the tiles ('gpu': a GPU
   * buffer; 'cpu': host memory, one chunk's window uploaded before each tile run; 'auto' = fitPlan: gpu, else cpu)
   */
  tileStore: 'auto' | 'gpu' | 'cpu';
  /** where RMS_norm results live (all exact); 'auto' = fitPlan tries full, chunked, fused */
  norm: 'full' | 'chunked' | 'fused' | 'auto';
  /** pixels per norm dispatch with norm 'chunked' (as read from the form: may be invalid, see optionProblem) */
  normChunk: number;
  /** memory budget in MiB, null = none (as read from the form: may be invalid, see optionProblem) */
  budget: number | null;
}

export const DEFAULT_OPTIONS: DemoOptions = {
  cache: 'on',
  precision: 'f32',
  backend: 'webgpu',
  latentStats: 'official',
  tile: 'none',
  tileMode: 'exact',
  tileOrder: 'tile-major',
  tileStore: 'auto',
  norm: 'full',
  normChunk: DEFAULT_NORM_CHUNK,
  budget: null,
};

type ChoiceName = Exclude<keyof DemoOptions, 'normChunk' | 'budget'>;

const CHOICES: { [K in ChoiceName]: readonly DemoOptions[K][] } = {
  cache: ['on', 'off'],
  precision: ['f32', 'f16', 'auto'],
  backend: ['webgpu', 'cpu'],
  latentStats: ['official', 'none', 'file'],
  tile: ['none', '2x2', '3x3', '4x4', 'auto'],
  tileMode: ['exact', 'blend'],
  tileOrder: ['tile-major', 'frame-major'],
  tileStore: ['auto', 'gpu', 'cpu'],
  norm: ['full', 'chunked', 'fused', 'auto'],
};

const CHOICE_NAMES = Object.keys(CHOICES) as ChoiceName[];

const validChunk = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 1;
const validBudget = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** Options from untrusted input (a recipe or the URL): unknown or invalid values fall back to the defaults. */
export function sanitizeOptions(o: unknown): DemoOptions {
  const src = (o && typeof o === 'object' ? o : {}) as Record<string, unknown>;
  const out = { ...DEFAULT_OPTIONS } as Record<ChoiceName, string> & Pick<DemoOptions, 'normChunk' | 'budget'>;
  for (const k of CHOICE_NAMES) if ((CHOICES[k] as readonly unknown[]).includes(src[k])) out[k] = src[k] as string;
  if (validChunk(src.normChunk)) out.normChunk = src.normChunk;
  if (validBudget(src.budget)) out.budget = src.budget;
  return out as DemoOptions;
}

/** Why these options cannot be planned ('' when they can): the number fields the form may hold badly. */
export function optionProblem(o: DemoOptions): string {
  if (o.backend !== 'webgpu') return '';
  if (o.norm === 'chunked' && !validChunk(o.normChunk)) return 'Norm chunk size must be a whole number of pixels, at least 1.';
  if (o.budget !== null && !validBudget(o.budget)) return 'The budget must be a positive number of MiB (leave it empty for no budget).';
  return '';
}

/** A radio group (RadioNodeList) or a select of the form. */
function choice(form: HTMLFormElement, name: ChoiceName): RadioNodeList | HTMLSelectElement {
  const el = form.elements.namedItem(name) as RadioNodeList | HTMLSelectElement | null;
  if (!el) throw new Error(`demo: options form lacks ${name}`);
  return el;
}

function radio(form: HTMLFormElement, name: ChoiceName, value: string): HTMLInputElement {
  const el = form.querySelector<HTMLInputElement>(`input[name="${name}"][value="${value}"]`);
  if (!el) throw new Error(`demo: options form lacks ${name}=${value}`);
  return el;
}

function numberInput(form: HTMLFormElement, name: 'normChunk' | 'budget'): HTMLInputElement {
  const el = form.querySelector<HTMLInputElement>(`input[name="${name}"]`);
  if (!el) throw new Error(`demo: options form lacks the ${name} field`);
  return el;
}

/** A number field: NaN when it holds something that is not a number, null when empty. */
function readNumber(el: HTMLInputElement): number | null {
  if (el.validity.badInput) return NaN;
  return el.value.trim() === '' ? null : Number(el.value);
}

export function readOptions(form: HTMLFormElement): DemoOptions {
  const out: Record<string, unknown> = {};
  for (const k of CHOICE_NAMES) out[k] = choice(form, k).value || DEFAULT_OPTIONS[k];
  const o = sanitizeOptions(out);
  o.normChunk = readNumber(numberInput(form, 'normChunk')) ?? NaN;
  o.budget = readNumber(numberInput(form, 'budget'));
  return o;
}

/** Fill the number fields the HTML leaves empty with their defaults (the chunk size comes from the planner). */
export function initOptions(form: HTMLFormElement): void {
  const chunk = numberInput(form, 'normChunk');
  if (chunk.value === '') chunk.value = String(DEFAULT_NORM_CHUNK);
  chunk.placeholder = String(DEFAULT_NORM_CHUNK);
}

export function writeOptions(form: HTMLFormElement, o: DemoOptions): void {
  for (const k of CHOICE_NAMES) choice(form, k).value = o[k];
  numberInput(form, 'normChunk').value = String(o.normChunk);
  numberInput(form, 'budget').value = o.budget === null ? '' : String(o.budget);
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
  const set = (name: ChoiceName, value: string, disabled: boolean, fallback: string, note: string) => {
    const el = radio(form, name, value);
    el.disabled = disabled;
    if (disabled) {
      notes[name] = note;
      if (el.checked) radio(form, name, fallback).checked = true;
    }
  };
  set('backend', 'webgpu', !caps.webgpu, 'cpu', 'No WebGPU here: decoding falls back to the CPU reference (slow).');
  const backend = readOptions(form).backend;
  const cpu = backend === 'cpu';
  set('precision', 'f16', cpu || !caps.f16, 'f32', cpu ? 'The CPU backend computes in f32 only.' : "f16 needs the WebGPU feature 'shader-f16', which this adapter lacks.");
  set('precision', 'auto', cpu, 'f32', 'The CPU backend computes in f32 only.');
  set('cache', 'off', caps.version === '2.2', 'on', 'Cache off is Wan2.1 only: the official Wan2.2 code fails without the cache.');
  for (const t of ['2x2', '3x3', '4x4', 'auto']) set('tile', t, cpu, 'none', 'Tiles apply to the webgpu backend.');
  // the store exists with tiles in tile-major order only (the select keeps its value while disabled)
  const tiled = readOptions(form);
  const store = choice(form, 'tileStore') as HTMLSelectElement;
  store.disabled = tiled.tile === 'none' || tiled.tileOrder !== 'tile-major';
  if (tiled.tile !== 'none' && tiled.tileOrder !== 'tile-major') notes.tileStore = 'Frame-major order keeps no store: every tile keeps its own cache instead.';
  const norm = choice(form, 'norm') as HTMLSelectElement;
  norm.disabled = cpu;
  if (cpu) notes.norm = 'Norm modes apply to the webgpu backend (the CPU reference normalises as PyTorch does).';
  numberInput(form, 'normChunk').disabled = cpu || norm.value !== 'chunked';
  numberInput(form, 'budget').disabled = cpu;
  if (cpu) notes.budget = 'The budget applies to the webgpu backend (the CPU reference uses no GPU memory).';
  for (const el of form.querySelectorAll<HTMLElement>('[data-note]')) el.textContent = notes[el.dataset.note as keyof DemoOptions] ?? '';
  return readOptions(form);
}

/**
 * What the worker gets for the options as set (statistics 'file' go as 'none' here: the caller puts in the file's): RGBA frames for display, no whole-video copy at the end
 * (frames are kept here). Levers on 'auto' (the tile store's included) are left out (fitPlan fills them
 * in, fit.ts). `shape` is the latent [z, T, h, w]: a grid of ny x nx tiles has cores of ceil(h/ny) x ceil(w/nx).
 */
export function toWorkerOptions(o: DemoOptions, shape: readonly number[]): WorkerDecodeOptions {
  const out: WorkerDecodeOptions = { cache: o.cache, backend: o.backend, latentStats: o.latentStats === 'file' ? 'none' : o.latentStats, rgba: true, collect: false };
  if (o.precision !== 'auto') out.precision = o.precision;
  if (o.backend !== 'webgpu') return out;
  const tile = tileCore(o, shape);
  if (tile) out.tile = tile;
  if (o.norm !== 'auto') out.norm = o.norm;
  if (o.norm === 'chunked') out.normChunk = o.normChunk;
  return out;
}

/** Whether the tile store applies (tiles in tile-major order on the webgpu backend). */
export function hasStore(o: DemoOptions): boolean {
  return o.backend === 'webgpu' && o.tile !== 'none' && o.tileOrder === 'tile-major';
}

/** The tile-major stores fitPlan may use, in order of preference (the CLI's --tile-store: auto = gpu, else cpu). */
export function storeChoices(o: DemoOptions): ('gpu' | 'cpu')[] {
  return o.tileStore === 'auto' ? ['gpu', 'cpu'] : [o.tileStore];
}

/** The tile core (latent px) of a chosen grid (with the store when one is set), null for whole frames or 'auto'. */
export function tileCore(o: DemoOptions, shape: readonly number[]): WorkerDecodeOptions['tile'] | null {
  if (o.tile === 'none' || o.tile === 'auto') return null;
  const [ny, nx] = o.tile.split('x').map(Number) as [number, number];
  const tile: NonNullable<WorkerDecodeOptions['tile']> = { th: Math.ceil(shape[2]! / ny), tw: Math.ceil(shape[3]! / nx), mode: o.tileMode, order: o.tileOrder };
  if (hasStore(o) && o.tileStore !== 'auto') tile.store = o.tileStore;
  return tile;
}

/** A short label of what a decode ran with (the worker options after fitPlan), for the compare view. */
export function describeDecode(o: DemoOptions, w: WorkerDecodeOptions, shape: readonly number[]): string {
  const parts = [`cache ${o.cache}`, w.precision ?? 'f32', o.backend];
  if (o.latentStats !== 'official') parts.push(`stats ${o.latentStats}`);
  if (o.backend === 'webgpu') {
    if (w.norm && w.norm !== 'full') parts.push(`norm ${w.norm}${w.norm === 'chunked' ? ` ${w.normChunk} px` : ''}`);
    if (w.tile) parts.push(`${Math.ceil(shape[2]! / w.tile.th)}x${Math.ceil(shape[3]! / w.tile.tw)} tiles ${w.tile.mode} ${w.tile.order}${w.tile.store === 'cpu' ? ' store cpu' : ''}`);
    if (o.budget !== null) parts.push(`budget ${o.budget} MiB`);
  }
  return parts.join(' · ');
}
