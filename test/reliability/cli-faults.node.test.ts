// The CLI under faults (issue 13), in a child process: WAN_VAE_INJECT_OOM=N re-plans and writes the same
// video as a decode without the fault (`replans` in --json); WAN_VAE_INJECT_OOM=1+ (nothing fits) stops
// with one `wan-vae: oom: ...` line, exit 2 and no output file; Ctrl-C (SIGINT) during a decode stops it
// with exit 130, `cancelled`, and leaves no output file (not even a temporary one); WAN_VAE_INJECT_VALIDATION=C
// (a misaligned copy in chunk C) stops at chunk C with one `wan-vae: validation: chunk C ...` line, exit 2, no file.
// The CLI is built from the current sources into node_modules/.cache/wan-vae-cli-reliability (not dist/,
// which other tests rebuild) when older than src/ or shaders/ (test/helpers/cli.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNpy } from '../../src/model/npy';
import { writeSafetensors } from '../../src/model/safetensors';
import { syntheticLatents } from '../../src/model/synthetic';
import { buildCli, errLines, runCli } from '../helpers/cli';
import { tinyWeights } from './device';

const dir = mkdtempSync(join(tmpdir(), 'wan-vae-cli-faults-'));
let launcher = '';

const cli = (env: Record<string, string>, ...args: string[]) => runCli(launcher, dir, args, env);

beforeAll(() => {
  launcher = buildCli('reliability');
  const w = tinyWeights();
  writeFileSync(join(dir, 'w.safetensors'), writeSafetensors(Object.fromEntries([...w.map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]))));
  writeFileSync(join(dir, 'small.npy'), writeNpy([16, 2, 4, 4], syntheticLatents(16, 2, 4, 4)));
  writeFileSync(join(dir, 'long.npy'), writeNpy([16, 40, 4, 4], syntheticLatents(16, 40, 4, 4)));
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files = () => readdirSync(dir).filter((f) => !/\.(safetensors|npy)$/.test(f) || f.startsWith('out'));

describe('wan-vae decode under faults', () => {
  it('WAN_VAE_INJECT_OOM=N: re-plans, lists it in --json replans, writes the same video', () => {
    const base = ['decode', '--weights', 'w.safetensors', '--latents', 'small.npy', '--json'];
    const clean = cli({}, ...base, '--out', 'out-clean.npy');
    expect(clean.code, clean.errLines.join(' | ')).toBe(0);
    expect(clean.json?.replans).toEqual([]);
    const r = cli({ WAN_VAE_INJECT_OOM: '5' }, ...base, '--out', 'out-oom.npy');
    expect(r.code, r.errLines.join(' | ')).toBe(0);
    const replans = r.json?.replans as { reason: string; plan: string }[];
    expect(replans.length).toBe(1);
    expect(replans[0]!.reason).toMatch(/injected out-of-memory at GPU buffer allocation 5/);
    expect(Buffer.compare(readFileSync(join(dir, 'out-oom.npy')), readFileSync(join(dir, 'out-clean.npy')))).toBe(0);
  });

  it('WAN_VAE_INJECT_OOM=1+: one oom line with the smallest plan, exit 2, no file', () => {
    const r = cli({ WAN_VAE_INJECT_OOM: '1+' }, 'decode', '--weights', 'w.safetensors', '--latents', 'small.npy', '--out', 'out-none.npy');
    expect(r.code).toBe(2);
    expect(r.errLines.length, r.errLines.join(' | ')).toBe(1);
    expect(r.errLines[0]).toMatch(/^wan-vae: oom: .*smallest found needs \d+ MiB/);
    expect(existsSync(join(dir, 'out-none.npy'))).toBe(false);
  });

  it('WAN_VAE_INJECT_VALIDATION=C: one validation line naming chunk C, exit 2, no output file (not even a temporary one)', () => {
    // chunk 3 of 40: the decode stops there (before this check existed it ran all 40 chunks and printed
    // Dawn's multi-line message without a chunk); the frames of chunks 0-2 written so far are removed
    const r = cli({ WAN_VAE_INJECT_VALIDATION: '3' }, 'decode', '--weights', 'w.safetensors', '--latents', 'long.npy', '--out', 'out-val.npy');
    console.log(`validation at chunk 3: exit ${r.code}; ${r.errLines.join(' | ')}`);
    expect(r.code).toBe(2);
    expect(r.errLines.length, r.errLines.join(' | ')).toBe(1);
    expect(r.errLines[0]).toMatch(/^wan-vae: validation: chunk 3 of 0-39 \(frames 9-12\) at step decoder\.\S+ failed validation; the decode stopped there: /);
    expect(files().filter((f) => f.includes('out-val') || f.includes('partial'))).toEqual([]);
  });

  it('Ctrl-C during a decode: exit 130, cancelled, no output file (not even a temporary one)', async () => {
    const child = spawn(process.execPath, [launcher, 'decode', '--weights', 'w.safetensors', '--latents', 'long.npy', '--out', 'out-cc.npy', '--progress', 'on'], { cwd: dir });
    let stderr = '';
    let sent = false;
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      // the first progress line of the decode phase, whichever frame it names: off a terminal the progress
      // draws at most one line a second, so under load the line of frame 1 may be skipped
      if (!sent && /\[decode\] frame \d+\//.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((ok) => child.on('close', (c) => ok(c)));
    const lines = errLines(stderr);
    console.log(`Ctrl-C: exit ${code}; ${lines.filter((l) => /cancel/.test(l)).join(' | ')}; last progress: ${lines.filter((l) => /frame \d+\//.test(l)).at(-1)}`);
    expect(sent).toBe(true);
    expect(code).toBe(130);
    expect(lines.at(-1)).toMatch(/^wan-vae: cancelled: .*nothing written/);
    expect(files().filter((f) => f.includes('out-cc') || f.includes('partial'))).toEqual([]);
  });
});
