// The code blocks of README.md, docs/embedding.md and docs/cli.md (readme-blocks.ts DOC_FILES) run as
// written (issue 28), so an example cannot drift from the API:
// - every `wan-vae` command of its shell blocks runs through the CLI built from the current sources, in
//   a temporary folder, and must exit 0 (--json: its last line is JSON). Inputs the line names that a
//   reader brings (--weights, --latents files) are stand-ins of the same kind and name: generated
//   weights of the line's Wan version at width 4, latents [z, 2, 4, 4] in the format its extension
//   says. Sizes are kept small where the line is not the default command: `--sample NAME` other than
//   the default decodes rocket-64 (5 frames of 64x64), `--synthetic ... --latent-size` decodes 1x2x2;
//   outputs through ffmpeg (.mp4, .webm, .webp) are skipped where ffmpeg is not installed.
// - every synopsis block (`wan-vae COMMAND [--flag ...]`) names only commands and flags the CLI has;
// - docs/cli-reference.md's option list is the schema's (optionReference()).
// The Node and page blocks run against the packed package in test/consumers/consumers.node.test.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNpy } from '../../src/model/npy';
import { writeSafetensors } from '../../src/model/safetensors';
import { defaultSample } from '../../src/model/samples';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { COMMANDS } from '../../src/node/cli';
import { optionReference } from '../../src/node/cli-options';
import { buildCli, repoRoot, runCli } from '../helpers/cli';
import { needGpu } from '../helpers/need';
import { docBlocks, shellCommands, synopsisFlags, where, type Block } from './readme-blocks';

const blocks = docBlocks();
const cliLines = blocks.filter((b) => b.kind === 'cli').flatMap((b) => shellCommands(b.code).map((c) => ({ block: b, ...c })));
const runnable = cliLines.filter((c) => c.args !== null);
const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let dir = '';
let launcher = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wan-vae-readme-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Stand-ins for the files a line reads that a reader brings, named as the line names them. */
function standIns(args: string[]): void {
  const val = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const weights = val('--weights');
  const v22 = !!weights && /2\.2|2_2/.test(weights);
  const spec = v22 ? ({ version: '2.2', dim: 4, zDim: 48, seed: 3 } as const) : ({ version: '2.1', dim: 4, zDim: 16, seed: 3 } as const);
  if (weights && !existsSync(join(dir, weights))) {
    const w = syntheticWeights(spec);
    writeFileSync(join(dir, weights), writeSafetensors(Object.fromEntries([...w.map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]))));
  }
  const latents = val('--latents');
  if (latents && !existsSync(join(dir, latents))) {
    const shape = [spec.zDim, 2, 4, 4];
    const data = syntheticLatents(spec.zDim, 2, 4, 4);
    const bytes = latents.endsWith('.npy')
      ? writeNpy(shape, data)
      : latents.endsWith('.latent')
        ? writeSafetensors({ latent_tensor: { shape: [1, ...shape], data } }) // ComfyUI SaveLatent
        : writeSafetensors({ latents: { shape, data } });
    writeFileSync(join(dir, latents), bytes);
  }
}

/** The line's arguments with the sizes kept small (see the header), and why they changed. */
function small(args: string[]): { args: string[]; changed: string[] } {
  const out = [...args];
  const changed: string[] = [];
  const i = out.indexOf('--sample');
  if (i >= 0 && out[i + 1] && out[i + 1] !== defaultSample().name && out[i + 1] !== 'generated' && out[i + 1] !== 'rocket-64') {
    changed.push(`--sample ${out[i + 1]} -> rocket-64`);
    out[i + 1] = 'rocket-64';
  }
  const s = out.indexOf('--latent-size');
  if (s >= 0 && out[s + 1] && out[s + 1] !== '1x2x2') {
    changed.push(`--latent-size ${out[s + 1]} -> 1x2x2`);
    out[s + 1] = '1x2x2';
  }
  return { args: out, changed };
}

describe('README.md, docs/embedding.md, docs/cli.md code blocks', () => {
  it('has CLI lines, a Node block and a page block to run, and every skipped block says why', () => {
    const count = (k: Block['kind']) => blocks.filter((b) => b.kind === k).length;
    console.log(`doc blocks: ${blocks.map((b) => `${b.file}:${b.line}:${b.lang || '-'}:${b.kind}`).join(' ')}`);
    expect(runnable.length, 'wan-vae command lines').toBeGreaterThan(0);
    expect(count('node'), 'Node blocks').toBeGreaterThan(0);
    expect(count('page'), 'page blocks').toBeGreaterThan(0);
    for (const b of blocks.filter((x) => x.kind === 'skip')) expect(b.note, `${where(b)}: a skipped block says why`).not.toBe('');
    const others = cliLines.filter((c) => c.args === null).map((c) => c.text);
    console.log(`README shell commands not run here (setup and npm): ${JSON.stringify([...new Set(others)])}`);
  });

  it('every synopsis names only commands and flags the CLI has', () => {
    const problems: string[] = [];
    for (const b of blocks.filter((x) => x.kind === 'synopsis'))
      for (const s of synopsisFlags(b.code)) {
        const cmd = COMMANDS.find((c) => c.name === s.command);
        if (!cmd) {
          problems.push(`${where(b)}: no command '${s.command}' (${s.line.trim()})`);
          continue;
        }
        const known = new Set([...cmd.flags.map((f) => f.name), 'help']);
        for (const f of s.flags) if (!known.has(f)) problems.push(`${where(b)}: wan-vae ${s.command} has no --${f}`);
      }
    expect(problems).toEqual([]);
  });

  describe('every wan-vae command line runs', () => {
    it.for(runnable.map((c) => [`${c.block.file}:${c.block.line} ${c.text}`, c] as const))('%s', { timeout: 600_000 }, async ([, c], ctx) => {
      const { args, changed } = small(c.args!);
      const out = args[args.indexOf('--out') + 1];
      if (args.includes('--out') && out && /\.(mp4|webm|webp)$/.test(out) && !hasFfmpeg) {
        console.log(`${c.text}: skipped here, it writes ${out} through ffmpeg, which this machine lacks`);
        return;
      }
      const decodes = args[0] === 'decode' && !args.includes('--help') && !args.includes('-h');
      if (decodes) await needGpu(ctx); // the decode needs Dawn's adapter (skipped without one; fails under CI)
      launcher ||= buildCli('docs');
      standIns(args);
      const r = runCli(launcher, dir, args, { WAN_MODELS_DIR: join(repoRoot, 'models') }); // the test build lives outside the package
      if (changed.length) console.log(`${c.text}: run with ${changed.join(', ')}`);
      expect(r.code, `${c.text} (run as ${args.join(' ')}) exited ${r.code}: ${r.errLines.join(' | ')}`).toBe(0);
      if (args.includes('--json')) expect(r.json, `${c.text}: the last line is JSON`).not.toBeNull();
    });
  });
});

describe('docs/cli-reference.md', () => {
  it("lists every option with the schema's text (optionReference())", () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'cli-reference.md'), 'utf8');
    const m = /<!-- options:begin[^>]*-->\n([\s\S]*?)\n<!-- options:end -->/.exec(doc);
    expect(m, 'docs/cli-reference.md has the options:begin / options:end markers').not.toBeNull();
    expect(m![1], 'regenerate the list: npx tsx -e "import(\'./src/node/cli-options.ts\').then((m) => console.log(m.optionReference()))"').toBe(optionReference());
  });

  it('is where the help sends a reader, and exists with docs/cli.md beside it', () => {
    expect(existsSync(join(repoRoot, 'docs', 'cli.md')), 'docs/cli.md (the commands page the reference links)').toBe(true);
    expect(readFileSync(join(repoRoot, 'docs', 'cli-reference.md'), 'utf8')).toContain('](cli.md)');
  });
});
