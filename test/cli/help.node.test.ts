// The CLI's conventions as a new user meets them (issue 28): `wan-vae` alone, `help`, `--help` / `-h` on
// every command, `--version`, "did you mean" for mistyped flags, values and commands, help lines of at
// most 100 characters at any terminal width, common options before the advanced ones and no internals
// (kernel names, H200 timings, source paths) in help; `plan` refusing a missing size or length and saying
// which adapter it assumed. In-process (main()), no GPU: each case ends before a decode.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closest, commandHelp, overviewHelp, wrap } from '../../src/node/cli-args';
import { COMMANDS, main, version } from '../../src/node/cli';
import pkg from '../../package.json';

/** main(argv): exit code, stdout lines and stderr lines. */
async function run(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [],
    err: string[] = [];
  const l = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(...a.join(' ').split('\n')));
  const e = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(...a.join(' ').split('\n')));
  try {
    return { code: await main(argv), out, err };
  } finally {
    l.mockRestore();
    e.mockRestore();
  }
}

// kernel names, GPU-specific timings, source paths (naming the H200 as a --adapter choice is fine)
const INTERNALS = /conv3d|\bmma\b|subgroup|TFLOP|schema\.ts|src\/|U weights|dispatch|\d+(\.\d+)? s\b/;
afterEach(() => vi.restoreAllMocks());

describe('wan-vae help', () => {
  it('`wan-vae` alone: "missing command" and a short usage listing every command, exit 2', async () => {
    const r = await run();
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err[0]).toBe('wan-vae: missing command');
    for (const c of ['decode', 'plan', 'samples']) expect(r.err[1]).toContain(c);
    expect(r.err).toHaveLength(2);
  });

  it.each([['--help'], ['-h'], ['help']])('`wan-vae %s`: the overview with every command, exit 0', async (flag) => {
    const r = await run(flag);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    for (const c of COMMANDS) expect(r.out.some((l) => l.startsWith(`  ${c.name} `))).toBe(true);
  });

  it('`--version` prints the package version, exit 0', async () => {
    const r = await run('--version');
    expect(r).toMatchObject({ code: 0, out: [`wan-vae ${pkg.version}`], err: [] });
    expect(version()).toBe(pkg.version);
  });

  for (const c of ['decode', 'plan', 'samples'])
    it(`\`${c} --help\`, \`${c} -h\`, \`help ${c}\`: the same help, exit 0, even after other flags`, async () => {
      const a = await run(c, '--help');
      expect(a.code).toBe(0);
      expect(a.err).toEqual([]);
      expect(a.out[0]).toMatch(new RegExp(`^wan-vae ${c}: `));
      expect((await run(c, '-h')).out).toEqual(a.out);
      expect((await run('help', c)).out).toEqual(a.out);
      expect((await run(c, '--frobnicate', 'x', '-h')).out).toEqual(a.out); // help wins over bad flags
    });

  it('every help line is at most 100 characters at widths 50-200, and fills the width given', () => {
    for (const width of [50, 72, 80, 100, 120, 200]) {
      const w = Math.min(width, 100);
      const texts = [overviewHelp(COMMANDS, '0.0.0', w), ...COMMANDS.map((c) => commandHelp(c, w))];
      for (const t of texts) for (const line of t.split('\n')) expect(line.length, `width ${width}: ${line}`).toBeLessThanOrEqual(w);
    }
    const wide = commandHelp(
      COMMANDS.find((c) => c.name === 'decode')!,
      100,
    ).split('\n');
    expect(Math.max(...wide.map((l) => l.length))).toBeGreaterThan(90);
  });

  it('common options come first, the rest under "advanced", with no internals in the help', () => {
    for (const c of COMMANDS) {
      const t = commandHelp(c, 100);
      expect(t, c.name).not.toMatch(INTERNALS);
      const adv = t.indexOf('\nadvanced');
      expect(adv, c.name).toBeGreaterThan(0);
      for (const f of c.flags) {
        const at = t.indexOf(`  --${f.name}`);
        expect(at, `--${f.name} in ${c.name} --help`).toBeGreaterThan(0);
        expect(at < adv, `--${f.name} of ${c.name}: ${f.group}`).toBe(f.group === 'common');
      }
    }
    expect(overviewHelp(COMMANDS, '0.0.0', 100)).not.toMatch(INTERNALS);
    const decode = commandHelp(
      COMMANDS.find((c) => c.name === 'decode')!,
      100,
    );
    for (const f of ['--weights', '--latents', '--out', '--sample', '--precision', '--budget']) expect(decode.indexOf(`  ${f} `)).toBeLessThan(decode.indexOf('\nadvanced'));
  });

  it('wrap keeps words whole and cuts only a word longer than the line', () => {
    expect(wrap('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrap('x'.repeat(12), 5, '  ', '')).toEqual(['xxxxx', '  xxx', '  xxx', '  x']);
    for (const l of wrap('x'.repeat(12), 5, '  ', '')) expect(l.length).toBeLessThanOrEqual(5);
  });
});

describe('did you mean', () => {
  it.each([
    [['decode', '--precison', 'f16'], /^wan-vae: bad-input: unknown option --precison \(did you mean --precision\?\)$/],
    [['decode', '--tile-ordr', 'auto'], /unknown option --tile-ordr \(did you mean --tile-order\?\)$/],
    [['decode', '--precision', 'f61'], /^wan-vae: bad-input: --precision must be one of f32\|f16\|auto, got 'f61' \(did you mean 'f16'\?\)$/],
    [['decode', '--tile-order', 'framemajor'], /got 'framemajor' \(did you mean 'frame-major'\?\)$/],
    [['plan', '--vae', '2.3', '--size', '64x64', '--frames', '5'], /--vae must be one of 2\.1\|2\.2, got '2\.3' \(did you mean '2\.1'\?\)$/],
    [['decod'], /^wan-vae: bad-input: unknown command 'decod' \(did you mean 'decode'\?\)$/],
    [['help', 'plna'], /unknown command 'plna' \(did you mean 'plan'\?\)$/],
    [['decode', '--zzzz'], /^wan-vae: bad-input: unknown option --zzzz \(wan-vae decode --help lists the options\)$/],
    [['decode', 'video.gif'], /^wan-vae: bad-input: unexpected argument 'video\.gif'/],
    [['decode', '--json=yes'], /--json takes no value, got 'yes'/],
    [['decode', '--out', 'a.gif', '--out', 'b.gif'], /--out is given twice/],
    [['samples', '--jsn'], /unknown option --jsn \(did you mean --json\?\)/],
    [['--verison'], /unknown option --verison before the command/],
  ])('%j', async (argv, re) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.err, r.err.join('\n')).toHaveLength(1);
    expect(r.err[0]).toMatch(re);
  });

  it('suggests only near misses', () => {
    expect(closest('precison', ['precision', 'tile'])).toBe('precision');
    expect(closest('xyz', ['precision', 'tile'])).toBeUndefined();
    expect(closest('on', ['off'])).toBeUndefined();
  });

  it('--flag=value works as --flag value', async () => {
    const r = await run('plan', '--vae=2.1', '--size=64x64', '--frames=5', '--adapter=default', '--json');
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(JSON.parse(r.out.at(-1)!)).toMatchObject({ vae: '2.1', video: { frames: 5, height: 64, width: 64 } });
  });
});

describe('wan-vae plan: sizes required, the adapter said, every weight owner named', () => {
  it.each([
    [['--vae', '2.1', '--size', '480x832'], /^wan-vae: bad-input: plan needs --frames N/],
    [['--vae', '2.1', '--frames', '81'], /^wan-vae: bad-input: plan needs --size HxW/],
  ])('%j is refused', async (argv, re) => {
    const r = await run('plan', ...argv);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(re);
  });

  it('--adapter default says what it assumes; weights by owner sum to the weights, the Winograd copy named', async () => {
    const r = await run('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'default');
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(r.out[1]).toMatch(/^ {2}assumed: WebGPU's default limits \(bindings of 128 MiB/);
    expect(r.out.join('\n')).toMatch(/f32 3x3 weights of the \d+ conv layers run as Winograd \(--conv\) with U made per call/);
    // another adapter: the H200-fitted time model is not shown as an estimate
    expect(r.out.join('\n')).toMatch(/time: not estimated \(the time model is fitted to decodes on an H200/);
    const j = JSON.parse((await run('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'default', '--json')).out.at(-1)!) as {
      breakdown: { weights: number };
      weightOwners: { owner: string; bytes: number }[];
      adapter: { assumed: string };
      expectedSecondsCalibrated: boolean;
    };
    expect(j.weightOwners.reduce((a, o) => a + o.bytes, 0)).toBe(j.breakdown.weights);
    expect(j.weightOwners.map((o) => o.owner)).toEqual(['conv', 'winograd', 'other']);
    expect(j.expectedSecondsCalibrated).toBe(false);
    const direct = JSON.parse((await run('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'default', '--conv', 'direct', '--json')).out.at(-1)!) as typeof j;
    expect(direct.weightOwners.map((o) => o.owner)).toEqual(['conv', 'other']);
  });

  it('--adapter h200: whole frames for Wan2.1 480x832x81 f32 (4598 MiB: U made per conv call since 2026-12-02; 5066 MiB with U held, 5405 MiB as the H200 decode measured before), a time for f32 and f16', async () => {
    const f32 = JSON.parse((await run('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'h200', '--json')).out.at(-1)!) as {
      tiles: number;
      plannedPeakGpuBytes: number;
      expectedSecondsCalibrated: boolean;
    };
    expect(f32.tiles).toBe(0);
    expect(Math.round(f32.plannedPeakGpuBytes / 2 ** 20)).toBe(4598);
    expect(f32.expectedSecondsCalibrated).toBe(true);
    const f16 = await run('plan', '--vae', '2.1', '--size', '480x832', '--frames', '81', '--adapter', 'h200', '--precision', 'f16');
    expect(f16.out.join('\n')).toMatch(/expected decode time on an H200 ~\d+\.\d s \(compute [\d.]+ s on the tensor-core conv/);
  });
});
