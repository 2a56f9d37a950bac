// The options form: read and write the decoder switches, and disable the ones this adapter or model
// cannot use (with a note saying why). Tiles are chosen as a grid; the tile core in latent pixels
// follows from the latent size. 'auto' (tiles, precision, norm, tile store) and the budget are resolved
// by fitPlan (fit.ts), as the CLI's --tile/--precision/--norm/--tile-store auto and --budget are.
import { problem } from '../options/check';
import { tried } from '../options/auto';
import { OPTION_KEYS, OPTIONS, spec, type DemoValue, type OptionKey } from '../options/schema';
import type { WorkerDecodeOptions } from '../worker/protocol';
import { PAGE_HELP } from './help-text';

/** The options the form has: the schema's records with a demo label (src/options/schema.ts). */
type DemoKey = { [K in OptionKey]: (typeof OPTIONS)[K]['demo'] extends string ? K : never }[OptionKey];
type NumberKey = 'normChunk' | 'budget';
type ChoiceName = Exclude<DemoKey, NumberKey>;

/**
 * The form's values (what each means: the schema's help, shown beside the control). Choices take the
 * schema's values plus 'auto' where fitPlan resolves it (fit.ts); tiles are grids; latent stats 'file'
 * is the @mean / @std stored with the latents (main.ts puts them into the worker options). normChunk and
 * budget are as read from the form: they may be invalid, see optionProblem; budget null = none.
 */
export type DemoOptions = { [K in ChoiceName]: DemoValue<K> } & { normChunk: number; budget: number | null };

const DEMO_KEYS = OPTION_KEYS.filter((k): k is DemoKey => OPTIONS[k].demo !== null);
const CHOICE_NAMES = DEMO_KEYS.filter((k): k is ChoiceName => k !== 'normChunk' && k !== 'budget');

/** A demo default: the schema's demo default where it has one, else its API default. */
function demoDefault(k: ChoiceName): string {
  const s = spec(k) as { default: unknown; demoDefault?: string };
  return s.demoDefault ?? String(s.default);
}

export const DEFAULT_OPTIONS: DemoOptions = {
  ...(Object.fromEntries(CHOICE_NAMES.map((k) => [k, demoDefault(k)])) as { [K in ChoiceName]: DemoValue<K> }),
  normChunk: OPTIONS.normChunk.default,
  budget: OPTIONS.budget.default,
};

const valid = (k: DemoKey, v: unknown) => problem(k, v, 'demo') === '';

/** Options from the form (always valid choices): choices off the schema fall back to the defaults. */
export function sanitizeOptions(o: unknown): DemoOptions {
  const src = (o && typeof o === 'object' ? o : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...DEFAULT_OPTIONS };
  for (const k of DEMO_KEYS) if (valid(k, src[k])) out[k] = src[k];
  return out as DemoOptions;
}

/**
 * Options from untrusted input (a recipe or the URL): an option the recipe lacks takes its default (older
 * recipes), an option the schema does not know is ignored (newer recipes), a bad value is an error
 * naming the option with the schema's one-line text (budget null = none).
 */
export function recipeOptions(o: unknown): DemoOptions {
  if (o === undefined) return { ...DEFAULT_OPTIONS };
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error(`recipe: "options" must be an object of option values, got ${JSON.stringify(o)}`);
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = { ...DEFAULT_OPTIONS };
  for (const k of DEMO_KEYS) {
    const v = src[k];
    if (v === undefined || (k === 'budget' && v === null)) continue;
    const p = problem(k, v, 'demo');
    if (p) throw new Error(`recipe option '${k}' ${p}`);
    out[k] = v;
  }
  return out as DemoOptions;
}

/** Why these options cannot be planned ('' when they can): the number fields the form may hold badly. */
export function optionProblem(o: DemoOptions): string {
  if (o.backend !== 'webgpu') return '';
  if (o.norm === 'chunked' && !valid('normChunk', o.normChunk)) return 'Norm chunk size must be a whole number of pixels, at least 1.';
  if (o.budget !== null && !valid('budget', o.budget)) return 'The budget must be a positive number of MiB (leave it empty for no budget).';
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

/**
 * Fill in what the HTML leaves to the schema: each option's explanation (its one-line help) and the
 * number fields' defaults (the chunk size comes from the planner).
 */
export function initOptions(form: HTMLFormElement): void {
  for (const el of form.querySelectorAll<HTMLElement>('[data-explain]')) el.textContent = PAGE_HELP[el.dataset.explain as OptionKey] ?? spec(el.dataset.explain as OptionKey).help;
  const chunk = numberInput(form, 'normChunk');
  const dflt = String(OPTIONS.normChunk.default);
  if (chunk.value === '') chunk.value = dflt;
  chunk.placeholder = dflt;
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
  // cache offload parks the caches of frame-major tiles (tile-major keeps one tile's cache already)
  const offload = choice(form, 'cacheOffload') as HTMLSelectElement;
  offload.disabled = !hasOffload(tiled);
  if (!cpu && !hasOffload(tiled)) notes.cacheOffload = "Applies to frame-major tiles with the cache on: tile-major keeps one tile's cache on the GPU already.";
  // weights: 'auto' = as the precision unless a budget needs f16 or int8 weights (fitPlan); streaming is GPU-only
  const stream = choice(form, 'weightsStream') as HTMLSelectElement;
  stream.disabled = cpu;
  if (cpu) notes.weightsStream = 'Weight streaming applies to the webgpu backend (the CPU reference keeps its weights in memory).';
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
  if (o.weightsPrecision !== 'auto') out.weightsPrecision = o.weightsPrecision;
  if (o.backend !== 'webgpu') return out;
  if (o.weightsStream !== 'auto') out.weightsStream = o.weightsStream;
  const tile = tileCore(o, shape);
  if (tile) out.tile = tile;
  if (o.norm !== 'auto') out.norm = o.norm;
  if (o.norm === 'chunked') out.normChunk = o.normChunk;
  if (hasOffload(o) && o.cacheOffload !== 'auto') out.cacheOffload = o.cacheOffload;
  return out;
}

/** Whether cache offload applies (frame-major tiles with the cache on, webgpu backend). */
export function hasOffload(o: DemoOptions): boolean {
  return o.backend === 'webgpu' && o.tile !== 'none' && o.tileOrder === 'frame-major' && o.cache === 'on';
}

/** Whether the tile store applies (tiles in tile-major order on the webgpu backend). */
export function hasStore(o: DemoOptions): boolean {
  return o.backend === 'webgpu' && o.tile !== 'none' && o.tileOrder === 'tile-major';
}

/** The tile-major stores fitPlan may use, in order of preference (the CLI's --tile-store: auto = gpu, else cpu). */
export function storeChoices(o: DemoOptions): ('gpu' | 'cpu')[] {
  return tried('tileStore', o.tileStore);
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
    if (w.tile)
      parts.push(
        `${Math.ceil(shape[2]! / w.tile.th)}x${Math.ceil(shape[3]! / w.tile.tw)} tiles ${w.tile.mode} ${w.tile.order}${w.tile.store === 'cpu' ? ' store cpu' : ''}${w.cacheOffload === 'on' ? ' caches offloaded' : ''}`,
      );
    if (w.weightsPrecision && w.weightsPrecision !== (w.precision ?? 'f32')) parts.push(`${w.weightsPrecision} weights`);
    if (w.weightsStream === 'on') parts.push(`weights streamed${w.weightsStreamSlots ? ` (${w.weightsStreamSlots} slots)` : ''}`);
    if (o.budget !== null) parts.push(`budget ${o.budget} MiB`);
  }
  return parts.join(' · ');
}
