// wan-vae command line (Node): decode latents to a video file (.gif, .png contact sheet, PNG frames,
// .mp4/.webm/.webp through ffmpeg, float32 .npy) on WebGPU (Dawn) or the CPU reference, or plan a decode
// without a GPU. Progress on stderr when it is a terminal. Errors: exit code non-zero and one line on stderr.
import { readFileSync } from 'node:fs';
import { WanVaeDecoder, type DecodeOptions } from '../decoder';
import { DecoderError } from '../gpu/errors';
import { parseStats, readLatents, type Latents } from '../model/latents';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../model/synthetic';
import { embeddedDefault, GENERATED_DEFAULT } from '../model/default-model';
import { openWeights, Weights, type WeightsProgress } from '../model/weights';
import { fileSource, type FileSource } from './file-source';
import { framesFor, inferConfig } from '../model/config';
import { plan, type Plan } from '../plan/planner';
import { busText, hostLines, hostText } from '../plan/host-text';
import { expectedSeconds } from '../plan/expected-time';
import { checkCliOptions, choice, cliValue, optionFlagSpecs, tensorCoreNote, type Args } from './cli-options';
import { commandHelp, didYouMean, overviewHelp, parseCommandArgs, shortUsage, wantsHelp, type Command, type Flag } from './cli-args';
import { ADAPTERS, expectedText, planAdapter, planFor, timeCalibrated, weightOwners, type AdapterView } from './cli-plan';
import { installNodeWebGPU } from './install-webgpu';
import { loadCliSample, samplesCmd } from './samples-cli';
import { shadersCommand } from './shaders-cli';
import { parseSourceClip, type Clip, type LoadedSample } from '../model/samples';
import { QualityAccumulator } from '../model/quality';
import { ioProblem, openOutput, OUTPUT_KINDS, resolveOutput } from './output/write';
import { Progress } from './output/progress';

function readInput(path: string, what: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new DecoderError('bad-input', `cannot read ${what} file ${path}: ${ioProblem(e)}`);
  }
}

/** --weights progress on stderr as --progress says (auto: on a TTY, one line rewritten; on: a line per tensor elsewhere), bytes of the file per tensor read. */
function weightsProgress(a: Args): WeightsProgress | undefined {
  const tty = !!process.stderr.isTTY;
  if (!(a.progress === 'on' || ((a.progress === undefined || a.progress === 'auto') && tty))) return undefined;
  return ({ tensor, bytesDone, bytesTotal }) => {
    const line = `[weights] ${mib(bytesDone)} / ${mib(bytesTotal)}  ${tensor}`;
    const cols = (process.stderr.columns || 80) - 1;
    if (tty) process.stderr.write(`\r${line.slice(0, cols).padEnd(cols)}${bytesDone >= bytesTotal ? '\n' : ''}`);
    else process.stderr.write(`${line}\n`);
  };
}

/** The weight load's figures for --json: format, bytes read, peak CPU window, time. */
function weightLoadSummary(w: Weights): Record<string, unknown> {
  const l = w.load!;
  return {
    format: l.format,
    fileBytes: l.fileBytes,
    decoderBytes: l.decoderBytes,
    bytesRead: l.bytesRead,
    tensorReads: l.reads,
    peakWindowBytes: l.peakWindowBytes,
    indexMs: Number(l.indexMs.toFixed(1)),
    readMs: Number(l.readMs.toFixed(1)),
    lazy: l.lazy,
  };
}

function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(1)} MiB`;
}

/** Whether the plan's convs run on tensor cores (f16 storage; tensorCores alone is the request). */
const onTensorCores = (p: Plan) => !!p.opts.tensorCores && p.opts.precision === 'f16';

function planSummary(p: Plan) {
  return {
    plannedPeakGpuBytes: p.memory.total,
    breakdown: { ...p.memory },
    video: { frames: p.framesOut, height: p.height, width: p.width },
    latent: { frames: p.opts.frames, h: p.opts.h, w: p.opts.w },
    options: {
      cache: p.opts.cache,
      precision: p.opts.precision,
      weightsPrecision: p.opts.weightsPrecision ?? p.opts.precision,
      norm: p.opts.norm,
      normChunk: p.opts.norm === 'chunked' ? p.opts.normChunk : null,
      tile: p.opts.tile ?? null,
      tensorCores: onTensorCores(p),
    },
    tiles: p.tiles?.length ?? 0,
    tileComputeOverhead: p.tileOverhead,
    largestBindingBytes: p.largestBinding,
    transientSlots: p.slots.length,
    largestBufferBytes: p.largestBuffer,
    hostStoreBytes: p.hostStoreBytes,
    // CPU memory by owner (and each owner's growth per latent frame) and bytes over the bus (src/plan/host-text.ts)
    host: { ...p.host, lines: hostLines(p, plan(p.cfg, { ...p.opts, frames: p.opts.frames + 1 })) },
    bus: { ...p.bus },
    dispatchesPerChunk: p.maxDispatches,
  };
}

async function decodeCmd(a: Args): Promise<number> {
  checkCliOptions(a, 'decode'); // before anything is loaded: a bad option value is the schema's one-line error
  if (a.sample !== undefined && (a.weights || a.latents || a.synthetic !== undefined))
    throw new DecoderError('bad-input', '--sample decodes a sample of the trained default model: pass it without --weights/--latents/--synthetic');
  const backend = cliValue(a, 'backend');
  if (!!a.weights !== !!a.latents) throw new DecoderError('bad-input', 'pass both --weights and --latents, or neither (the trained default model and its sample)');
  if (a.source !== undefined && !a.latents) throw new DecoderError('bad-input', '--source is the clip that --latents were encoded from: pass it with --weights/--latents (a --sample brings its own)');
  if (a.synthetic !== undefined && a.weights) throw new DecoderError('bad-input', '--synthetic replaces --weights/--latents: pass one or the other');
  let dec: WanVaeDecoder;
  let latents: Latents;
  let source: string;
  let sample: LoadedSample | undefined;
  let weightFile: FileSource | undefined;
  if (typeof a.weights === 'string' && typeof a.latents === 'string') {
    // read by ranges (any size, safetensors or torch.save): the decoder's tensors are read as the GPU upload packs them
    weightFile = fileSource(a.weights);
    dec = new WanVaeDecoder(await openWeights(weightFile, { onProgress: weightsProgress(a) }));
    latents = await readLatents(readInput(a.latents, 'latents'), a.latents, typeof a['latents-key'] === 'string' ? a['latents-key'] : undefined);
    source = a.weights;
  } else if (a.synthetic !== undefined) {
    const v = choice(a, 'synthetic', ['2.1', '2.2'] as const, '2.1');
    const m = typeof a['latent-size'] === 'string' ? /^(\d+)x(\d+)x(\d+)$/.exec(a['latent-size']) : null;
    if (!m) throw new DecoderError('bad-input', `--synthetic needs --latent-size TxHxW in latent frames and pixels (e.g. 21x60x104 for 81 frames of 480x832)`);
    const [T, h, w] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!(T >= 1 && h >= 1 && w >= 1)) throw new DecoderError('bad-input', `--latent-size ${a['latent-size']}: latent frames, height and width must each be at least 1`);
    // the latents are one Float32Array (JS caps its length); a latent this large is a typo, not a video
    if (16 * T * h * w > 2 ** 30)
      throw new DecoderError('bad-input', `--latent-size ${a['latent-size']}: ${T * h * w} latent positions, more than the 2^26 (4 GiB of latents at z = 16) a decode takes`);
    dec = new WanVaeDecoder(syntheticWeights({ ...OFFICIAL[v], seed: 1 }));
    latents = { data: syntheticLatents(dec.cfg.zDim, T, h, w), shape: [dec.cfg.zDim, T, h, w] };
    source = `generated Wan${v} (official shapes)`;
  } else if (a.sample === 'generated') {
    const d = await embeddedDefault(); // GENERATED_DEFAULT, as createDecoder(null)
    dec = new WanVaeDecoder(d.weights);
    latents = d.latents;
    source = d.source;
  } else {
    const d = await loadCliSample(typeof a.sample === 'string' ? a.sample : undefined); // the trained model (models/)
    dec = new WanVaeDecoder(d.weights);
    latents = d.sample.latents;
    source = d.source;
    sample = d.sample;
  }
  // default: the statistics stored with the latents (`@mean` / `@std`) when the file has them, else the official ones
  const statsArg = typeof a['latent-stats'] === 'string' ? a['latent-stats'] : latents.stats ? 'file' : 'official';
  if (statsArg === 'file' && !latents.stats) throw new DecoderError('bad-input', `--latent-stats file: ${latents.source ?? 'the latents'} holds no '@mean' / '@std' tensors`);
  const latentStats: DecodeOptions['latentStats'] =
    statsArg === 'official' || statsArg === 'none' ? statsArg : statsArg === 'file' ? latents.stats! : parseStats(readInput(statsArg, 'latent statistics'), statsArg);
  dec.prepare(latents, latentStats); // validate the input before touching a GPU
  const target = resolveOutput(typeof a.out === 'string' ? a.out : 'out/video.gif'); // and the output name (ffmpeg found?)
  const fps = a.fps === undefined ? 16 : Number(a.fps);
  if (!(fps > 0 && fps <= 240)) throw new DecoderError('bad-input', `--fps must be a number of frames per second in (0, 240], got '${String(a.fps)}'`);
  const progressArg = choice(a, 'progress', ['auto', 'on', 'off'] as const, 'auto');
  let opts: DecodeOptions = { backend, latentStats };
  let reason = 'CPU reference';
  let deviceTensorCores = false;
  if (backend === 'webgpu') {
    await installNodeWebGPU(typeof a['dawn-flags'] === 'string' ? [a['dawn-flags']] : []);
    // the same planning path as `wan-vae plan` (cli-plan.ts), with this device's limits and features
    deviceTensorCores = await dec.hasTensorCores();
    const adapter: AdapterView = { name: 'this device', limits: await dec.gpuLimits(), f16: await dec.hasF16(), tensorCores: deviceTensorCores, assumed: null, calibrated: false };
    const { fit, cache, tensorCores } = planFor(dec.cfg, { frames: latents.shape[1], h: latents.shape[2], w: latents.shape[3] }, a, adapter);
    opts = {
      ...opts,
      cache,
      precision: fit.plan.opts.precision,
      weightsPrecision: fit.plan.opts.weightsPrecision,
      tile: fit.plan.opts.tile,
      cacheOffload: fit.plan.opts.cacheOffload ? 'on' : 'off',
      weightsStream: fit.plan.weightStream ? 'on' : 'off',
      weightsStreamSlots: fit.plan.weightStream?.slots,
      norm: fit.plan.opts.norm,
      normChunk: fit.plan.opts.normChunk,
      tensorCores: tensorCores && !!fit.plan.opts.tensorCores,
      conv: fit.plan.opts.conv,
    };
    reason = fit.reason;
  } else {
    const cache = cliValue(a, 'cache');
    if (a.precision === 'f16' || a.tile !== undefined || a.budget !== undefined || a.norm !== undefined)
      throw new DecoderError('bad-input', '--precision f16, --norm, --tile and --budget apply to the webgpu backend only (the CPU reference has no GPU memory to plan)');
    const wp = a['weights-precision'] === undefined ? 'f32' : cliValue(a, 'weightsPrecision');
    if (wp === 'auto') throw new DecoderError('bad-input', '--weights-precision auto lets --budget choose (webgpu backend): the CPU reference takes f32, f16 or int8');
    opts = { ...opts, cache, weightsPrecision: wp };
  }
  const out = target.path;
  const show = progressArg === 'on' || (progressArg === 'auto' && !!process.stderr.isTTY);
  const total = opts.cache === 'off' ? latents.shape[1] : framesFor(dec.cfg, latents.shape[1]);
  const progress = show
    ? new Progress(
        { write: (t) => process.stderr.write(t), tty: !!process.stderr.isTTY, columns: process.stderr.columns },
        total,
        total > 1 && latents.shape[1] > 1 ? (total - 1) / (latents.shape[1] - 1) : 1,
        undefined,
        backend === 'cpu' ? '[start] CPU reference decoder' : undefined,
      )
    : null;
  let done = 0;
  let r;
  // every output is written as the frames arrive (CPU memory constant in the video length; .png keeps the
  // <= 16 frames of its contact sheet, .gif its 8 palette frames and spills the rest to disk), and a
  // sample's PSNR/SSIM vs its source clip are summed frame by frame; the decode keeps no video (collect: false)
  const sink = openOutput(
    target,
    { frames: total, height: latents.shape[2] * dec.cfg.scale, width: latents.shape[3] * dec.cfg.scale },
    {
      fps,
      // .gif encodes after the decode: its [write] progress (the others write during [decode])
      onFrame: progress && target.kind === 'gif' ? (d, n) => progress.writing(d, n) : undefined,
    },
  );
  // PSNR/SSIM vs the sample's source clip (frames the cache-off remedy drops make it incomparable)
  // --source: the clip given for --weights/--latents, its shape checked against the decode's before the decode
  const srcClip: Clip | undefined =
    typeof a.source === 'string' ? parseSourceClip(readInput(a.source, 'source clip'), a.source, [3, total, latents.shape[2] * dec.cfg.scale, latents.shape[3] * dec.cfg.scale]) : undefined;
  const quality = sample && total === sample.source.shape[1] ? new QualityAccumulator(sample.source.data, sample.source.shape) : srcClip ? new QualityAccumulator(srcClip.data, srcClip.shape) : null;
  // Ctrl-C cancels the decode between chunks (buffers returned, nothing written); a second Ctrl-C quits at once
  const cancel = new AbortController();
  const onSigint = () => {
    if (cancel.signal.aborted) {
      void sink.abort(); // its removals run before its first await: nothing left under a temporary name
      process.exit(130);
    }
    cancel.abort();
    process.stderr.write('\nwan-vae: cancelling after the current chunk (Ctrl-C again to quit now)\n');
  };
  process.on('SIGINT', onSigint);
  // time to the first frame: from the decode() call (which builds the GPU decoder) to the first frame out
  const tDecode = performance.now();
  let firstFrameMs: number | undefined;
  try {
    r = await dec.decode(latents, {
      ...opts,
      signal: cancel.signal,
      collect: false,
      // backpressure: the decoder waits while framesInFlight frames are not yet written (a slow disk or ffmpeg)
      onFrame: (f) => {
        firstFrameMs ??= performance.now() - tDecode;
        const written = sink.frame(f.index, f.rgb);
        quality?.frame(f.index, f.rgb);
        progress?.frames(++done);
        return written;
      },
    });
    // a decode whose last chunks were already on the GPU when Ctrl-C came completes: honour the Ctrl-C anyway
    if (cancel.signal.aborted) throw new DecoderError('cancelled', 'decode cancelled (Ctrl-C)');
  } catch (e) {
    await sink.abort(); // ffmpeg killed, the temporary file and the frames written so far removed
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
    progress?.done();
  }
  if (a['tensor-cores'] === 'on' && !r.options.tensorCores)
    console.error(
      `wan-vae: note: --tensor-cores on was not used: ${r.options.precision !== 'f16' ? 'it needs --precision f16' : "this adapter offers no 'chromium-experimental-subgroup-matrix' with 16x16x16 f16 -> f32 (Dawn: --dawn-flags enable-dawn-features=allow_unsafe_apis)"}; the portable kernels ran`,
    );
  const tcNote = tensorCoreNote(a.precision, r.options.precision, deviceTensorCores);
  if (tcNote) console.error(tcNote);
  const written = await sink.finish();
  if (target.kind !== 'gif') progress?.writing(r.frames, r.frames);
  const q = quality?.result(); // luma SSIM per frame (src/model/quality.ts)
  const psnr = q?.psnr;
  const ssimSrc = q?.ssim ?? NaN;
  progress?.done();
  const summary = {
    weights: source,
    latentFormat: latents.format ?? 'generated',
    latentStats: statsArg,
    version: dec.cfg.version,
    dim: dec.cfg.dim,
    zDim: dec.cfg.zDim,
    latentShape: latents.shape,
    out,
    output: written.description,
    streamed: true,
    frames: r.frames,
    height: r.height,
    width: r.width,
    seconds: Number(r.seconds.toFixed(3)),
    firstFrameSeconds: firstFrameMs === undefined ? null : Number((firstFrameMs / 1000).toFixed(3)),
    backend: r.backend,
    adapter: r.adapter,
    options: r.options,
    plan: reason,
    peakGpuBytes: r.peakGpuBytes,
    plannedPeakGpuBytes: r.plannedPeakGpuBytes,
    memory: r.memory,
    ...(dec.weights.load ? { weightLoad: weightLoadSummary(dec.weights) } : {}),
    ...(psnr === undefined || sample ? {} : { sourceClip: a.source, psnrVsSource: Number(psnr.toFixed(3)), ssimVsSource: Number(ssimSrc.toFixed(4)) }),
    ...(psnr === undefined || !sample ? {} : { sample: sample.info.name, psnrVsSource: Number(psnr.toFixed(3)), ssimVsSource: Number(ssimSrc!.toFixed(4)), psnrTorch: sample!.info.psnrTorch }),
    // each plan used after a GPU fault (out of memory: real, or WAN_VAE_INJECT_OOM=N), with its reason
    replans: r.replans,
    // streamed weights: this decode's uploads into the ring, MiB, ms waiting for an upload buffer (GPU-bound) and ms copying (host-bound)
    ...(r.weightStream
      ? {
          weightStream: {
            uploads: r.weightStream.uploads,
            uploadedMiB: Number((r.weightStream.uploadedBytes / 2 ** 20).toFixed(1)),
            waitMs: Math.round(r.weightStream.waitMs),
            copyMs: Math.round(r.weightStream.copyMs),
          },
        }
      : {}),
    // the start-up inside `seconds`: building the GPU decoder (ms; DecodeResult.startup, runtime/gpu-decoder.ts BuildReport: allocation + JS
    // weight packing, pipeline compiles and GPU weight preparation, which share the JS thread, and their total)
    ...(backend === 'webgpu' && r.startup
      ? {
          startup: {
            resourcesMs: Math.round(r.startup.resourcesMs),
            pipelinesMs: Math.round(r.startup.pipelinesMs),
            prepMs: Math.round(r.startup.prepMs),
            // the first chunk may start (weights prepared); the pipelines still compiling then went out as they came (overlappedSubmits submissions before the last)
            readyMs: Math.round(r.startup.readyMs),
            totalMs: Math.round(r.startup.totalMs),
            overlappedSubmits: r.startup.overlappedSubmits,
            // what each weight preparation did (tensor-core blocked, portable packed, Winograd): weights on the GPU / in JS, submissions, f32 MiB uploaded, ms until submitted
            uploads: Object.fromEntries(
              (['prep', 'pack', 'wino'] as const).map((k) => {
                const u = r.startup![k];
                return [k === 'prep' ? 'blocked' : k, { gpu: u.gpu, js: u.js, chunks: u.chunks, uploadedMiB: Number((u.uploadedBytes / 2 ** 20).toFixed(1)), ms: Math.round(u.ms) }];
              }),
            ),
            // the build's timeline against the first decode's submissions: [ms from the build's start, what] (runtime/gpu-decoder.ts BuildEvent)
            events: r.startup.events.map((e) => [Math.round(e.ms), e.what]),
          },
        }
      : {}),
  };
  if (a.json) console.log(JSON.stringify(summary));
  else {
    console.log(
      `decoded ${source} (Wan${dec.cfg.version}, dim ${dec.cfg.dim}, z ${dec.cfg.zDim}) latents [${latents.shape}] (statistics: ${statsArg}) -> [3, ${r.frames}, ${r.height}, ${r.width}] in ${r.seconds.toFixed(2)} s on ${r.adapter}`,
    );
    if (r.peakGpuBytes !== undefined) console.log(`peak GPU memory ${mib(r.peakGpuBytes)} (planned ${mib(r.plannedPeakGpuBytes!)}; ${reason})`);
    if (psnr !== undefined && !sample) console.log(`PSNR vs the source clip ${String(a.source)}: ${psnr.toFixed(2)} dB, SSIM ${ssimSrc.toFixed(4)}`);
    if (psnr !== undefined && sample) console.log(`PSNR vs the source clip of ${sample.info.name}: ${psnr.toFixed(2)} dB, SSIM ${ssimSrc!.toFixed(4)} (PyTorch decode: ${sample!.info.psnrTorch} dB)`);
    console.log(`wrote ${out}: ${written.description}`);
  }
  dec.dispose();
  return 0;
}

async function planCmd(a: Args): Promise<number> {
  checkCliOptions(a, 'plan');
  const vae = choice(a, 'vae', ['2.1', '2.2'] as const, '2.1');
  if (a.size === undefined) throw new DecoderError('bad-input', 'plan needs --size HxW, the video size in pixels (e.g. --size 480x832)');
  const size = /^(\d+)x(\d+)$/.exec(String(a.size));
  if (!size) throw new DecoderError('bad-input', `--size must be HxW in pixels, e.g. 480x832, got '${String(a.size)}'`);
  const cfg = inferConfig(syntheticWeights(OFFICIAL[vae], { values: false }));
  const H = Number(size[1]),
    W = Number(size[2]);
  if (!H || !W || H % cfg.scale || W % cfg.scale) throw new DecoderError('bad-input', `--size ${H}x${W}: Wan${vae} needs positive multiples of ${cfg.scale}`);
  if (a.frames === undefined) throw new DecoderError('bad-input', 'plan needs --frames N, the video length in frames (1 + 4k with the cache: 81, 121, ...)');
  const frames = Number(a.frames);
  if (!/^\d+$/.test(String(a.frames)) || frames < 1)
    throw new DecoderError('bad-input', `--frames must be a whole number of video frames (1 + 4k with the cache: 81, 121, ...), got '${String(a.frames)}'`);
  const cache = cliValue(a, 'cache');
  if (cache === 'on' && (frames - 1) % 4) throw new DecoderError('bad-input', `--frames ${String(a.frames)}: with the cache a video has 1 + 4k frames (81, 121, ...)`);
  const T = cache === 'on' ? (frames - 1) / 4 + 1 : frames;
  const adapter = await planAdapter(a, choice(a, 'adapter', ADAPTERS, 'found'), typeof a['dawn-flags'] === 'string' ? [a['dawn-flags']] : []);
  const { fit, tensorCores } = planFor(cfg, { frames: T, h: H / cfg.scale, w: W / cfg.scale }, a, adapter);
  const p = fit.plan;
  const s = planSummary(p);
  const owners = weightOwners(p);
  // the model fitPlan weighs streaming with (fitted on an H200; tensor cores where the plan has them)
  const e = expectedSeconds(p);
  const onTc = tensorCores && onTensorCores(p);
  if (a.json)
    console.log(
      JSON.stringify({
        vae,
        ...s,
        plan: fit.reason,
        adapter: { name: adapter.name, assumed: adapter.assumed, limits: adapter.limits, f16: adapter.f16, tensorCores: adapter.tensorCores },
        weightOwners: owners,
        expectedSeconds: e,
        expectedSecondsCalibrated: timeCalibrated(p, adapter),
      }),
    );
  else {
    console.log(`Wan${vae} ${H}x${W}, ${p.framesOut} frames (${T} latents), cache ${cache}: ${fit.reason}`);
    console.log(
      `  ${adapter.assumed ?? `adapter: ${adapter.name} (bindings of at most ${mib(adapter.limits.maxStorageBufferBindingSize)}${adapter.f16 ? ', shader-f16' : ''}${adapter.tensorCores ? ', tensor cores' : ''}); --adapter h200|default or --limit-binding MiB plan for another`}`,
    );
    for (const [k, v] of Object.entries(p.memory)) {
      if (k === 'total') continue;
      const stream =
        k === 'weights' && p.weightStream
          ? ` (conv weights ${p.opts.weightsPrecision ?? p.opts.precision}, streamed: a ring of ${p.weightStream.slots} slots; ${mib(p.weightStream.hostBytes)} in CPU memory, ${mib(p.weightStream.busBytesPerChunk)} over the bus per latent chunk)`
          : '';
      console.log(`  ${k.padEnd(12)} ${mib(v)}${stream}`);
      if (k === 'weights' && owners) for (const o of owners) console.log(`    ${mib(o.bytes).padStart(12)}  ${o.text}`);
    }
    console.log(`  ${'total'.padEnd(12)} ${mib(p.memory.total)}\n  largest binding ${mib(p.largestBinding)}, tiled-part compute x${p.tileOverhead.toFixed(2)}`);
    for (const l of [...hostText(p, plan(p.cfg, { ...p.opts, frames: p.opts.frames + 1 })), busText(p.bus, p.framesOut), expectedText(e, p, adapter, onTc)]) console.log(`  ${l}`);
  }
  return 0;
}

/** The flags of decode that are not decode options (input, output, progress). */
const DECODE_FLAGS: Flag[] = [
  {
    name: 'weights',
    syntax: 'FILE',
    group: 'common',
    help: 'The VAE weights (.safetensors with official, diffusers or ComfyUI names). With --latents; without both, the trained default model decodes its sample.',
  },
  { name: 'latents', syntax: 'FILE', group: 'common', help: 'The latents to decode: .npy, .safetensors (diffusers output_type="latent") or a ComfyUI .latent file.' },
  { name: 'out', syntax: 'FILE', group: 'common', help: `Where to write the video, by its name: ${OUTPUT_KINDS}.`, default: 'out/video.gif' },
  { name: 'sample', syntax: 'NAME', group: 'common', help: `A sample of the trained default model (wan-vae samples lists them); generated: ${GENERATED_DEFAULT.description}.` },
  { name: 'json', group: 'common', help: 'Print one JSON line with the result (sizes, seconds, planned and measured GPU memory) instead of text.' },
  { name: 'fps', syntax: 'N', group: 'common', help: 'Frames per second of the video file.', default: '16' },
  { name: 'source', syntax: 'CLIP.npy', group: 'advanced', help: 'The clip the latents were encoded from (uint8 or float [3, F, H, W]): reports PSNR and SSIM of the decode against it.' },
  { name: 'latents-key', syntax: 'NAME', group: 'advanced', help: 'The tensor to read from a .safetensors latents file that holds several.' },
  {
    name: 'synthetic',
    syntax: '2.1|2.2',
    group: 'advanced',
    values: ['2.1', '2.2'],
    help: 'Generated weights of the official architecture instead of --weights/--latents (for sizing a decode); needs --latent-size.',
  },
  { name: 'latent-size', syntax: 'TxHxW', group: 'advanced', help: 'With --synthetic: latent frames x height x width (21x60x104 is 81 frames of 480x832).' },
  { name: 'progress', syntax: 'auto|on|off', group: 'advanced', values: ['auto', 'on', 'off'], help: 'Phase, frames and time left on stderr; auto: when stderr is a terminal.', default: 'auto' },
  { name: 'dawn-flags', syntax: 'a,b', group: 'advanced', help: 'Dawn toggles for the Node WebGPU adapter (docs/cli-reference.md: tensor cores on NVIDIA).' },
];

const PLAN_FLAGS: Flag[] = [
  { name: 'vae', syntax: '2.1|2.2', group: 'common', values: ['2.1', '2.2'], help: 'The Wan VAE to plan for.', default: '2.1' },
  { name: 'size', syntax: 'HxW', group: 'common', help: 'Video height x width in pixels (multiples of 8 for Wan2.1, 16 for Wan2.2). Required.' },
  { name: 'frames', syntax: 'N', group: 'common', help: 'Video frames (1 + 4k with the cache: 81, 121, ...). Required.' },
  { name: 'json', group: 'common', help: 'Print the plan as one JSON line.' },
  {
    name: 'adapter',
    syntax: ADAPTERS.join('|'),
    group: 'common',
    values: ADAPTERS,
    default: 'found',
    help: "Whose limits to plan with: found (this machine's WebGPU adapter; WebGPU's defaults when there is none), h200 (an NVIDIA H200 through Dawn) or default (WebGPU's default limits).",
  },
  { name: 'limit-binding', syntax: 'MiB', group: 'advanced', help: "The largest buffer binding to assume (the adapter's maxStorageBufferBindingSize)." },
  { name: 'dawn-flags', syntax: 'a,b', group: 'advanced', help: 'Dawn toggles for the adapter found (as for decode).' },
];

const decodeCommand: Command = {
  name: 'decode',
  summary: 'decode latents to a video file (.gif, .png, PNG frames, .mp4, .webm, .webp, .npy) on WebGPU',
  usage: ['[--weights W.safetensors --latents L.npy] [--out OUT] [options]', '--sample NAME [--out OUT]'],
  about:
    "Without --weights/--latents it decodes the trained default model (models/, the Wan2.1 architecture at width 32) with its default sample and reports PSNR against the sample's source clip. The planner fits the decode to this GPU's limits (and --budget): tiles, precision and the other auto options are chosen for you.",
  flags: [...DECODE_FLAGS.filter((f) => f.group === 'common'), ...optionFlagSpecs('decode'), ...DECODE_FLAGS.filter((f) => f.group === 'advanced')],
  run: decodeCmd,
};

const planCommand: Command = {
  name: 'plan',
  summary: 'dry run: the GPU memory (by owner) and CPU memory a decode of a given size would need',
  usage: ['--vae 2.1|2.2 --size HxW --frames N [--budget MiB] [--json] [options]'],
  about: "Plans for this machine's WebGPU adapter (its limits and features, as a decode here would), or for the one --adapter names; nothing is decoded. The lever options are those of decode.",
  flags: [...PLAN_FLAGS.filter((f) => f.group === 'common'), ...optionFlagSpecs('plan'), ...PLAN_FLAGS.filter((f) => f.group === 'advanced')],
  run: planCmd,
};

const samplesCommand: Command = {
  name: 'samples',
  summary: "list the trained default model's samples (decode one with wan-vae decode --sample NAME)",
  usage: ['[--json]'],
  flags: [{ name: 'json', group: 'common', help: 'Print the list as one JSON line.' }],
  run: samplesCmd,
};

/** Every command, in the order of the usage; a module adding a command exports its Command and is listed here. */
export const COMMANDS: Command[] = [decodeCommand, planCommand, samplesCommand, shadersCommand];

/** The package's version (package.json beside dist/ or two folders above src/node/). */
export function version(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'wan-vae-webgpu' && pkg.version) return pkg.version;
    } catch {
      // not there: the next candidate
    }
  }
  return 'unknown';
}

/** Runs `wan-vae argv`; returns the exit code (0 done or help, 2 bad input or a failed decode, 130 Ctrl-C). */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (cmd === undefined) {
      console.error(`wan-vae: missing command\n${shortUsage(COMMANDS)}`);
      return 2;
    }
    if (cmd === '--help' || cmd === '-h') return (void console.log(overviewHelp(COMMANDS, version())), 0);
    if (cmd === '--version' || cmd === '-V') return (void console.log(`wan-vae ${version()}`), 0);
    const find = (name: string) => {
      const c = COMMANDS.find((x) => x.name === name);
      if (c) return c;
      const what = name.startsWith('-') ? `unknown option ${name} before the command` : `unknown command '${name}'`;
      throw new DecoderError(
        'bad-input',
        `${what}${
          didYouMean(
            name.replace(/^-+/, ''),
            COMMANDS.map((x) => x.name),
            (s) => `'${s}'`,
          ) || ` (commands: ${COMMANDS.map((x) => x.name).join(', ')})`
        }`,
      );
    };
    if (cmd === 'help') {
      if (rest.length === 0) return (void console.log(overviewHelp(COMMANDS, version())), 0);
      return (void console.log(commandHelp(find(rest[0]!))), 0);
    }
    const command = find(cmd);
    if (wantsHelp(rest)) return (void console.log(commandHelp(command)), 0);
    return await command.run(parseCommandArgs(command, rest));
  } catch (e) {
    if (e instanceof DecoderError && e.code === 'cancelled') {
      console.error(`wan-vae: ${e.code}: ${e.message}; nothing written`);
      return 130; // as a shell reports Ctrl-C
    }
    if (e instanceof DecoderError) console.error(`wan-vae: ${e.code}: ${e.message}`);
    else console.error(`wan-vae: internal error: ${(e as Error)?.message ?? String(e)}`);
    return 2;
  }
}
