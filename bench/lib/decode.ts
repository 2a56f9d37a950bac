// End-to-end decodes: one cold decode (builds the GPU decoder: upload + compile; its buffers counted
// by ByteCounter), `repeats` warm decodes (wall time of decode(), readbacks included: what a caller
// waits for), one decode under PassProbe (GPU busy time, when timestamp-query is there) and, for small
// sizes, max |err| against the CPU reference decoder. Also the trade-off matrix of decode switches.
import { WanVaeDecoder, type DecodeOptions, type DecodeResult } from '../../src/decoder';
import type { DecoderDevice } from '../../src/gpu/device';
import { DecoderError } from '../../src/gpu/errors';
import type { Latents } from '../../src/model/latents';
import { ByteCounter } from './byte-counter';
import { decodeFlops, latentsFor, modelFor, prepareModel, sourceFor } from './models';
import { ssim, vsSource } from '../../src/model/quality';
import { PassProbe } from './pass-probe';
import { describeError, now, quality, spread } from './stats';
import type { DecodeScenario, MatrixScenario, Result, Spread, Switches } from './types';

export interface DecodeRun {
  result: DecodeResult;
  ms: number;
  /** ms from decode start to the last frame of each chunk */
  chunkEnds: number[];
}

/**
 * Switches as DecodeOptions. `tile` is written as data: 'none', or `MODE:HxW[:ORDER][:STORE]`, e.g.
 * 'exact:30x21', 'exact:30x21:tile-major:cpu', 'blend:30x21:frame-major' (tile core in latent pixels).
 */
export function decodeOptions(opts: Switches): DecodeOptions {
  const { tile, ...rest } = opts;
  const out = { ...rest } as DecodeOptions;
  if (typeof tile === 'string' && tile !== 'none') {
    const m = /^(exact|blend):(\d+)x(\d+)(?::(tile-major|frame-major))?(?::(gpu|cpu))?$/.exec(tile);
    if (!m) throw new Error(`bench: tile switch '${tile}' is not MODE:HxW[:ORDER][:STORE]`);
    out.tile = { mode: m[1] as 'exact' | 'blend', th: Number(m[2]), tw: Number(m[3]), order: (m[4] ?? 'tile-major') as 'tile-major' | 'frame-major', store: (m[5] ?? 'gpu') as 'gpu' | 'cpu' };
  }
  return out;
}

/** One decode, timing the end of each chunk (frames of a chunk arrive in one burst). */
export async function timedDecode(dec: WanVaeDecoder, lat: Latents, opts: Switches): Promise<DecodeRun> {
  const T = lat.shape[1];
  const times: number[] = [];
  const t0 = now();
  const result = await dec.decode(lat, { ...decodeOptions(opts), latentStats: 'none', onFrame: () => void times.push(now() - t0) });
  const ms = now() - t0;
  // cached decode: chunk 0 gives 1 frame, every later chunk (F-1)/(T-1); uncached: 1 frame per chunk
  const per = result.frames === T ? 1 : (result.frames - 1) / Math.max(1, T - 1);
  const chunkEnds = times.filter((_, i) => i % per === 0);
  return { result, ms, chunkEnds };
}

function dropVideo(r: DecodeRun): void {
  r.result = { ...r.result, video: new Float32Array(0) };
}

/** Steady ms per latent frame: intervals between chunk ends after chunk 0. */
function perLatentFrame(runs: DecodeRun[]): Spread | undefined {
  const d = runs.flatMap((r) => r.chunkEnds.slice(1).map((t, i) => t - r.chunkEnds[i]!));
  return d.length ? spread(d) : undefined;
}

export interface DecodeMeasure {
  row: Result;
  video: Float32Array | null;
}

export interface DecodeTarget {
  name: string;
  group: Result['group'];
  model: DecodeScenario['model'];
  latent: [number, number, number];
  /** also time one decode under PassProbe (GPU busy time; needs timestamp-query) */
  probe?: boolean;
}

/** Warm decodes stop (after the first) once they took this long in total; no GPU-busy decode past it. */
const WARM_BUDGET_MS = 60_000;

/** Measurements by (model, latent, options, repeats): a later scenario decoding the same thing reuses them. */
const measured = new Map<string, DecodeMeasure>();
/** Bytes of decoded video kept for reuse (oldest dropped first): full-size outputs are hundreds of MB. */
const KEEP_BYTES = 512 * 2 ** 20;

function remember(key: string, m: DecodeMeasure): void {
  measured.set(key, m);
  let bytes = 0;
  for (const [k, v] of [...measured].reverse()) {
    bytes += v.video?.byteLength ?? 0;
    if (bytes > KEEP_BYTES) measured.delete(k);
  }
}

export function forgetMeasurements(): void {
  measured.clear();
}

/** Cold + warm decodes of one option set on `gpu` (reused when already measured in this run). */
export async function measureDecode(gpu: DecoderDevice, s: DecodeTarget, opts: Switches, repeats: number): Promise<DecodeMeasure> {
  const params = { model: s.model, latent: s.latent, options: opts, repeats };
  const memoKey = JSON.stringify([params, s.probe ?? true]);
  const prev = measured.get(memoKey);
  const named = (m: DecodeMeasure): DecodeMeasure => ({ video: m.video, row: { ...m.row, name: s.name, group: s.group, key: `${s.name}|${JSON.stringify(params)}`, extra: { ...m.row.extra } } });
  if (prev) return named(prev);
  const m = await measureFresh(gpu, s, opts, repeats);
  if (m.row.status === 'ok') remember(memoKey, m);
  return named(m);
}

async function measureFresh(gpu: DecoderDevice, s: DecodeTarget, opts: Switches, repeats: number): Promise<DecodeMeasure> {
  const { weights, cfg } = modelFor(s.model);
  const lat = latentsFor(s.model, s.latent);
  const params = { model: s.model, latent: s.latent, options: opts, repeats };
  const row: Result = { name: s.name, group: s.group, status: 'ok', params, key: '' };
  const dec = new WanVaeDecoder(weights, gpu);
  try {
    const counter = new ByteCounter(gpu.device);
    let cold: DecodeRun;
    try {
      cold = await timedDecode(dec, lat, opts);
    } finally {
      counter.stop();
    }
    const warm: DecodeRun[] = [];
    // time guard for slow paths at full size: stop repeating once WARM_BUDGET_MS is spent (>= 1 warm run)
    for (let i = 0, spent = 0; i < repeats && (i === 0 || spent < WARM_BUDGET_MS); i++) {
      dropVideo(warm[warm.length - 1] ?? cold); // full-size videos are hundreds of MB: keep the last only
      warm.push(await timedDecode(dec, lat, opts));
      spent += warm[warm.length - 1]!.ms;
    }
    const runs = warm.length ? warm : [cold];
    const ms = spread(runs.map((r) => r.ms));
    const flops = opts.cache === 'off' ? undefined : decodeFlops(cfg, s.latent);
    Object.assign(row, {
      timing: 'wall-decode',
      ms,
      gflops: flops ? flops / (ms.median * 1e6) : undefined,
      peakGpuBytes: cold.result.peakGpuBytes,
      plannedPeakGpuBytes: cold.result.plannedPeakGpuBytes,
      countedPeakGpuBytes: counter.peak,
      extra: {
        coldMs: cold.ms,
        firstFrameMs: runs[0]!.chunkEnds[0],
        msPerLatentFrame: perLatentFrame(runs),
        frames: cold.result.frames,
        size: `${cold.result.width}x${cold.result.height}`,
        flops,
        adapter: cold.result.adapter,
      },
    });
    if ((s.probe ?? true) && PassProbe.available(gpu.device) && cold.ms < WARM_BUDGET_MS)
      Object.assign(
        row.extra!,
        await probeDecode(gpu.device, async () => {
          const r = await timedDecode(dec, lat, opts);
          dropVideo(r);
          return r;
        }),
      );
    return { row, video: runs[runs.length - 1]!.result.video };
  } catch (e) {
    const unsupported = e instanceof DecoderError && e.code === 'unsupported';
    return { row: { ...row, status: unsupported ? 'skipped' : 'failed', error: describeError(e) }, video: null };
  } finally {
    dec.dispose();
  }
}

/** GPU busy time (sum of timestamp-query pass times) of one more decode, and that decode's wall time. */
async function probeDecode(device: GPUDevice, run: () => Promise<DecodeRun>): Promise<Record<string, number | string>> {
  const probe = new PassProbe(device);
  let busy: Awaited<ReturnType<PassProbe['collect']>>, probed: DecodeRun;
  try {
    probed = await run();
  } finally {
    busy = await probe.collect();
  }
  return {
    gpuBusyMs: busy.ms,
    gpuBusyWallMs: probed.ms,
    gpuBusySource: `timestamp-query, sum of ${busy.passes} passes${busy.untimed ? `, ${busy.untimed} untimed` : ''} of a decode that took gpuBusyWallMs`,
  };
}

/** CPU reference decode of the same weights and latents (f32/f64 math: the exact answer). */
async function cpuReference(s: DecodeScenario, opts: Switches): Promise<Float32Array> {
  const { weights } = modelFor(s.model);
  const r = await new WanVaeDecoder(weights).decode(latentsFor(s.model, s.latent), { cache: opts.cache as 'on' | 'off', backend: 'cpu', latentStats: 'none' });
  return r.video;
}

export async function runDecodeScenario(gpu: DecoderDevice, s: DecodeScenario, repeats?: number): Promise<Result[]> {
  const m = await measureDecode(gpu, s, s.options, repeats ?? s.repeats);
  if (s.checkCpu && m.video) {
    try {
      const t0 = now();
      const ref = await cpuReference(s, s.options);
      m.row.quality = quality(m.video, ref, 'CPU reference decoder (src/cpu)');
      m.row.extra!.cpuReferenceMs = now() - t0;
    } catch (e) {
      m.row.extra!.cpuReferenceError = describeError(e);
    }
  }
  return [m.row];
}

/** The reference (every first value), then every other value of each switch with the rest at the reference. */
export function oneAtATime(switches: MatrixScenario['switches']): Switches[] {
  const ref: Switches = Object.fromEntries(Object.entries(switches).map(([k, v]) => [k, v[0]]));
  return [ref, ...Object.entries(switches).flatMap(([k, values]) => values.slice(1).map((v) => ({ ...ref, [k]: v })))];
}

/** Every combination of the switches, the first key varying slowest (the first combination is all-first-values). */
export function combinations(switches: MatrixScenario['switches']): Switches[] {
  let out: Switches[] = [{}];
  for (const [k, values] of Object.entries(switches)) out = out.flatMap((o) => values.map((v) => ({ ...o, [k]: v })));
  return out;
}

const label = (o: Switches) =>
  Object.entries(o)
    .map(([k, v]) => `${k}=${v ?? 'default'}`)
    .join(',');

/**
 * The trade-off matrix: every combination, planned and measured peak bytes, time, and quality against
 * the reference of the same output size (the first combination that produced that many values: the
 * exact f32 decode; cache off gives T frames, so its f32 run is its own reference).
 */
export async function runMatrixScenario(gpu: DecoderDevice, s: MatrixScenario, repeats?: number): Promise<Result[]> {
  const refs = new Map<number, { video: Float32Array; label: string }>();
  const rows: Result[] = [];
  await prepareModel(s.model);
  const source = sourceFor(s.model); // trained model: the original clip [3, F, H, W]
  for (const opts of s.vary === 'one' ? oneAtATime(s.switches) : combinations(s.switches)) {
    const m = await measureDecode(gpu, { ...s, name: `${s.name}/${label(opts)}` }, opts, repeats ?? s.repeats);
    if (m.video) {
      const ref = refs.get(m.video.length);
      if (ref) m.row.quality = quality(m.video, ref.video, ref.label);
      else {
        refs.set(m.video.length, { video: m.video, label: `${label(opts)} (reference: exact)` });
        m.row.quality = { against: 'itself (reference of this output size)', maxAbs: 0, psnr: Infinity };
      }
      if (source) {
        // PSNR / SSIM against the original video (cache off: at the source frames its frames stand for)
        const [, , H, W] = source.shape;
        const v = vsSource(m.video, source.data, source.shape);
        m.row.quality.ssim = ref ? ssim(m.video, ref.video, [3, m.video.length / (3 * H * W), H, W]) : 1;
        Object.assign(m.row.quality, { psnrVsSource: v.psnr, ssimVsSource: v.ssim });
      }
    }
    rows.push(m.row);
  }
  return rows;
}
