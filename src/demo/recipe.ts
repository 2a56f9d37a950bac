// Recipes: what reproduces a result. Options (the demo's options of the schema, src/options/schema.ts:
// fields a recipe lacks take their defaults, so older recipes get tile store auto; a bad value is the
// schema's one-line error naming the option; unknown fields are ignored), the latents (inline
// as base64 f32, or where they came from) and where the weights came from, saved as a JSON file or put
// in the URL hash (#recipe=...).
// Weights are never inlined (hundreds of MB); a file-picked model is recorded by name only.
import { recipeOptions, type DemoOptions } from './options';

export type WeightsRef = { kind: 'default' } | { kind: 'url'; url: string } | { kind: 'file'; name: string };
export type LatentsRef =
  | { kind: 'default' }
  | { kind: 'url'; url: string; key?: string }
  | { kind: 'file'; name: string; key?: string }
  | { kind: 'inline'; name: string; shape: [number, number, number, number]; f32: string };

export interface Recipe {
  app: 'wan-vae-webgpu demo';
  version: 1;
  weights: WeightsRef;
  latents: LatentsRef;
  options: DemoOptions;
  fps: number;
}

/** Inline latents larger than this stay out of links (URLs get unwieldy); the JSON file always has them. */
export const MAX_LINK_LATENT_CHARS = 64 * 1024;

export function f32ToBase64(a: Float32Array): string {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function base64ToF32(b64: string): Float32Array {
  let s: string;
  try {
    s = atob(b64);
  } catch {
    throw new Error('recipe: inline latents are not valid base64');
  }
  if (s.length % 4) throw new Error('recipe: inline latents are not a whole number of f32 values');
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

function isShape(s: unknown): s is [number, number, number, number] {
  return Array.isArray(s) && s.length === 4 && s.every((v) => Number.isInteger(v) && v > 0);
}

/** Validate a parsed recipe; errors say what is wrong. */
export function parseRecipe(value: unknown): Recipe {
  const r = value as Partial<Recipe> | null;
  if (!r || typeof r !== 'object' || r.app !== 'wan-vae-webgpu demo') throw new Error('not a wan-vae-webgpu demo recipe (missing "app": "wan-vae-webgpu demo")');
  if (r.version !== 1) throw new Error(`recipe version ${JSON.stringify(r.version) ?? typeof r.version} is not supported (this page reads version 1)`);
  const w = r.weights as WeightsRef | undefined;
  const weights: WeightsRef =
    w?.kind === 'url' && typeof w.url === 'string' ? { kind: 'url', url: w.url } : w?.kind === 'file' && typeof w.name === 'string' ? { kind: 'file', name: w.name } : { kind: 'default' };
  const l = r.latents as LatentsRef | undefined;
  let latents: LatentsRef = { kind: 'default' };
  if (l?.kind === 'inline') {
    if (!isShape(l.shape) || typeof l.f32 !== 'string') throw new Error('recipe: inline latents need a shape [z, T, h, w] and base64 f32 data');
    latents = { kind: 'inline', name: typeof l.name === 'string' ? l.name : 'latents', shape: l.shape, f32: l.f32 };
  } else if (l?.kind === 'url' && typeof l.url === 'string') latents = { kind: 'url', url: l.url, ...(typeof l.key === 'string' && l.key ? { key: l.key } : {}) };
  else if (l?.kind === 'file' && typeof l.name === 'string') latents = { kind: 'file', name: l.name, ...(typeof l.key === 'string' && l.key ? { key: l.key } : {}) };
  // Number() of an object whose toString is not callable throws a TypeError: only numbers and strings count
  const fps = typeof r.fps === 'number' || typeof r.fps === 'string' ? Number(r.fps) : NaN;
  return { app: 'wan-vae-webgpu demo', version: 1, weights, latents, options: recipeOptions(r.options), fps: fps >= 1 && fps <= 60 ? fps : 16 };
}

/** Inline latents as a Float32Array checked against the shape. */
export function inlineLatents(l: Extract<LatentsRef, { kind: 'inline' }>): { data: Float32Array; shape: [number, number, number, number] } {
  const data = base64ToF32(l.f32);
  const n = l.shape.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new Error(`recipe: inline latents hold ${data.length} values, shape [${l.shape}] needs ${n}`);
  return { data, shape: l.shape };
}

/** The recipe for a link: inline latents too large for a URL become a reference by name. */
export function recipeForLink(r: Recipe): { recipe: Recipe; dropped: boolean } {
  if (r.latents.kind === 'inline' && r.latents.f32.length > MAX_LINK_LATENT_CHARS) return { recipe: { ...r, latents: { kind: 'file', name: r.latents.name } }, dropped: true };
  return { recipe: r, dropped: false };
}

export function recipeToHash(r: Recipe): string {
  return `#recipe=${encodeURIComponent(JSON.stringify(r))}`;
}

/** The recipe in a location hash, null when there is none; throws on a malformed one. */
export function recipeFromHash(hash: string): Recipe | null {
  const m = /^#recipe=(.*)$/.exec(hash);
  if (!m) return null;
  let value: unknown;
  try {
    value = JSON.parse(decodeURIComponent(m[1]!));
  } catch (e) {
    throw new Error(`the #recipe= link is damaged (${(e as Error).message.replace(/\s+/g, ' ')}): copy the whole link again`);
  }
  return parseRecipe(value);
}
