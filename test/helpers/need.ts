// The one place a test that cannot run decides what happens: outside CI it is reported as SKIPPED with
// the reason (ctx.skip, which throws and ends the test); under CI (CI=1) it FAILS with the reason,
// because CI has ../shared, a WebGPU adapter and (in the Node project) shader-f16, and a test that
// silently returns would report "passed" without checking anything.
//
// What counts as "cannot run":
//   - ../shared absent (the golden files; the path is vite.config.ts' `sharedDir`, overridable with
//     WAN_SHARED_DIR=/some/dir, e.g. WAN_SHARED_DIR=/nonexistent to see every such test skip),
//   - no WebGPU adapter,
//   - no `shader-f16` in the Node project (Dawn + lavapipe has it). In the browser project SwiftShader
//     has no shader-f16 (a documented fact of the platform, shared/TOOLING.md): skipped there also under CI,
//   - no subgroup matrices (neither CI platform has them): always skipped with the reason.
import type { TestContext } from 'vitest';
import { parseSafetensors, type StFile } from '../../src/model/safetensors';
import { isBrowser, isCI } from './env';
import { readSharedFile, sharedAvailable } from './files';
import { getTestDevice, noDeviceReason, type TestGpu } from './gpu';

export type SkipCtx = Pick<TestContext, 'skip' | 'task'>;

declare module 'vitest' {
  interface TaskMeta {
    /** why the test was skipped (test/run.mjs prints a count per reason) */
    skipReason?: string;
  }
}

/** Ends the test: skipped with `reason`, or under CI a failure naming the reason. */
export function cannotRun(ctx: SkipCtx, reason: string): never {
  if (isCI()) throw new Error(`this test must run under CI, but ${reason}`);
  return notOnThisAdapter(ctx, reason);
}

/** Skipped with `reason` everywhere (also under CI): for hardware features no CI platform has. */
export function notOnThisAdapter(ctx: SkipCtx, reason: string): never {
  ctx.task.meta.skipReason = reason;
  return ctx.skip(reason);
}

/** The shared test device; skips (fails under CI) when there is no WebGPU adapter. */
export async function needGpu(ctx: SkipCtx): Promise<TestGpu> {
  const gpu = await getTestDevice();
  if (!gpu) cannotRun(ctx, `there is no WebGPU device: ${noDeviceReason()}`);
  return gpu;
}

/** For files that got the device at module level: skip (fail under CI) when it is null. */
export function needDevice(ctx: SkipCtx, gpu: TestGpu | null): TestGpu {
  if (!gpu) cannotRun(ctx, `there is no WebGPU device: ${noDeviceReason()}`);
  return gpu;
}

/** Skips without shader-f16: in the browser project always (SwiftShader has none), in Node fails under CI. */
export function needF16(ctx: SkipCtx, gpu: TestGpu | null): TestGpu {
  const g = needDevice(ctx, gpu);
  if (!g.f16) {
    const why = `the adapter (${g.info.description || g.info.vendor || 'unknown'}) has no shader-f16`;
    if (isBrowser) notOnThisAdapter(ctx, `${why} (SwiftShader has none)`);
    cannotRun(ctx, why);
  }
  return g;
}

/** Skips (fails under CI) when ../shared is absent. */
export async function needShared(ctx: SkipCtx): Promise<void> {
  if (!(await sharedAvailable())) cannotRun(ctx, '../shared is absent (set WAN_SHARED_DIR to its path)');
}

/** ../shared/golden/<name>.safetensors parsed; skips (fails under CI) when ../shared is absent. */
export async function needGolden(ctx: SkipCtx, name: string): Promise<StFile> {
  await needShared(ctx);
  const bytes = await readSharedFile(`golden/${name}.safetensors`);
  if (!bytes) cannotRun(ctx, `../shared/golden/${name}.safetensors is absent`);
  return parseSafetensors(bytes, `${name}.safetensors`);
}
