// `wan-vae shaders --dump DIR [plan flags]`: the WGSL of every pipeline a decode plan's steps compile, as
// the GPU receives it (gpu/kernel.ts specializedSource: the kernel's generator output with its constants
// written in), one file per pipeline key, named by kernel, storage type and constants, plus index.json
// (file, pipeline key, kernel, storage type, constants). The plan is the one `wan-vae plan` makes for the
// same flags (cli-plan.ts planFor; default: Wan2.1, 480x832, 81 frames, the adapter found here), and the
// kernels of each step are the step-kind table's (plan/step-kinds.ts, what the decoder's StepEncoder
// compiles) with this adapter's conv tuning and tensor-core setting. The weight-preparation kernels that
// run once at start-up are not part of a plan's steps (test/kernels/compile.test.ts compiles them).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requestDecoderDevice } from '../gpu/device';
import { DecoderError } from '../gpu/errors';
import { bakedOverrides, pipelineKey, specializedSource, type AnyKernelDef, type Elem } from '../gpu/kernel';
import { conv3dTuning, conv3dTuningFor } from '../kernels/conv3d';
import { inferConfig } from '../model/config';
import { OFFICIAL, syntheticWeights } from '../model/synthetic';
import type { Plan } from '../plan/planner';
import { planStepKernels } from '../runtime/exec/plan-kernels';
import type { Command } from './cli-args';
import { checkCliOptions, choice, cliValue, optionFlagSpecs, type Args } from './cli-options';
import { ADAPTERS, planAdapter, planFor } from './cli-plan';

/** One pipeline of a plan: its kernel, constants and the WGSL it compiles. */
export interface PlanShader {
  /** `<kernel>.<elem>.<NAME><value>-...wgsl` (a `.2`, `.3` ... before `.wgsl` where per-shape kernels share a name) */
  file: string;
  key: string;
  /** the first key of the plan with the same WGSL and bindings (itself if none): PipelineCache compiles those once */
  compiledAs: string;
  def: AnyKernelDef;
  overrides: Record<string, number>;
  elem: Elem;
  code: string;
}

/** What the decoder's kernels depend on beyond the plan: the adapter's conv tuning, invocation limit, tensor cores. */
export interface ShaderTarget {
  tuning: Record<string, number>;
  maxInvocations: number;
  mma: { subgroupSize: number } | null;
}

/**
 * Every distinct pipeline of `p`'s steps, in step order (the order GpuDecoder asks for them: the first
 * chunk's program first): what it builds for this plan on `target`. Bound buffers are not looked at
 * (stand-ins); two steps with one pipeline key give one shader, and keys whose WGSL and bindings are the
 * same text name the first of them in `compiledAs` (one compile: gpu/kernel.ts PipelineCache).
 */
export function planShaders(p: Plan, target: ShaderTarget): PlanShader[] {
  const elem = p.opts.precision;
  const byKey = new Map<string, PlanShader>();
  const bySource = new Map<string, string>(); // bindings + code -> first key
  const names = new Map<string, string>(); // file -> code
  const mma = p.opts.tensorCores && elem === 'f16' ? target.mma : null;
  for (const { kernels } of planStepKernels(p, { ...target, mma }))
    for (const k of kernels) {
      const key = pipelineKey(k.def, k.overrides, elem);
      if (byKey.has(key)) continue;
      const code = specializedSource(k.def, k.overrides, elem);
      const ov = bakedOverrides(k.def, k.overrides);
      const source = `${k.def.bindings.map((b) => b.access).join(',')}\n${code}`;
      if (!bySource.has(source)) bySource.set(source, key);
      const base = `${k.def.id}.${elem}${Object.keys(ov).length ? '.' : ''}${Object.keys(ov)
        .sort()
        .map((n) => `${n}${ov[n]}`)
        .join('-')}`;
      let file = `${base}.wgsl`;
      for (let i = 2; names.has(file) && names.get(file) !== code; i++) file = `${base}.${i}.wgsl`;
      names.set(file, code);
      byKey.set(key, { file, key, compiledAs: bySource.get(source)!, def: k.def, overrides: k.overrides, elem, code });
    }
  return [...byKey.values()];
}

/** Writes `shaders` into `dir` (created) with index.json; returns the files written. */
export function dumpShaders(dir: string, shaders: readonly PlanShader[]): string[] {
  try {
    mkdirSync(dir, { recursive: true });
    for (const s of shaders) writeFileSync(join(dir, s.file), s.code);
    const index = shaders.map((s) => ({
      file: s.file,
      key: s.key,
      kernel: s.def.id,
      elem: s.elem,
      constants: bakedOverrides(s.def, s.overrides),
      ...(s.compiledAs !== s.key ? { compiledAs: s.compiledAs } : {}),
    }));
    writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 1)}\n`);
  } catch (e) {
    throw new DecoderError('bad-input', `--dump ${dir}: cannot write there: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return shaders.map((s) => join(dir, s.file));
}

/** The plan the flags describe (as `wan-vae plan`; defaults Wan2.1 480x832x81) and the adapter's kernel target. */
export async function planFromFlags(a: Args): Promise<{ plan: Plan; target: ShaderTarget; adapter: string }> {
  checkCliOptions(a, 'plan');
  const vae = choice(a, 'vae', ['2.1', '2.2'] as const, '2.1');
  const cfg = inferConfig(syntheticWeights(OFFICIAL[vae], { values: false }));
  const size = /^(\d+)x(\d+)$/.exec(String(a.size ?? '480x832'));
  if (!size) throw new DecoderError('bad-input', `--size must be HxW in pixels, e.g. 480x832, got '${String(a.size)}'`);
  const H = Number(size[1]),
    W = Number(size[2]);
  if (!H || !W || H % cfg.scale || W % cfg.scale) throw new DecoderError('bad-input', `--size ${H}x${W}: Wan${vae} needs positive multiples of ${cfg.scale}`);
  const frames = Number(a.frames ?? 81);
  if (!/^\d+$/.test(String(a.frames ?? 81)) || frames < 1) throw new DecoderError('bad-input', `--frames must be a whole number of video frames, got '${String(a.frames)}'`);
  const cache = cliValue(a, 'cache');
  if (cache === 'on' && (frames - 1) % 4) throw new DecoderError('bad-input', `--frames ${frames}: with the cache a video has 1 + 4k frames (81, 121, ...)`);
  const T = cache === 'on' ? (frames - 1) / 4 + 1 : frames;
  const which = choice(a, 'adapter', ADAPTERS, 'found');
  const flags = typeof a['dawn-flags'] === 'string' ? [a['dawn-flags']] : [];
  const view = await planAdapter(a, which, flags);
  const { fit } = planFor(cfg, { frames: T, h: H / cfg.scale, w: W / cfg.scale }, a, view);
  // an assumed adapter: the GPU conv tuning, subgroups of 32; the H200's Dawn device allows 1024 invocations
  // per workgroup (its release timelines name the 16x24 Winograd GEMM blocks, which need more than 256)
  let target: ShaderTarget = { tuning: { ...conv3dTuning.gpu }, maxInvocations: which === 'h200' ? 1024 : 256, mma: view.tensorCores ? { subgroupSize: 32 } : null };
  if (which === 'found' && view.assumed === null) {
    // the adapter found: its conv tuning (by adapter class), invocation limit and subgroup size, as a decode here
    const d = await requestDecoderDevice();
    target = { tuning: conv3dTuningFor(d.info), maxInvocations: d.device.limits.maxComputeInvocationsPerWorkgroup, mma: d.mma ?? null };
    d.device.destroy();
  }
  return { plan: fit.plan, target, adapter: view.assumed ?? view.name };
}

async function shadersCmd(a: Args): Promise<number> {
  if (typeof a.dump !== 'string') throw new DecoderError('bad-input', 'shaders needs --dump DIR, the folder to write the WGSL files into');
  const { plan, target, adapter } = await planFromFlags(a);
  const shaders = planShaders(plan, target);
  dumpShaders(a.dump, shaders);
  const o = plan.opts;
  const what = `Wan${plan.cfg.version} ${plan.height}x${plan.width}, ${plan.framesOut} frames, ${o.precision}${o.tensorCores && o.precision === 'f16' && target.mma ? ', tensor cores' : ''}${o.tile ? `, tiles ${o.tile.th}x${o.tile.tw}` : ''}`;
  const compiles = shaders.filter((s) => s.compiledAs === s.key).length;
  if (a.json)
    console.log(
      JSON.stringify({ dir: a.dump, adapter, plan: what, compiles, shaders: shaders.map((s) => ({ file: s.file, key: s.key, ...(s.compiledAs !== s.key ? { compiledAs: s.compiledAs } : {}) })) }),
    );
  else {
    console.log(
      `wrote ${shaders.length} shaders of the plan (${what}; ${adapter}) to ${a.dump} (index.json lists their pipeline keys); ${compiles} compiles (keys with the same text share one), + the weight preparations'`,
    );
    const perKernel = new Map<string, number>();
    for (const s of shaders) perKernel.set(s.def.id, (perKernel.get(s.def.id) ?? 0) + 1);
    console.log(`  ${[...perKernel].map(([k, n]) => `${k} x${n}`).join(', ')}`);
  }
  return 0;
}

export const shadersCommand: Command = {
  name: 'shaders',
  summary: 'write the WGSL of every pipeline a decode plan compiles (named by kernel and constants)',
  usage: ['--dump DIR [--vae 2.1|2.2] [--size HxW] [--frames N] [options]'],
  about:
    "The plan is the one `wan-vae plan` makes for the same flags (default: Wan2.1, 480x832, 81 frames, this machine's adapter); each file is the shader text the GPU receives, its constants written in.",
  flags: [
    { name: 'dump', syntax: 'DIR', group: 'common', help: 'The folder to write the .wgsl files and index.json into (created).' },
    { name: 'vae', syntax: '2.1|2.2', group: 'common', values: ['2.1', '2.2'], help: 'The Wan VAE to plan for.', default: '2.1' },
    { name: 'size', syntax: 'HxW', group: 'common', help: 'Video height x width in pixels.', default: '480x832' },
    { name: 'frames', syntax: 'N', group: 'common', help: 'Video frames (1 + 4k with the cache).', default: '81' },
    { name: 'json', group: 'common', help: 'Print one JSON line: the folder, the adapter, the plan and every file with its pipeline key.' },
    { name: 'adapter', syntax: ADAPTERS.join('|'), group: 'common', values: ADAPTERS, default: 'found', help: 'Whose limits and features to plan with (as for plan): found, h200 or default.' },
    ...optionFlagSpecs('plan'),
    { name: 'limit-binding', syntax: 'MiB', group: 'advanced', help: "The largest buffer binding to assume (the adapter's maxStorageBufferBindingSize)." },
    { name: 'dawn-flags', syntax: 'a,b', group: 'advanced', help: 'Dawn toggles for the adapter found (as for decode).' },
  ],
  run: shadersCmd,
};
