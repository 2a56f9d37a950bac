// The options schema (src/options/schema.ts) against every surface that takes decode options: the CLI
// (flags, parsing, the error a user sees from `wan-vae plan|decode`), the API (WanVaeDecoder.plan, the
// path the worker's plan() and decode() take; the worker itself: test/options/worker-options.test.ts)
// and the demo's recipe parser (JSON file and #recipe= link). For each option: every value the schema
// allows is accepted and comes back as that value; a wrong value gives the schema's one-line error,
// named the surface's way. No GPU: the CLI's option check runs before anything is loaded.
//
// How it fails a wrong implementation: a surface that restates the values (a CLI or demo list missing a
// schema value, or taking one the schema does not) fails the acceptance or the rejection case; an option
// added to the schema but not wired into a surface (a flag the CLI does not take, an API field the
// checks skip, a recipe field dropped) fails here, because each case is generated from the schema.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { WanVaeDecoder } from '../../src/decoder';
import { syntheticWeights } from '../../src/model/synthetic';
import { allowedValues, checkDecodeOptions, problem } from '../../src/options/check';
import { OPTION_KEYS, OPTIONS, spec, WAN22_CACHE_OFF, type OptionKey } from '../../src/options/schema';
import { cliValue, optionFlags, optionKeys, optionReference, parseArgs, tensorCoreNote } from '../../src/node/cli-options';
import { main } from '../../src/node/cli';
import { DEFAULT_OPTIONS } from '../../src/demo/options';
import { OPTIONS_FORM_MARK, optionsFormHtml } from '../../src/demo/options-form';
import { parseRecipe, recipeFromHash, recipeToHash, type Recipe } from '../../src/demo/recipe';

/** A value no option takes. */
const BAD = 'bogus-value';

/** Valid API values of each API option (typed values: a tile object, statistics, numbers). */
function apiValues(key: OptionKey): unknown[] {
  const s = spec(key);
  if (key === 'tile')
    return [
      { th: 4, tw: 4, mode: 'exact', order: 'tile-major' },
      { th: 2, tw: 3, mode: 'blend', order: 'frame-major', halo: 1 },
    ];
  if (key === 'latentStats') return ['official', 'none', { mean: new Float32Array(16), std: new Float32Array(16).fill(1) }];
  if (key === 'injectOom') return [0, 3, '2+'];
  if (s.kind === 'custom') return [...s.examples];
  if (s.kind === 'bool') return [true, false];
  if (s.kind === 'int' || s.kind === 'number') return [s.min + 1, s.min + 7];
  return [...allowedValues(key, 'api')!];
}

/** The CLI's text values of an option with a flag. */
function cliValues(key: OptionKey): string[] {
  const s = spec(key);
  if (s.kind === 'custom') return [...s.examples];
  if (s.kind === 'int' || s.kind === 'number') return [String(s.min + 1), String(s.min + 7)];
  return [...allowedValues(key, 'cli')!];
}

/** A wrong CLI value: free-form options (latent stats: any file name) have only the empty one. */
const cliBad = (key: OptionKey) => (key === 'latentStats' ? '' : BAD);

describe('options schema', () => {
  it('every option reaches a surface, and its default is one of its own values', () => {
    for (const key of OPTION_KEYS) {
      const s = spec(key);
      // a record no surface takes is dead
      expect(s.api !== false || s.flag !== null || s.demo !== null, key).toBe(true);
      expect(s.help.length, key).toBeGreaterThan(10);
      expect(s.help.includes('\n'), key).toBe(false);
      if (s.kind === 'choice' && s.default !== null) expect(s.values, key).toContain(s.default);
      if (s.flag) expect(s.commands.length, key).toBeGreaterThan(0);
    }
  });

  it('the Wan2.2 cache-off refusal is the one message (planner, decoder)', () => {
    const dec = new WanVaeDecoder(syntheticWeights({ version: '2.2', dim: 4, zDim: 48, seed: 1 }, { values: false }));
    expect(() => dec.plan([48, 2, 2, 2], { cache: 'off' })).toThrow(WAN22_CACHE_OFF);
  });
});

describe('the CLI takes every option with a flag, as the schema says', () => {
  const logs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    logs.length = 0;
  });
  /** `wan-vae ...args` in process: the exit code and the lines written to stderr. */
  async function run(args: string[]): Promise<{ code: number; err: string }> {
    vi.spyOn(console, 'error').mockImplementation((...m: unknown[]) => void logs.push(m.join(' ')));
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const code = await main(args);
    return { code, err: logs.join('\n') };
  }

  for (const command of ['decode', 'plan'] as const)
    for (const key of optionKeys(command)) {
      const flag = spec(key).flag!;
      it(`${command} --${flag}: each schema value parses to itself; a wrong one is the schema's error`, async () => {
        const flags = optionFlags(command);
        for (const v of cliValues(key)) {
          const got = cliValue(parseArgs([`--${flag}`, v], flags, []), key);
          const s = spec(key);
          expect(got, `--${flag} ${v}`).toEqual(s.kind === 'bool' ? v === 'on' : s.kind === 'int' || s.kind === 'number' ? Number(v) : v);
        }
        // end to end: the user sees `wan-vae: bad-input: --flag <the schema's text>` and exit code 2
        const bad = cliBad(key);
        const base = command === 'plan' ? ['plan', '--vae', '2.1', '--size', '64x64', '--frames', '1'] : ['decode', '--sample', 'generated'];
        const r = await run([...base, `--${flag}`, bad]);
        expect(r.code).toBe(2);
        expect(r.err).toBe(`wan-vae: bad-input: --${flag} ${problem(key, bad, 'cli')}`);
        expect(problem(key, bad, 'cli')).toMatch(/^must be .*, got ''|^must be .*, got 'bogus-value'$/);
      });
    }

  it('COMMAND --help lists every flag of the command with its values; docs/cli-reference.md has the schema help', async () => {
    vi.spyOn(console, 'log').mockImplementation((...m: unknown[]) => void logs.push(m.join(' ')));
    for (const command of ['decode', 'plan'] as const) {
      logs.length = 0;
      expect(await main([command, '--help'])).toBe(0);
      const help = logs.join('\n');
      for (const key of optionKeys(command)) {
        expect(help, `${command} --help`).toContain(`--${spec(key).flag} `);
        for (const v of allowedValues(key, 'cli') ?? []) expect(help, `${command} --help: --${spec(key).flag} ${v}`).toContain(v);
      }
    }
    // the schema's long text (internals, measurements) is the reference page's, not the terminal's
    for (const key of OPTION_KEYS) if (spec(key).flag) expect(optionReference()).toContain(spec(key).help);
  });
});

describe('the API (and the worker, which decodes through it) takes every API option, as the schema says', () => {
  const dec = new WanVaeDecoder(syntheticWeights({ version: '2.1', dim: 4, zDim: 16, seed: 1 }, { values: false }));
  const tile = { th: 4, tw: 4, mode: 'exact', order: 'tile-major' };
  /** DecodeOptions holding `v` for `key`: a field, or for api 'tile.<field>' a field of the tile */
  const optsWith = (key: OptionKey, v: unknown): Record<string, unknown> => {
    const api = OPTIONS[key].api;
    return typeof api === 'string' ? { tile: { ...tile, [api.slice('tile.'.length)]: v } } : { [key]: v };
  };
  for (const key of OPTION_KEYS.filter((k) => OPTIONS[k].api !== false)) {
    it(`${key}: each schema value is accepted; a wrong one is the schema's error`, () => {
      for (const v of apiValues(key)) expect(() => checkDecodeOptions(optsWith(key, v)), `${key}: ${JSON.stringify(v)}`).not.toThrow();
      const api = OPTIONS[key].api;
      const bad = key === 'tile' ? { ...tile, th: 0 } : BAD;
      // the text: the option's own, or the tile's with the field named
      const p = typeof api === 'string' ? `${problem('tile', optsWith(key, bad).tile, 'api')}` : problem(key, bad, 'api');
      if (typeof api === 'string') expect(p).toBe(`.${api.slice('tile.'.length)} ${problem(key, bad, 'api')}`);
      expect(p).not.toBe('');
      // through WanVaeDecoder.plan (pure: no GPU): what the worker's plan() and decode() run
      let err: unknown;
      try {
        dec.plan([16, 1, 8, 8], optsWith(key, bad) as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DecoderError);
      expect((err as DecoderError).code).toBe('bad-input');
      expect((err as DecoderError).message).toBe(`decode option '${typeof api === 'string' ? 'tile' : key}' ${p}`);
    });
  }
});

describe('the demo form has a control for every demo option value', () => {
  // the rows are generated from the schema (src/demo/options-form.ts; main.ts puts them into the form of
  // index.html): a control written by hand into index.html would stand twice beside its generated twin
  // (two radio groups of one name); a schema value without its radio / option could never be chosen; a
  // row whose checked value is not the demo default would make the page's first decode differ from
  // DEFAULT_OPTIONS (readOptions reads the form); an option without its explanation slot would show no
  // help (initOptions fills the slots from the schema's help)
  const html = readFileSync(new URL('../../src/demo/index.html', import.meta.url), 'utf8');
  const form = optionsFormHtml();
  it('the form of index.html holds nothing but the pointer to the generated rows', () => {
    const open = '<form class="options" data-testid="options">';
    const inForm = html.slice(html.indexOf(open) + open.length, html.indexOf('</form>'));
    expect(html).toContain(open);
    expect(inForm.trim()).toBe(OPTIONS_FORM_MARK);
  });
  it('each demo option has its control, each of its values an input or option, the demo default checked', () => {
    for (const key of OPTION_KEYS.filter((k) => OPTIONS[k].demo !== null)) {
      expect(form, key).toMatch(new RegExp(`name="${key}"`));
      const values = allowedValues(key, 'demo');
      if (!values) continue;
      // radios carry name and value; a select's options sit inside its own <select name=key> element
      const select = new RegExp(`<select name="${key}"[^>]*>([\\s\\S]*?)</select>`).exec(form)?.[1] ?? '';
      for (const v of values) expect(form.includes(`name="${key}" value="${v}"`) || select.includes(`<option value="${v}"`), `${key}=${v}`).toBe(true);
      const dflt = DEFAULT_OPTIONS[key as keyof typeof DEFAULT_OPTIONS];
      const checked = [...form.matchAll(new RegExp(`name="${key}" value="([^"]*)"[^>]* checked`, 'g')), ...select.matchAll(/<option value="([^"]*)" selected>/g)].map((m) => m[1]);
      expect(checked, `${key}: the checked value`).toEqual([dflt]);
    }
    // one explanation slot per option row (normChunk sits in the norm row and has none of its own)
    const explained = [...form.matchAll(/data-explain="(\w+)"/g)].map((m) => m[1]);
    expect(explained.sort()).toEqual(OPTION_KEYS.filter((k) => OPTIONS[k].demo !== null && k !== 'normChunk').sort());
    // the controls' names as the schema labels them
    for (const key of OPTION_KEYS.filter((k) => OPTIONS[k].demo !== null && k !== 'normChunk')) {
      expect(new RegExp(`id="opt-${key}-name">([^<]*)<`).exec(form)?.[1], key).toBe(OPTIONS[key].demo);
    }
  });
});

describe('the demo recipe takes every demo option, as the schema says', () => {
  const base: Recipe = { app: 'wan-vae-webgpu demo', version: 1, weights: { kind: 'default' }, latents: { kind: 'default' }, options: DEFAULT_OPTIONS, fps: 16 };
  it('values whose String() throws are named, not a TypeError (found by the fuzz test: version {"toString": []})', () => {
    expect(() => parseRecipe({ ...base, version: { toString: [] } })).toThrow(/^recipe version \{"toString":\[\]\} is not supported/);
    const l = parseRecipe({ ...base, latents: { kind: 'inline', name: { toString: [] }, shape: [1, 1, 1, 1], f32: 'AACAPw==' } }).latents;
    expect(l).toMatchObject({ kind: 'inline', name: 'latents' });
    expect(parseRecipe({ ...base, fps: { toString: [] } }).fps).toBe(16); // was a TypeError from Number() (fuzz, URL hash)
    expect(() => parseRecipe({ ...base, options: { ...DEFAULT_OPTIONS, cache: { toString: [] } } })).toThrow(`recipe option 'cache' must be one of on|off, got {"toString":[]}`);
  });
  it('a value with a newline is named on one line (found by the fuzz test: backend "\\nwebgpu")', () => {
    expect(() => parseRecipe({ ...base, options: { ...DEFAULT_OPTIONS, backend: '\nwebgpu' } })).toThrow("recipe option 'backend' must be one of webgpu|cpu, got '\\nwebgpu'");
    expect(() => parseRecipe({ ...base, options: { ...DEFAULT_OPTIONS, cache: 'o\u2028n\t' } })).toThrow("recipe option 'cache' must be one of on|off, got 'o\\u2028n\\t'");
  });
  for (const key of OPTION_KEYS.filter((k) => OPTIONS[k].demo !== null)) {
    it(`${key}: each schema value survives the JSON file and the link; a wrong one is the schema's error`, () => {
      const s = spec(key);
      const values: unknown[] = s.kind === 'int' || s.kind === 'number' ? [s.min + 1, s.min + 7] : [...allowedValues(key, 'demo')!];
      for (const v of values) {
        const r = { ...base, options: { ...DEFAULT_OPTIONS, [key]: v } };
        expect(parseRecipe(JSON.parse(JSON.stringify(r))).options[key as keyof Recipe['options']], `${key}=${String(v)}`).toEqual(v);
        expect(recipeFromHash(recipeToHash(r))!.options[key as keyof Recipe['options']]).toEqual(v);
      }
      // a recipe without the option (an older one) gets the default
      const { [key as keyof Recipe['options']]: _, ...rest } = DEFAULT_OPTIONS;
      expect(parseRecipe({ ...base, options: rest }).options[key as keyof Recipe['options']]).toEqual(DEFAULT_OPTIONS[key as keyof Recipe['options']]);
      expect(() => parseRecipe({ ...base, options: { ...DEFAULT_OPTIONS, [key]: BAD } })).toThrow(`recipe option '${key}' ${problem(key, BAD, 'demo')}`);
    });
  }
});

describe('tensorCoreNote (the CLI hint after an f32 default decode)', () => {
  // a note printed on every decode (or never) fails one of these; so does one printed when the user chose --precision
  it('speaks only for the f32 default on a device with tensor cores', () => {
    expect(tensorCoreNote(undefined, 'f32', true)).toMatch(/--precision f16 runs them/);
    expect(tensorCoreNote('f32', 'f32', true)).toBeUndefined(); // the user chose f32: no advice
    expect(tensorCoreNote(undefined, 'f16', true)).toBeUndefined(); // a budget picked f16 already
    expect(tensorCoreNote(undefined, 'f32', false)).toBeUndefined(); // f16 would run the portable kernels
  });
});
