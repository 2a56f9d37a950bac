// The CLI's view of the decode options, derived from the schema (src/options/schema.ts): which flags a
// command takes, their parsing with the schema's one-line errors, the options part of --help, and the
// FitRequest the levers make (what fitPlan needs besides the latent size and the adapter's limits).
import { totalmem } from 'node:os';
import { didYouMean, parseCommandArgs, type Args, type Command, type Flag } from './cli-args';
import { DecoderError } from '../gpu/errors';
import type { FitRequest } from '../plan/auto';
import { allowedValues, optionError, problem } from '../options/check';
import { tried } from '../options/auto';
import { OPTION_KEYS, OPTIONS, spec, type OptionKey, type OptionOrAuto } from '../options/schema';

export type { Args } from './cli-args';

/** `--flag value` pairs and `--bool` switches of the given names (scripts' parsing: bench/decode-timing.ts); one-line errors as the CLI's. */
export function parseArgs(argv: string[], flags: string[], bools: string[]): Args {
  const cmd: Command = {
    name: 'wan-vae',
    summary: '',
    usage: [],
    run: () => 0,
    flags: [...flags.map((name) => ({ name, syntax: 'VALUE', help: '', group: 'common' as const })), ...bools.map((name) => ({ name, help: '', group: 'common' as const }))],
  };
  return parseCommandArgs(cmd, argv);
}

/** A CLI-only choice (not a decode option: --vae, --synthetic, --progress). */
export function choice<T extends string>(args: Args, name: string, values: readonly T[], dflt: T): T {
  const v = args[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || !values.includes(v as T))
    throw new DecoderError('bad-input', `--${name} must be one of ${values.join('|')}, got '${String(v)}'${typeof v === 'string' ? didYouMean(v, values, (c) => `'${c}'`) : ''}`);
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

/** The decode options that have a CLI flag. */
type FlagKey = { [K in OptionKey]: (typeof OPTIONS)[K]['flag'] extends string ? K : never }[OptionKey];

/**
 * The CLI's words for each flag of the schema: its help section and a short plain-words text (the
 * schema's `help`, with the internals and measurements, is the long form in docs/cli-reference.md). A flag added to
 * the schema without a row here does not type-check.
 */
const CLI_TEXT: Record<FlagKey, { group: Flag['group']; help: string }> = {
  backend: { group: 'common', help: 'webgpu: decode on the GPU; cpu: the slow reference decoder, for checking.' },
  precision: { group: 'common', help: 'GPU storage precision: f16 halves the memory (sums stay f32); auto: f32 unless only f16 fits the budget.' },
  budget: { group: 'common', help: "GPU memory to fit the decode in: the planner picks tiles and the other auto options to stay under it (and the adapter's limits)." },
  tile: {
    group: 'common',
    help: 'Decode in spatial tiles (less GPU memory, some recompute; exact): none, auto (whole frames when they fit, else the fewest tiles that do) or a tile size HxW in latent pixels.',
  },
  latentStats: {
    group: 'common',
    help: "official: the latents are normalised, as a diffusion model outputs them (the official mean/std is applied); none: already de-normalised; file: the '@mean'/'@std' stored with the latents; or a .safetensors file of them.",
  },
  cache: { group: 'advanced', help: 'on: the exact causal frame cache (1+4(T-1) frames); off: the per-frame loop without a cache (T frames, Wan2.1 only).' },
  weightsPrecision: { group: 'advanced', help: 'Storage of the conv weights (f16 or int8 save memory; int8 is not exact); auto: smaller weights only when nothing else fits the budget.' },
  tileMode: { group: 'advanced', help: 'exact: tiles overlap enough to give the whole-frame output; blend: smaller overlaps blended linearly (faster, not exact).' },
  tileOrder: {
    group: 'advanced',
    help: 'tile-major: one tile at a time, frames appear at the end (they wait in CPU memory); frame-major: frames stream out (more GPU memory); auto: tile-major unless its CPU memory is over --cpu-budget.',
  },
  tileStore: { group: 'advanced', help: 'tile-major: where the intermediate frames wait for the tiles, gpu or cpu (less GPU memory, more copying); auto: gpu unless it does not fit.' },
  cacheOffload: { group: 'advanced', help: "frame-major tiles: on keeps the idle tiles' caches in CPU memory (exact, more copying); auto: only when nothing fits without it." },
  norm: { group: 'advanced', help: 'Where the normalisation results are kept (all exact): full, chunked or fused (least memory); auto: the first that fits.' },
  normChunk: { group: 'advanced', help: 'Pixels per step with --norm chunked.' },
  weightsStream: {
    group: 'advanced',
    help: 'on: the conv weights stay in CPU memory and are uploaded a few layers at a time (exact, less GPU memory, slower); auto: only when nothing fits without it.',
  },
  weightsStreamSlots: { group: 'advanced', help: 'GPU buffers of the weight stream (>= 2): more buffers, fewer uploads.' },
  cpuBudget: { group: 'advanced', help: "CPU memory the decoder may keep besides the written video (tile-major frames waiting, parked caches). auto: half this machine's memory; none: no limit." },
  tensorCores: { group: 'advanced', help: "Use the GPU's tensor cores where the adapter offers them (f16 storage); off: the portable kernels always." },
  conv: {
    group: 'advanced',
    help: 'f32 decodes: the 3x3 convolutions direct or as the exact Winograd transform (fewer multiplies, a transformed weight copy); auto: Winograd where it was measured faster and fits.',
  },
};

/** The flags of a command's decode options (schema order), for parsing and help. */
export function optionFlagSpecs(command: 'decode' | 'plan'): Flag[] {
  return optionKeys(command).map((k) => {
    const t = CLI_TEXT[k as FlagKey];
    return { name: spec(k).flag!, syntax: syntax(k), help: t.help, group: t.group, values: allowedValues(k, 'cli') ?? undefined, default: defaultText(k) };
  });
}

/** docs/cli-reference.md's option reference: every flag with the schema's full text (the long form of the help). */
export function optionReference(): string {
  const rows = OPTION_KEYS.filter((k) => spec(k).flag).map((k) => {
    const s = spec(k);
    const d = defaultText(k);
    return `- \`--${s.flag} ${syntax(k)}\` (${s.commands.join(', ')}${d ? `; default ${d}` : ''}): ${s.help}`;
  });
  return rows.join('\n');
}

/** What a flag's text becomes: on|off a boolean, numbers numbers, choices their values (with 'auto'). */
type CliValue<K extends OptionKey> = (typeof OPTIONS)[K] extends { kind: 'bool' }
  ? boolean
  : (typeof OPTIONS)[K] extends { kind: 'int' | 'number' }
    ? number
    : (typeof OPTIONS)[K] extends { kind: 'custom' }
      ? string
      : OptionOrAuto<K>;

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
  if (problem(key, v, 'cli')) {
    const values = allowedValues(key, 'cli');
    const hint = values && typeof v === 'string' ? didYouMean(v, values, (c) => `'${c}'`) : '';
    throw new DecoderError('bad-input', `${optionError(key, v, 'cli').message}${hint}`);
  }
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
    throw new DecoderError('bad-input', "--cache-offload on parks the caches of frame-major tiles: it needs --tile-order frame-major or auto (tile-major already keeps one tile's cache on the GPU)");
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
  return (
    'wan-vae: note: this adapter has tensor cores (subgroup matrices), which f32 decodes do not use; --precision f16 runs them: ' +
    'Wan2.1 480x832x81 on an H200 3.5 s instead of 13 s, 66.9 dB PSNR against the f32 decode (README: Tensor cores)'
  );
}
