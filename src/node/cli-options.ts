// The CLI's view of the decode options, derived from the schema (src/options/schema.ts): which flags a
// command takes, their parsing with the schema's one-line errors, the options part of --help, and the
// FitRequest the levers make (what fitPlan needs besides the latent size and the adapter's limits).
import { totalmem } from 'node:os';
import { DecoderError } from '../gpu/errors';
import type { FitRequest } from '../plan/auto';
import { allowedValues, optionError, problem } from '../options/check';
import { tried } from '../options/auto';
import { OPTION_KEYS, OPTIONS, spec, type OptionKey, type OptionOrAuto } from '../options/schema';

export type Args = Record<string, string | true>;

/** `--flag value` pairs and `--bool` switches; anything else is a one-line error. */
export function parseArgs(argv: string[], flags: string[], bools: string[]): Args {
  const out: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new DecoderError('bad-input', `unexpected argument '${a}'`);
    const name = a.slice(2);
    if (bools.includes(name)) out[name] = true;
    else if (flags.includes(name)) {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new DecoderError('bad-input', `--${name} needs a value`);
      out[name] = v;
    } else throw new DecoderError('bad-input', `unknown option --${name}`);
  }
  return out;
}

/** A CLI-only choice (not a decode option: --vae, --synthetic, --progress). */
export function choice<T extends string>(args: Args, name: string, values: readonly T[], dflt: T): T {
  const v = args[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || !values.includes(v as T)) throw new DecoderError('bad-input', `--${name} must be one of ${values.join('|')}, got '${String(v)}'`);
  return v as T;
}

/** The decode options a command takes, in schema order. */
export function optionKeys(command: 'decode' | 'plan'): OptionKey[] {
  return OPTION_KEYS.filter((k) => OPTIONS[k].flag !== null && (OPTIONS[k].commands as readonly string[]).includes(command));
}

/** The flag names (without --) of a command's decode options. */
export function optionFlags(command: 'decode' | 'plan'): string[] {
  return optionKeys(command).map((k) => spec(k).flag!);
}

/** A flag's value syntax for --help: 'on|off', 'PIXELS', 'MiB', 'none|auto|HxW'. */
function syntax(key: OptionKey): string {
  const s = spec(key);
  if (s.kind === 'custom') return s.syntax;
  if (s.kind === 'int' || s.kind === 'number') return s.unit === 'MiB' ? 'MiB' : s.unit.toUpperCase();
  return allowedValues(key, 'cli')!.join('|');
}

/** The CLI default of an option as text, or null when it has none. */
function defaultText(key: OptionKey): string | null {
  const s = spec(key);
  if ('cliDefault' in s && s.cliDefault !== undefined) return s.cliDefault;
  if (s.kind === 'choice' && s.default === null) return s.defaultText ?? null;
  if (s.kind === 'bool') return s.default ? 'on' : 'off';
  return s.default === null ? null : String(s.default);
}

/** `[--cache on|off] [--precision f32|f16|auto] ...` for a command, wrapped at `width` after `indent`. */
export function optionSynopsis(command: 'decode' | 'plan', indent: string, width = 110): string {
  const lines: string[] = [];
  let line = indent;
  for (const k of optionKeys(command)) {
    const item = `[--${spec(k).flag} ${syntax(k)}]`;
    if (line.length + item.length + 1 > width && line.trim()) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${item} `;
  }
  return [...lines, line.trimEnd()].join('\n');
}

/** One line per decode option: `--flag SYNTAX  help (default X)`; `planOnly` marks those plan takes too. */
export function optionHelp(): string {
  const rows = OPTION_KEYS.filter((k) => spec(k).flag).map((k) => {
    const d = defaultText(k);
    const cmds = spec(k).commands.length === 1 ? ` [${spec(k).commands[0]} only]` : '';
    return `  --${spec(k).flag} ${syntax(k)}\n      ${spec(k).help}${d ? ` Default: ${d}.` : ''}${cmds}`;
  });
  return `decode options (the API's DecodeOptions, the worker's and the demo's, from one schema: src/options/schema.ts):\n${rows.join('\n')}`;
}

/** What a flag's text becomes: on|off a boolean, numbers numbers, choices their values (with 'auto'). */
type CliValue<K extends OptionKey> = (typeof OPTIONS)[K] extends { kind: 'bool' } ? boolean : (typeof OPTIONS)[K] extends { kind: 'int' | 'number' } ? number : (typeof OPTIONS)[K] extends { kind: 'custom' } ? string : OptionOrAuto<K>;

/** The value of a decode option's flag, checked against the schema (its CLI default when absent: null when none). */
export function cliValue<K extends OptionKey>(args: Args, key: K): CliValue<K>;
export function cliValue(args: Args, key: OptionKey): string | number | boolean | null {
  const s = spec(key);
  const v = args[s.flag!];
  if (v === undefined) {
    if (s.kind === 'bool') return s.default;
    const d = 'cliDefault' in s && s.cliDefault !== undefined ? s.cliDefault : s.default;
    return d;
  }
  if (problem(key, v, 'cli')) throw optionError(key, v, 'cli');
  if (s.kind === 'bool') return v === 'on';
  if (s.kind === 'int' || s.kind === 'number') return Number(v);
  return v as string;
}

/** Check every decode-option flag given to `command` up front (one-line error naming the first bad one). */
export function checkCliOptions(args: Args, command: 'decode' | 'plan'): void {
  for (const k of optionKeys(command)) if (args[spec(k).flag!] !== undefined) cliValue(args, k);
}

/** --tile-store; 'cpu' only makes sense in tile-major order (frame-major keeps no store). */
function tileStore(a: Args): OptionOrAuto<'tileStore'> {
  const store = cliValue(a, 'tileStore');
  if (store === 'cpu' && a['tile-order'] === 'frame-major')
    throw new DecoderError('bad-input', '--tile-store cpu needs --tile-order tile-major: frame-major order keeps every tile cache resident and has no latent-rate store');
  return store;
}

/**
 * --cpu-budget in bytes: a number of MiB; auto = half this machine's memory (a 16 GB laptop keeps 8 GB
 * for the rest: a long tile-major decode, whose frames wait in CPU memory for the last tile, moves to
 * frame-major order, which streams in constant CPU memory); none = no limit (undefined).
 */
export function cpuBudgetBytes(a: Args): number | undefined {
  const v = cliValue(a, 'cpuBudget');
  if (v === 'none') return undefined;
  return v === 'auto' ? Math.floor(totalmem() / 2) : Number(v) * 2 ** 20;
}

/** The levers (--cache, --precision, --norm, --norm-chunk, --tile*, --budget, --weights-precision) -> a FitRequest. */
export function fitOptions(a: Args, limits: FitRequest['limits']): { cache: 'on' | 'off'; req: FitRequest } {
  const cache = cliValue(a, 'cache');
  const precision = cliValue(a, 'precision');
  const norm = cliValue(a, 'norm');
  // absent: the weights as stored (= each precision)
  const wp = a['weights-precision'] === undefined ? undefined : cliValue(a, 'weightsPrecision');
  let normChunk: number | undefined;
  if (a['norm-chunk'] !== undefined) {
    normChunk = cliValue(a, 'normChunk');
    if (norm !== 'chunked') throw new DecoderError('bad-input', `--norm-chunk applies to --norm chunked only (got --norm ${norm})`);
  }
  const tileArg = cliValue(a, 'tile');
  const m = /^(\d+)x(\d+)$/.exec(tileArg);
  const tile: FitRequest['tile'] = m ? { th: Number(m[1]), tw: Number(m[2]) } : (tileArg as 'auto' | 'none');
  const mib = a.budget === undefined ? null : cliValue(a, 'budget');
  const offload = cliValue(a, 'cacheOffload');
  if (offload === 'on' && a['tile-order'] === 'tile-major')
    throw new DecoderError('bad-input', '--cache-offload on parks the caches of frame-major tiles: it needs --tile-order frame-major or auto (tile-major already keeps one tile\'s cache on the GPU)');
  return {
    cache,
    req: {
      budget: mib === null ? undefined : mib * 2 ** 20,
      limits,
      tile,
      // 'auto': the schema's values in their order (src/options/auto.ts)
      precisions: tried('precision', precision),
      // auto: f16 then int8 weights only where nothing at full weights fits (fitPlan's order)
      weightsPrecisions: wp ? tried('weightsPrecision', wp) : undefined,
      norms: tried('norm', norm),
      normChunk,
      tileMode: cliValue(a, 'tileMode'),
      tileOrder: cliValue(a, 'tileOrder'),
      stores: tried('tileStore', tileStore(a)),
      cacheOffloads: offload === 'auto' ? ['off', 'on'] : [offload],
      // weight streaming: auto = resident first at each tiling, then streamed (plan/auto.ts)
      weightsStreams: tried('weightsStream', cliValue(a, 'weightsStream')),
      weightsStreamSlots: a['weights-stream-slots'] === undefined ? undefined : cliValue(a, 'weightsStreamSlots'),
      cpuBudget: cpuBudgetBytes(a),
    },
  };
}

/**
 * The note the CLI prints after a decode that ran the f32 default on a device with tensor cores: f16
 * storage would have used them (a user who never read the README otherwise never learns the 4x).
 * Undefined when the user chose --precision, when the plan is not f32 (a budget picked f16), or when the
 * device has no 16x16x16 f16 subgroup matrices (then f16 would run the portable kernels: no such gain).
 */
export function tensorCoreNote(precisionFlag: unknown, chosen: string | undefined, hasTensorCores: boolean): string | undefined {
  if (precisionFlag !== undefined || chosen !== 'f32' || !hasTensorCores) return undefined;
  return 'wan-vae: note: this adapter has tensor cores (subgroup matrices), which f32 decodes do not use; --precision f16 runs them: '
    + 'Wan2.1 480x832x81 on an H200 3.5 s instead of 13 s, 66.9 dB PSNR against the f32 decode (README: Tensor cores)';
}
