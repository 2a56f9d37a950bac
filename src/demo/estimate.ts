// A time estimate before decoding: the decode's arithmetic (convs and attention of every chunk's
// programs, tiles' halos included) from a plan computed here on a weightless model of the same shape,
// divided by a throughput per adapter class. The throughputs are whole-decode rates measured on this
// project's machines (see CALIBRATION); a real adapter may be several times faster or slower, so the
// page shows a range and names the class it assumed.
import { inferConfig } from '../model/config';
import { syntheticWeights } from '../model/synthetic';
import { plan, type Plan } from '../plan/planner';
import type { ModelInfo, WorkerDecodeOptions } from '../worker/protocol';

export type AdapterClass = 'software' | 'integrated' | 'discrete' | 'cpu-reference';

/** Multiply-adds x 2 of one program's steps. */
function programFlops(steps: Plan['programs'][keyof Plan['programs']]): number {
  let f = 0;
  for (const pp of steps ?? [])
    for (const s of pp.prog.steps) {
      if (s.kind === 'conv') f += 2 * s.cout * s.cin * s.h * s.w * s.kt * s.ks * s.ks;
      else if (s.kind === 'attn') f += 4 * s.n * s.n * s.c;
    }
  return f;
}

/** Floating-point operations of a whole decode of `latentFrames` latents with plan `p`. */
export function decodeFlops(p: Plan, latentFrames: number): number {
  if (p.opts.cache === 'off') return latentFrames * programFlops(p.programs.nocache);
  return programFlops(p.programs.first) + Math.max(0, latentFrames - 1) * programFlops(p.programs.steady);
}

/** The decode's flops for a model like `m` and latents [z, T, h, w] with the worker options as resolved. */
export function estimateFlops(m: ModelInfo, shape: readonly number[], w: WorkerDecodeOptions): number {
  const cfg = inferConfig(syntheticWeights({ version: m.version, dim: m.dim, zDim: m.zDim }, { values: false }));
  const p = plan(cfg, { frames: shape[1]!, h: shape[2]!, w: shape[3]!, cache: w.cache ?? 'on', precision: w.precision ?? 'f32', tile: w.tile, norm: w.norm, normChunk: w.normChunk });
  return decodeFlops(p, shape[1]!);
}

/**
 * Whole-decode GFLOP/s per adapter class, [slow, fast]; the page shows flops / rate for both ends.
 * Measured (decodeFlops of the decode / its wall time, 2026-11-30/12-01): software: the embedded default
 * (9.0 GFLOP) in 2.0 s on lavapipe (4.5 GFLOP/s), Chromium's SwiftShader about 30x slower on the same
 * 2-core machine (TOOLING.md: 0.1-1.3 GFLOP/s per conv); discrete: the H200's Wan2.1 480x832 x 81
 * decode (275 TFLOP) in 15.4 s = 17.9 TFLOP/s as the fast end, 1 TFLOP/s as the slow one; integrated:
 * not measured, 0.1-1.5 TFLOP/s assumed; cpu-reference: the plain-loop decoder, 9.0 GFLOP in 13.8 s in
 * Node (0.65 GFLOP/s).
 */
export const CALIBRATION: Record<AdapterClass, [number, number]> = {
  software: [0.15, 4.5],
  integrated: [100, 1500],
  discrete: [1000, 18000],
  'cpu-reference': [0.2, 1],
};

/** The adapter class from what the page knows of it. */
export function adapterClass(gpu: { available: boolean; fallback: boolean; description: string }, backend: 'webgpu' | 'cpu'): AdapterClass {
  if (backend === 'cpu' || !gpu.available) return 'cpu-reference';
  const d = gpu.description.toLowerCase();
  if (gpu.fallback || /swiftshader|llvmpipe|lavapipe|software|microsoft basic/.test(d)) return 'software';
  if (/nvidia|amd|radeon|ati /.test(d) && !/apu|vega \d+ graphics|radeon\(tm\) graphics/.test(d)) return 'discrete';
  return 'integrated';
}

export interface Estimate {
  cls: AdapterClass;
  flops: number;
  /** seconds, [fast, slow] */
  seconds: [number, number];
  /** the whole-decode GFLOP/s this device reached in an earlier decode, when the range comes from it */
  measured?: number;
  /** shown as a warning: long on this adapter (even the fast end over 20 s, or the slow end over 10 min) */
  warn: boolean;
}

/**
 * `measured`: this device's rate from an earlier decode (GFLOP/s, rememberRate): the range is then 0.8x to
 * 1.6x its time (a decode's rate varies with its size: shader compiles and uploads weigh more in small ones).
 */
export function estimate(flops: number, cls: AdapterClass, measured?: number | null): Estimate {
  const [slow, fast] = measured ? [measured / 1.6, measured / 0.8] : CALIBRATION[cls];
  const seconds: [number, number] = [flops / (fast * 1e9), flops / (slow * 1e9)];
  return { cls, flops, seconds, warn: seconds[0] > 20 || seconds[1] > 600, ...(measured ? { measured } : {}) };
}

const RATES_KEY = 'wan-vae-measured-rates-v1';

/** The key a measured rate is kept under: the adapter, the backend and the storage precision. */
export function rateKey(adapter: string, backend: 'webgpu' | 'cpu', precision: string): string {
  return `${backend === 'cpu' ? 'cpu' : adapter}|${backend}|${precision}`;
}

function rates(): Record<string, number> {
  try {
    const r = JSON.parse(localStorage.getItem(RATES_KEY) ?? '{}') as unknown;
    return r && typeof r === 'object' ? (r as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/** The GFLOP/s measured for `key` in an earlier decode on this device (this browser's localStorage), or null. */
export function measuredRate(key: string): number | null {
  const v = rates()[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

/** Keep the rate of a finished decode (`flops` in `seconds`, shader compiles included) for the next estimates. */
export function rememberRate(key: string, flops: number, seconds: number): void {
  if (!(seconds > 0) || !(flops > 0)) return;
  try {
    localStorage.setItem(RATES_KEY, JSON.stringify({ ...rates(), [key]: flops / seconds / 1e9 }));
  } catch {
    // no localStorage (private mode, quota): the next estimate is the calibrated range again
  }
}
