// The command line's grammar: commands, their flags, parsing (node:util parseArgs and a thin layer
// of one-line errors with "did you mean"), and help text wrapped to the terminal (at most 100
// characters a line). Each command is one `Command` record (src/node/cli.ts lists them; a module
// adding a command exports its record and cli.ts adds it to COMMANDS); the decode options' flags come
// from the options schema (src/node/cli-options.ts optionFlagSpecs).
import { parseArgs as nodeParseArgs } from 'node:util';
import { DecoderError } from '../gpu/errors';

/** Flag values by name (no dashes): the text after a value flag, true for a switch. */
export type Args = Record<string, string | true>;

export interface Flag {
  /** without the dashes */
  name: string;
  /** the value's syntax in help ('FILE', 'on|off'); absent: a switch that takes no value */
  syntax?: string;
  /** one or two sentences, plain words */
  help: string;
  /** help sections: 'common' first, 'advanced' after (docs/cli-reference.md explains every flag at length) */
  group: 'common' | 'advanced';
  /** the values it takes, for "did you mean" (choices) */
  values?: readonly string[];
  /** its default, shown in help */
  default?: string | null;
}

export interface Command {
  name: string;
  /** one line, for the command list */
  summary: string;
  /** usage lines after `wan-vae ` (the first is the main form) */
  usage: readonly string[];
  /** a paragraph under the usage (plain words) */
  about?: string;
  flags: readonly Flag[];
  run(args: Args): Promise<number> | number;
}

/** Edit distance with transpositions (optimal string alignment): 'precison' -> 'precision' 1, 'f61' -> 'f16' 1. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/** The closest of `candidates` to `word` when it is close enough to be a typo (else undefined). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = c.startsWith(w) && w.length >= 3 ? 0.5 : distance(w, c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD <= (best.length <= 4 ? 1 : Math.min(3, Math.ceil(best.length / 4))) ? best : undefined;
}

/** `; did you mean X?` or ''. */
export function didYouMean(word: string, candidates: Iterable<string>, show = (s: string) => s): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : ` (did you mean ${show(c)}?)`;
}

const HELP: Flag = { name: 'help', help: 'Show this help.', group: 'advanced' };

/** Whether argv asks for help (`--help` or `-h` anywhere): help wins over every other flag. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/**
 * The flags of `cmd` in `argv`: `--flag value`, `--flag=value`, `--switch`. One-line DecoderError
 * ('bad-input') for an unknown flag (with the closest known one), a value flag without its value, a
 * switch given a value, a stray word, or a flag given twice.
 */
export function parseCommandArgs(cmd: Command, argv: readonly string[]): Args {
  const flags = new Map(cmd.flags.map((f) => [f.name, f]));
  const options = Object.fromEntries(cmd.flags.map((f) => [f.name, { type: f.syntax === undefined ? ('boolean' as const) : ('string' as const) }]));
  const { tokens } = nodeParseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const out: Args = {};
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') {
      const hint = t.value.startsWith('—') || t.value.startsWith('–') ? ' (a dash pasted as a long dash? flags start with --)' : '';
      throw new DecoderError('bad-input', `unexpected argument '${t.value}'${hint}: options are --name value (wan-vae ${cmd.name} --help)`);
    }
    const f = flags.get(t.name);
    if (!f) {
      const hint = didYouMean(
        t.name,
        cmd.flags.map((x) => x.name),
        (s) => `--${s}`,
      );
      throw new DecoderError('bad-input', `unknown option ${t.rawName}${hint || ` (wan-vae ${cmd.name} --help lists the options)`}`);
    }
    if (t.rawName !== `--${f.name}`) throw new DecoderError('bad-input', `unknown option ${t.rawName} (did you mean --${f.name}?)`);
    if (out[f.name] !== undefined) throw new DecoderError('bad-input', `--${f.name} is given twice`);
    if (f.syntax === undefined) {
      if (t.value !== undefined) throw new DecoderError('bad-input', `--${f.name} takes no value, got '${t.value}'`);
      out[f.name] = true;
      continue;
    }
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) throw new DecoderError('bad-input', `--${f.name} needs a value (${f.syntax})`);
    out[f.name] = t.value;
  }
  return out;
}

/** The help width: the terminal's columns, at most 100 (80 when not a terminal), at least 50. */
export function helpWidth(columns = process.stdout.columns): number {
  return Math.max(50, Math.min(100, columns || 80));
}

/** `text` wrapped to `width` columns, every line after `indent` (words longer than a line stay whole, cut). */
export function wrap(text: string, width: number, indent = '', first = indent): string[] {
  const lines: string[] = [];
  let line = first;
  let fresh = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!fresh && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
      fresh = true;
    }
    line += (fresh ? '' : ' ') + word;
    fresh = false;
    while (line.length > width) {
      lines.push(line.slice(0, width));
      line = indent + line.slice(width);
    }
  }
  if (!fresh || lines.length === 0) lines.push(line);
  return lines;
}

/** A flag's help rows: `  --flag SYNTAX  help (default X)`, the help in a column where the flag fits. */
function flagRows(f: Flag, width: number, col: number): string[] {
  const head = `  --${f.name}${f.syntax ? ` ${f.syntax}` : ''}`;
  const text = `${f.help}${f.default ? ` Default: ${f.default}.` : ''}`;
  const pad = ' '.repeat(col);
  if (head.length + 2 <= col) return wrap(text, width, pad, head.padEnd(col));
  return [...wrap(head.trim(), width, '      ', '  '), ...wrap(text, width, pad)];
}

/** The help of one command, wrapped to `width`. */
export function commandHelp(cmd: Command, width = helpWidth()): string {
  const col = Math.min(30, Math.floor(width / 3));
  const out: string[] = [...wrap(`wan-vae ${cmd.name}: ${cmd.summary}`, width), '', 'usage:'];
  for (const u of cmd.usage) out.push(...wrap(u, width, '        ', `  wan-vae ${cmd.name} `.trimEnd() + ' '));
  if (cmd.about) out.push('', ...wrap(cmd.about, width));
  const common = cmd.flags.filter((f) => f.group === 'common');
  const advanced = [...cmd.flags.filter((f) => f.group === 'advanced'), HELP];
  if (common.length) out.push('', 'options:', ...common.flatMap((f) => flagRows(f, width, col)));
  out.push('', ...wrap('advanced (docs/cli-reference.md explains each option at length):', width), ...advanced.flatMap((f) => flagRows(f, width, col)));
  return out.join('\n');
}

/** The overview: what the tool does, the commands, where to read more. */
export function overviewHelp(commands: readonly Command[], version: string, width = helpWidth()): string {
  const col = Math.max(...commands.map((c) => c.name.length)) + 4;
  return [
    ...wrap(`wan-vae ${version}: decode Wan2.1 / Wan2.2 video VAE latents to video on WebGPU (Dawn in Node), in a GPU memory budget you choose.`, width),
    '',
    ...['wan-vae COMMAND [options]', 'wan-vae help COMMAND   (or wan-vae COMMAND --help)', 'wan-vae --version'].flatMap((u, i) => wrap(u, width, '         ', i ? '       ' : 'usage: ')),
    '',
    'commands:',
    ...commands.flatMap((c) => wrap(c.summary, width, ' '.repeat(col), `  ${c.name}`.padEnd(col))),
    '',
    ...wrap(
      "Start with `wan-vae decode`: it decodes the trained default model's sample to out/video.gif and prints its PSNR against the source clip. docs/cli.md and docs/cli-reference.md describe every command and option.",
      width,
    ),
  ].join('\n');
}

/** The short usage printed under "missing command". */
export function shortUsage(commands: readonly Command[]): string {
  return `usage: wan-vae ${commands.map((c) => c.name).join('|')} [options]   (wan-vae --help for more)`;
}
