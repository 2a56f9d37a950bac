// `wan-vae shaders --dump DIR` for the default 480x832 plan (Wan2.1, 81 frames, the adapter found: Dawn +
// lavapipe here) and for the portable f16 plan of an H200 (--adapter h200 --precision f16 --tensor-cores
// off: the GPU conv tuning, what Firefox or Deno run there): every file is its kernel's generator output with the constants written in
// (specializedSource of the KernelDef and constants that index.json names, so the dump is the text the
// decoder compiles), no `override` is left, and every file compiles with the kernel's explicit layout on
// Dawn and, through Deno (test/wgpu/compile-dir.ts), on wgpu (naga): a shader only one engine accepts
// fails here. Without the deno devDependency the wgpu half is skipped with the reason (a failure under CI).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { pipelineKey, specializedSource } from '../../src/gpu/kernel';
import { main } from '../../src/node/cli';
import { planFromFlags, planShaders } from '../../src/node/shaders-cli';
import { cannotRun, needGpu } from '../helpers/need';

const dir = mkdtempSync(join(tmpdir(), 'wan-vae-shaders-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = resolve(import.meta.dirname, '../..');
const deno = join(root, 'node_modules', '.bin', 'deno');

interface Entry {
  file: string;
  key: string;
  kernel: string;
  elem: 'f32' | 'f16';
  constants: Record<string, number>;
}

async function run(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [],
    err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    return { code: await main(argv), out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

// the default plan (the adapter found), and the portable f16 plan an H200 runs on wgpu (GPU conv tuning)
describe.each([
  ['default 480x832 plan', [], /^Wan2\.1 480x832, 81 frames/],
  ['480x832 plan for an H200, f16, no tensor cores', ['--adapter', 'h200', '--precision', 'f16', '--tensor-cores', 'off'], /^Wan2\.1 480x832, 81 frames, f16$/],
] as const)('wan-vae shaders --dump (%s)', (_name, flags, planText) => {
  let index: Entry[] = [];
  const out = join(dir, String(flags.length));
  const a: Record<string, string> = {};
  for (let i = 0; i < flags.length; i += 2) a[flags[i]!.slice(2)] = flags[i + 1]!;

  it('writes one file per pipeline key, each its generator output with the constants written in', async (ctx) => {
    await needGpu(ctx);
    const r = await run(['shaders', '--dump', out, '--json', ...flags]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const j = JSON.parse(r.out.at(-1)!) as { plan: string; shaders: { file: string }[] };
    console.log(`wan-vae shaders --dump: ${j.shaders.length} shaders of ${j.plan}`);
    expect(j.plan).toMatch(planText);
    index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as Entry[];
    expect(
      readdirSync(out)
        .filter((f) => f.endsWith('.wgsl'))
        .sort(),
    ).toEqual(index.map((e) => e.file).sort());
    expect(new Set(index.map((e) => e.key)).size).toBe(index.length);
    // the same plan's pipelines, rebuilt from their KernelDefs (the generators)
    const { plan, target } = await planFromFlags(a);
    const built = new Map(planShaders(plan, target).map((s) => [s.key, s]));
    expect([...built.keys()].sort()).toEqual(index.map((e) => e.key).sort());
    for (const e of index) {
      const s = built.get(e.key)!;
      const code = readFileSync(join(out, e.file), 'utf8');
      expect(code, e.file).toBe(specializedSource(s.def, s.overrides, s.elem));
      expect(pipelineKey(s.def, e.constants, e.elem)).toBe(e.key);
      expect(code.replace(/\/\/.*$/gm, ''), e.file).not.toMatch(/^\s*override\s/m);
      for (const [n, v] of Object.entries(e.constants)) expect(code, `${e.file}: ${n}`).toMatch(new RegExp(`^const ${n}: [uif]32 = ${String(v).replace('+', '\\+')}(\\.0)?[uif]?;`, 'm'));
    }
    // the kernels every such plan runs
    for (const k of ['conv3d', 'rms-norm', 'attention', 'output'])
      expect(
        index.some((e) => e.kernel.startsWith(k)),
        k,
      ).toBe(true);
  });

  it('every dumped file compiles on Dawn with its kernel layout', async (ctx) => {
    const gpu = await needGpu(ctx);
    expect(index.length).toBeGreaterThan(0);
    const { plan, target } = await planFromFlags(a);
    const built = new Map(planShaders(plan, target).map((s) => [s.key, s]));
    const failures: string[] = [];
    const t0 = performance.now();
    for (const e of index) {
      const code = readFileSync(join(out, e.file), 'utf8');
      const def = built.get(e.key)!.def;
      gpu.device.pushErrorScope('validation');
      const module = gpu.device.createShaderModule({ label: e.file, code });
      const info = await module.getCompilationInfo();
      const errors = info.messages.filter((m) => m.type === 'error').map((m) => m.message);
      let failure = errors.join('; ');
      if (!failure)
        await gpu.device
          .createComputePipelineAsync({ label: e.file, layout: gpu.cache.pipelineLayout(def), compute: { module, entryPoint: 'main' } })
          .catch((x: unknown) => void (failure = String(x)));
      const scoped = await gpu.device.popErrorScope();
      if (failure || scoped) failures.push(`${e.file}: ${failure || scoped!.message}`);
    }
    console.log(`Dawn (${gpu.info.description}): ${index.length - failures.length} of ${index.length} compiled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(failures).toEqual([]);
  });

  it('every dumped file compiles on wgpu (Deno, naga)', (ctx) => {
    expect(index.length).toBeGreaterThan(0);
    if (!existsSync(deno)) cannotRun(ctx, 'there is no node_modules/.bin/deno (npm install: deno is a devDependency)');
    const r = spawnSync(deno, ['run', '--unstable-webgpu', '--allow-read', 'test/wgpu/compile-dir.ts', out], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      timeout: 300_000,
      maxBuffer: 16 * 2 ** 20,
    });
    const last = (r.stdout ?? '').trim().split('\n').at(-1) ?? '';
    expect(last.startsWith('{'), `deno ended (${r.status ?? r.signal}) without its summary:\n${(r.stdout ?? '').slice(-2000)}\n${(r.stderr ?? '').slice(-3000)}`).toBe(true);
    const j = JSON.parse(last) as { adapter: string; compiled: number; failed: { file: string; error: string }[]; seconds: number };
    console.log(`wgpu (Deno, ${j.adapter}): ${j.compiled} of ${index.length} compiled in ${j.seconds.toFixed(1)} s`);
    expect(j.failed).toEqual([]);
    expect(j.compiled).toBe(index.length);
    expect(r.status).toBe(0);
  });
});
