// Validation of decode option values against the schema (schema.ts), with the schema's one-line errors.
// One text per problem ("must be one of on|off, got 'maybe'"); the surfaces differ only in how they
// name the option: the CLI `--cache`, the API and the worker `decode option 'cache'`, a demo recipe
// `recipe option 'cache'`. Surfaces also differ in the values they take: the CLI and the demo take
// 'auto' where fitPlan resolves it, the CLI reads text, the API takes typed values (a tile object).
import { DecoderError } from '../gpu/errors';
import { OPTION_KEYS, OPTIONS, spec, type OptionKey } from './schema';

export type Surface = 'api' | 'cli' | 'demo';

/** A value in an error: strings quoted, the rest as JSON (cyclic or otherwise unprintable: its type). */
function show(v: unknown): string {
  // control characters (a newline in a recipe value) escaped as in JSON, so the error stays one line
  if (typeof v === 'string')
    return `'${
      /[\u0000-\u001f\u007f\u2028\u2029]/.test(v)
        ? JSON.stringify(v)
            .slice(1, -1)
            .replace(/\u2028/g, '\\u2028')
            .replace(/\u2029/g, '\\u2029')
        : v
    }'`;
  if (v === undefined) return 'nothing';
  try {
    return JSON.stringify(v) ?? typeof v;
  } catch {
    return `a ${typeof v} that cannot be printed`;
  }
}

const isWhole = (n: unknown, min: number): n is number => typeof n === 'number' && Number.isInteger(n) && n >= min;

/** The values a choice-like option takes on `surface`, or null where it is free-form (numbers, objects). */
export function allowedValues(key: OptionKey, surface: Surface): readonly string[] | null {
  const s = spec(key);
  if (surface === 'demo' && 'demoValues' in s && s.demoValues) return s.demoValues;
  if (s.kind === 'choice') return surface !== 'api' && s.auto ? [...s.values, 'auto'] : s.values;
  if (s.kind === 'bool' && surface !== 'api') return ['on', 'off'];
  return null;
}

/** A tile core object of the API ({th, tw, mode, order, halo?, store?}): '' or what is wrong. */
function tileProblem(t: unknown): string {
  if (!t || typeof t !== 'object') return `must be {th, tw, mode, order} (tile core in latent pixels), got ${show(t)}`;
  const o = t as Record<string, unknown>;
  for (const d of ['th', 'tw'] as const) if (!isWhole(o[d], 1)) return `.${d} must be a positive whole number of latent pixels, got ${show(o[d])}`;
  // the tile's fields are the schema's options with api 'tile.<field>' (mode and order required)
  for (const key of OPTION_KEYS) {
    const api = OPTIONS[key].api;
    if (typeof api !== 'string') continue;
    const field = api.slice('tile.'.length);
    if (o[field] === undefined && field !== 'mode' && field !== 'order') continue;
    const p = problem(key, o[field], 'api');
    if (p) return `.${field} ${p}`;
  }
  if (o.halo !== undefined && !isWhole(o.halo, 0)) return `.halo must be a whole number of latent pixels >= 0, got ${show(o.halo)}`;
  return '';
}

/**
 * Why `value` is not a value of option `key` on `surface` ('' when it is). CLI values are the flag's
 * text; on the other surfaces numbers are numbers.
 */
export function problem(key: OptionKey, value: unknown, surface: Surface): string {
  const s = spec(key);
  const allowed = allowedValues(key, surface);
  if (key === 'tile' && surface !== 'demo') {
    if (surface === 'api') return tileProblem(value);
    return typeof value === 'string' && (value === 'none' || value === 'auto' || /^\d+x\d+$/.test(value)) ? '' : `must be none, auto or HxW (tile core in latent pixels), got ${show(value)}`;
  }
  if (key === 'latentStats' && surface !== 'demo') {
    if (surface === 'cli') return typeof value === 'string' && value !== '' ? '' : `must be official, none, file or a .safetensors file of mean/std, got ${show(value)}`;
    if (value === 'official' || value === 'none') return '';
    const o = value as { mean?: unknown; std?: unknown } | null;
    const vec = (a: unknown) => ArrayBuffer.isView(a) || Array.isArray(a);
    return o && typeof o === 'object' && vec(o.mean) && vec(o.std) ? '' : `must be 'official', 'none' or {mean, std} (one value per latent channel), got ${show(value)}`;
  }
  if (key === 'cpuBudget') {
    const ok = value === 'auto' || value === 'none' || (typeof value === 'string' && value.trim() !== '' && Number(value) > 0) || (typeof value === 'number' && value > 0);
    return ok ? '' : `must be a positive number of MiB, auto (half this machine's memory) or none, got ${show(value)}`;
  }
  if (key === 'injectOom') {
    const ok = isWhole(value, 0) || (typeof value === 'string' && /^\d+\+?$/.test(value));
    return ok ? '' : `must be N or N+ (the GPU buffer allocation of the decode to fail; + also every later one), got ${show(value)}`;
  }
  if (allowed) return typeof value === 'string' && allowed.includes(value) ? '' : `must be one of ${allowed.join('|')}, got ${show(value)}`;
  if (s.kind === 'bool') return typeof value === 'boolean' ? '' : `must be true or false, got ${show(value)}`;
  if (s.kind === 'int' || s.kind === 'number') {
    const n = surface === 'cli' && typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    const ok = s.kind === 'int' ? isWhole(n, s.min) : typeof n === 'number' && Number.isFinite(n) && n > s.min;
    if (ok) return '';
    const what = s.kind === 'int' ? (s.min === 1 ? `a positive whole number of ${s.unit}` : `a whole number of ${s.unit} >= ${s.min}`) : `a positive number of ${s.unit}`;
    return `must be ${what}, got ${show(value)}`;
  }
  return '';
}

/** How `surface` names the option in its errors. */
export function optionName(key: OptionKey, surface: Surface | 'recipe'): string {
  const flag = spec(key).flag;
  if (surface === 'cli' && flag) return `--${flag}`;
  return surface === 'recipe' ? `recipe option '${key}'` : `decode option '${key}'`;
}

/** The schema's one-line error for a bad value: `--cache must be one of on|off, got 'maybe'`. */
export function optionError(key: OptionKey, value: unknown, surface: Surface): DecoderError {
  return new DecoderError('bad-input', `${optionName(key, surface)} ${problem(key, value, surface)}`);
}

/**
 * Check the decode options of the API and the worker (fields the schema does not know, e.g. signal and
 * onFrame, are left alone): throws DecoderError('bad-input') naming the first bad option.
 */
export function checkDecodeOptions(o: object): void {
  const rec = o as Record<string, unknown>;
  for (const key of OPTION_KEYS) {
    if (OPTIONS[key].api !== true || rec[key] === undefined) continue;
    const p = problem(key, rec[key], 'api');
    if (p) throw new DecoderError('bad-input', `${optionName(key, 'api')} ${p}`);
  }
}
