// GPU decoder: scheduling and readback. Builds the plan's buffers (exec/resources.ts), pipelines and
// bind groups (exec/encode.ts) once, then decodes latent frames one chunk at a time (one command buffer
// per program run, tile-major or frame order), streaming frames as they complete.
// Lifetimes: weights, rings, slots, store, io, staging and uniforms live as long as the decoder (arena);
// ring counters are per decode (tile rings restart at every tile in tile-major order).
// Pipelining: two readback staging buffers; program run i+1 is encoded and submitted before the frames
// of run i are mapped and placed, so the GPU works while the CPU reads back, assembles and encodes.
// Faults: every submission has its own validation and out-of-memory error scopes, popped at once and
// awaited before the next submission (they resolve on the API side: no GPU round trip), so the decode
// stops at the first failing chunk with a DecoderError naming it (chunk, frames, tile, step) and no
// frame of that chunk or a later one is delivered.
import { DecoderError, summarizeGpuError } from '../gpu/errors';
import { PipelineCache, type AnyKernelDef, type Elem } from '../gpu/kernel';
import { weightsBlock } from '../kernels/weights-block';
import { weightsPack } from '../kernels/weights-pack';
import { winogradWeights } from '../kernels/winograd-weights';
import { conv3dTuning } from '../kernels/conv3d';
import { convWeightFormat } from '../model/quantize';
import type { Weights } from '../model/weights';
import type { StreamUploads } from '../options/decode-options';
import { Arena } from './arena';
import { FrameAssembler, type Frame } from './assembler';
import { CachePark } from './exec/cache-park';
import { StepEncoder } from './exec/encode';
import { Resources } from './exec/resources';
import { StoreWindow } from './exec/store-window';
import { Segments } from './exec/weight-stream';
import { prepareBlockedWeights, type BlockedWeightJob, type PrepCounts, type WeightPrepMode } from './exec/weights';
import { preparePackedWeights } from './exec/weights-pack';
import { prepareWinoWeights } from './exec/wino-weights';
import { storageBytes } from './f16';
import type { ChunkKind, OutputStep } from '../plan/graph';
import { checkLimits, type Plan, type ProgramPlan } from '../plan/planner';

export type { Frame } from './assembler';

/**
 * Fault injection: WAN_VAE_INJECT_VALIDATION=C (Node; C = a chunk index, counted from 0) makes chunk C's
 * first recorded copy (a ring push or a store write: needs cache on or a tiled plan) misaligned, a
 * validation error as a planner bug would cause (test/reliability/validation-chunk.node.test.ts).
 */
function validationInjection(): number | null {
  const v = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.WAN_VAE_INJECT_VALIDATION;
  if (v === undefined || v === '') return null;
  if (!/^\d+$/.test(v)) throw new DecoderError('bad-input', `WAN_VAE_INJECT_VALIDATION must be a chunk index (0, 1, ...), got '${v}'`);
  return Number(v);
}

/** Weight buffers released by a GpuDecoder (releaseWeights), by key, with what they hold. */
export interface ReleasedWeights {
  weights: Weights;
  format: string;
  buffers: Map<string, GPUBuffer>;
}

/** One moment of a decoder's build or of its first run (ms from the start of GpuDecoder.create). */
export interface BuildEvent {
  ms: number;
  /** 'pipeline <key>' (compiled), 'weights prepared', 'ready' (create returned), 'pipelines compiled', 'submit <chunk> steps a-b', 'placed <chunk>' */
  what: string;
}

/**
 * Where a GpuDecoder's build (GpuDecoder.create) spent its time (ms): allocation, the JS weight packing and
 * its uploads (resourcesMs), the pipelines' compilation (pipelinesMs, from the end of resourcesMs, until the
 * last pipeline is compiled), the GPU weight preparation until submitted (prepMs, same start), the build
 * up to the moment the first chunk may start (readyMs: weights prepared; with `overlap` the pipelines still
 * compile then), all (totalMs: resources, weights and every pipeline); `overlappedSubmits`: submissions of
 * the first runs made while pipelines were still compiling; `events`: the timeline (BuildEvent);
 * `prep`: what the tensor-core weights' preparation did, and how. Each decoder's own (GpuDecoder.build,
 * DecodeResult.startup), so two decoders never read each other's. pipelinesMs and totalMs are final once
 * the decode that built the decoder resolved (it waits for every pipeline).
 */
export interface BuildReport {
  resourcesMs: number;
  pipelinesMs: number;
  prepMs: number;
  readyMs: number;
  totalMs: number;
  overlappedSubmits: number;
  events: BuildEvent[];
  prep: PrepCounts & { mode: WeightPrepMode };
  /** what the portable convs' weight packing did (exec/weights-pack.ts) and the Winograd convs' U (exec/wino-weights.ts) */
  pack: PrepCounts;
  wino: PrepCounts;
}

export class GpuDecoder {
  readonly arena: Arena;
  private readonly elem: Elem;
  private readonly cache: PipelineCache;
  private res!: Resources;
  private store!: StoreWindow;
  private encoder!: StepEncoder;
  /** cache offload: the parked rings of the tiles not being decoded (null without it) */
  private park: CachePark | null = null;
  /** which of the two staging buffers the next run reads back into */
  private flip = 0;
  private disposed = false;
  /**
   * The error scopes of the last submission, popped (Dawn resolves them on the API side, without waiting
   * for the GPU): awaited before the next submission, so a decode stops at its first failing chunk (null:
   * nothing unchecked). Resolves to the fault, never rejects.
   */
  private unchecked: Promise<DecoderError | null> | null = null;
  /** where this decoder's build spent its time (filled by create) */
  readonly build: BuildReport = {
    resourcesMs: 0,
    pipelinesMs: 0,
    prepMs: 0,
    readyMs: 0,
    totalMs: 0,
    overlappedSubmits: 0,
    events: [],
    prep: { mode: 'gpu', gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 },
    pack: { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 },
    wino: { gpu: 0, js: 0, chunks: 0, uploadedBytes: 0, ms: 0 },
  };
  /** start of create (performance.now()): the origin of `build.events` */
  private t0 = 0;
  /** every pipeline compiled (null: all were when create returned); rejects with the first compile error */
  private compiling: Promise<void> | null = null;
  /** the first decode's submissions and placements go into `build.events` too */
  private timeline = true;

  private constructor(
    readonly device: GPUDevice,
    readonly plan: Plan,
    private readonly tuning: Record<string, number>,
    /** tensor cores: conv steps run conv3d-mma (f16 plans only) with this subgroup size; `emulate`: its scalar twin conv3d-mma-emu (tests on adapters without subgroup matrices) */
    private readonly mma: { subgroupSize: number; emulate?: boolean } | null = null,
  ) {
    this.arena = new Arena(device);
    this.elem = plan.opts.precision;
    this.cache = new PipelineCache(device);
  }

  /**
   * Allocates everything the plan lists, uploads the weights and asks for every pipeline.
   * `tuning`: conv3d tiling overrides for the adapter (conv3dTuningFor(info)); default the CPU-adapter tuning.
   * `mma`: run the convs on tensor cores (conv3d-mma; needs f16 storage and the device's subgroup-matrix feature).
   * `overlap` (default true): resolve once the weights are prepared, while pipelines still compile; the first
   * runs are then submitted step range by step range as their pipelines arrive (decode: same commands, same
   * bytes). false: resolve once every pipeline is compiled (the build before the first chunk).
   */
  static async create(
    device: GPUDevice,
    plan: Plan,
    weights: Weights,
    opts: { tuning?: Record<string, number>; mma?: { subgroupSize: number; emulate?: boolean } | null; reuse?: ReleasedWeights | null; weightPrep?: WeightPrepMode; overlap?: boolean } = {},
  ): Promise<GpuDecoder> {
    checkLimits(plan, device.limits);
    if (plan.opts.precision === 'f16' && !device.features.has('shader-f16'))
      throw new DecoderError('unsupported', "f16 storage needs the WebGPU feature 'shader-f16', which this adapter does not offer: use precision f32");
    if (opts.mma && plan.opts.precision !== 'f16') throw new DecoderError('unsupported', 'tensor cores (conv3d-mma) multiply f16 operands: they need precision f16');
    if (!!opts.mma !== !!plan.opts.tensorCores)
      throw new DecoderError('bad-input', `tensor cores ${opts.mma ? 'need a plan made with tensorCores (it counts their operand copy)' : 'were planned (tensorCores) but are not given (mma)'}`);
    const d = new GpuDecoder(device, plan, opts.tuning ?? conv3dTuning.cpu, opts.mma ?? null);
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let failure: unknown = null;
    try {
      // the previous decoder's weight buffers when they hold the same weights packed the same way
      const reuse = opts.reuse && opts.reuse.weights === weights && opts.reuse.format === d.weightFormat ? opts.reuse.buffers : undefined;
      const t0 = (d.t0 = performance.now());
      const prepMode = opts.weightPrep ?? 'gpu';
      d.build.prep.mode = prepMode;
      d.res = new Resources(device, d.arena, plan, weights, !!d.mma, reuse, prepMode);
      d.store = new StoreWindow(device, plan, d.res);
      if (plan.park) d.park = new CachePark(device, plan, d.res);
      d.encoder = new StepEncoder(device, d.cache, plan, d.res, d.store, { tuning: d.tuning, mma: d.mma });
      const t1 = performance.now();
      // the pipelines compile while the blocked weights are prepared on the GPU (exec/weights.ts; the
      // preparations' pipelines asked for first, so that they do not queue behind the decoder's)
      // (tensor cores: blocked, the operand copy as staging; portable convs: conv3d's layout, the largest
      // activation slot as staging, exec/weights-pack.ts; one after the other: both use the params buffer)
      const jobs = d.res.weightJobs;
      // (CPU adapters, known by their conv tuning (MODE 0 / 2): the GPU is this CPU, and small plans' slots
      // cut the weights into hundreds of chunks: JS packing, no staging; lavapipe, Wan2.1 at 2x2x3
      // latents: 4.4 s against 2.3 s)
      const staging = d.tuning.MODE === 1 ? d.res.slots.reduce<GPUBuffer | null>((a, b) => (a && a.size >= b.size ? a : b), null) : null;
      d.requestPrepPipelines(jobs, !!staging, prepMode);
      const prepared = (async () => {
        d.build.prep = {
          ...(await prepareBlockedWeights(
            device,
            d.cache,
            jobs.filter((j) => !j.portable && !j.wino),
            d.res.mmaScratch,
            d.res.uniforms,
            plan.uniformStride,
            prepMode,
          )),
          mode: prepMode,
        };
        d.build.pack = await preparePackedWeights(
          device,
          d.cache,
          jobs.filter((j) => j.portable),
          staging,
          d.res.uniforms,
          plan.uniformStride,
        );
        // Winograd convs' U through the Winograd scratch (CPU adapters too: its parts are whole weights)
        d.build.wino = await prepareWinoWeights(
          device,
          d.cache,
          jobs.filter((j) => j.wino),
          d.res.winoScratch,
          d.res.uniforms,
        );
        jobs.length = 0;
        weights.releaseReads(); // lazy weights: the last tensor and the upload's reused read buffers, not needed until a next build
        d.build.prepMs = performance.now() - t1;
        d.event('weights prepared');
      })();
      prepared.catch(() => undefined);
      // (every pipeline requested in this call, in program and step order: the first chunk's first)
      const built = d.encoder.build().then(() => {
        d.build.pipelinesMs = performance.now() - t1;
        for (const x of d.cache.times) if (x.ready !== undefined) d.build.events.push({ ms: x.ready - t0, what: `pipeline ${x.key}` });
        d.event('pipelines compiled');
      });
      built.catch(() => undefined);
      const done = Promise.all([prepared, built]).then(() => void (d.build.totalMs = performance.now() - t0));
      done.catch(() => undefined);
      d.build.resourcesMs = t1 - t0;
      await prepared;
      if (opts.overlap === false) await done;
      else d.compiling = done.then(() => void (d.compiling = null));
      d.build.readyMs = performance.now() - t0;
      d.event('ready');
    } catch (e) {
      failure = e;
    }
    const v = await device.popErrorScope();
    const m = await device.popErrorScope();
    if (failure || v || m) {
      d.dispose();
      if (m) throw new DecoderError('oom', `out of GPU memory while allocating the planned ${plan.memory.total} bytes: ${m.message}`);
      if (v) throw new DecoderError('validation', `building the decoder failed validation: ${v.message}`);
      throw failure;
    }
    return d;
  }

  /** Records a moment of the build or of the first run (BuildReport.events). */
  private event(what: string): void {
    this.build.events.push({ ms: performance.now() - this.t0, what });
  }

  /**
   * Asks for the weight preparations' pipelines (exec/weights.ts, weights-pack.ts, wino-weights.ts make the
   * same requests when they run: the cache shares them) before the decoder's own, so that they compile first.
   */
  private requestPrepPipelines(jobs: readonly BlockedWeightJob[], staging: boolean, mode: WeightPrepMode): void {
    const ask = (def: AnyKernelDef, ov: Record<string, number>, elem: Elem) => void this.cache.get(def, ov, elem).catch(() => undefined);
    if (mode === 'gpu' && jobs.some((j) => !j.portable && !j.wino) && this.res.mmaScratch) ask(weightsBlock, {}, 'f32');
    const portable = jobs.find((j) => j.portable);
    if (portable && staging) ask(weightsPack, { F16: portable.portable === 'f16' ? 1 : 0 }, 'f32');
    if (this.res.winoScratch) for (const j of jobs) if (j.wino && !j.winoRows) ask(winogradWeights(j.wino), {}, j.winoElem ?? 'f32');
  }

  /**
   * Decode de-normalised latents [z, T, h, w] (T = plan frames). Calls onFrame for every output frame in
   * order as soon as it is complete; resolves when all are done. `signal` cancels: checked before each
   * program run (and, with cache offload, each tile's submission) and before each frame is delivered, so
   * no frame arrives after the abort; the run already submitted is awaited (not delivered) so every
   * staging buffer is unmapped when this rejects and the next decode starts clean. Backpressure: a
   * Promise returned by onFrame is awaited before the next frame (and the run after the next) goes out.
   */
  async decode(latents: Float32Array, onFrame: (f: Frame) => unknown, signal?: AbortSignal): Promise<void> {
    if (this.disposed) throw new DecoderError('disposed', 'this decoder was disposed');
    const p = this.plan;
    const { frames: T, h, w } = p.opts;
    const z = p.cfg.zDim;
    if (latents.length !== z * T * h * w) throw new DecoderError('bad-input', `latents have ${latents.length} values, the plan expects [${z}, ${T}, ${h}, ${w}] = ${z * T * h * w}`);
    this.encoder.ringCounts.clear();
    this.encoder.injectValidation = validationInjection();
    this.unchecked = null;
    this.clearRings([...this.res.rings.keys()]);
    const asm = new FrameAssembler(p.height, p.width, p.opts.rgba, p.opts.tile?.mode === 'blend');
    const kindOf = (i: number): ChunkKind => (p.opts.cache === 'off' ? 'nocache' : i === 0 ? 'first' : 'steady');
    // frames of a later chunk (the tile programs write them in tile-major order, not the latent program)
    const steady = Math.max(0, ...(p.programs.steady ?? []).map((x) => x.prog.framesOut));
    const firstFrame = (i: number) => (p.opts.cache === 'off' || i === 0 ? i : 1 + (i - 1) * steady);
    const latentFrame = (i: number) => {
      const f = new Float32Array(z * h * w);
      for (let c = 0; c < z; c++) f.set(latents.subarray((c * T + i) * h * w, (c * T + i + 1) * h * w), c * h * w);
      return f;
    };
    const check = () => {
      if (signal?.aborted) throw new DecoderError('cancelled', 'decode cancelled');
    };
    const emit = async (i: number, n: number) => {
      for (let f = 0; f < n; f++) {
        check(); // a cancelled decode delivers nothing more, even from a chunk already read back
        await onFrame(asm.take(firstFrame(i) + f));
      }
    };
    // every readback not yet settled: awaited before this returns or rejects (a staging buffer still
    // being mapped would fail the next decode's mapAsync)
    const inflight = new Set<Promise<void>>();
    // the readback of the previous run, finished (frames placed, then emitted) after the next is submitted
    let pending: { placed: Promise<void>; after: () => void | Promise<void> } | null = null;
    const flush = async () => {
      const q = pending;
      pending = null;
      if (q) {
        await q.placed;
        await q.after();
      }
    };
    const submit = async (placed: Promise<void>, after: () => void | Promise<void>) => {
      placed.catch(() => undefined); // observed by flush; avoids an unhandled rejection meanwhile
      inflight.add(placed);
      void placed.finally(() => inflight.delete(placed)).catch(() => undefined);
      const prev = pending;
      pending = { placed, after };
      if (prev) {
        await prev.placed;
        await prev.after();
      }
    };
    // a run about to wait for pipelines still compiling (the build's overlap) first hands out the frames of
    // the run before it, once that run's submission passed: the first frame waits for chunk 0's pipelines
    // only, not for those of chunk 1 (H200, 2026-12-02, 0288184: the first frame came 130-210 ms after
    // chunk 0 was placed where later pipelines were still compiling, 20-35 ms otherwise)
    const early = async () => {
      await this.verify();
      await flush();
    };
    try {
      if (p.opts.tile?.order !== 'tile-major') {
        for (let i = 0; i < T; i++) {
          check();
          const prog = p.programs[kindOf(i)]![0]!;
          await submit((await this.run(prog, i, latentFrame(i), asm, firstFrame(i), check, early)).placed, () => emit(i, prog.prog.framesOut));
        }
        await this.verify(); // the last chunk's frames go out only once its submission passed
        await flush();
      } else {
        await this.tileMajor(T, kindOf, latentFrame, asm, firstFrame, check, emit, submit);
        await this.verify();
        await flush();
      }
      // pipelines of programs this decode did not run (a compile error surfaces here; the build report is complete)
      if (this.compiling) await this.compiling;
    } finally {
      this.timeline = false;
      await Promise.allSettled([...inflight]);
    }
  }

  /** Tile-major order: the latent-rate part of every chunk first (into the store), then tile by tile. */
  private async tileMajor(
    T: number,
    kindOf: (i: number) => ChunkKind,
    latentFrame: (i: number) => Float32Array,
    asm: FrameAssembler,
    firstFrame: (i: number) => number,
    check: () => void,
    emit: (i: number, n: number) => Promise<void>,
    submit: (placed: Promise<void>, after: () => void | Promise<void>) => Promise<void>,
  ): Promise<void> {
    const p = this.plan;
    for (let i = 0; i < T; i++) {
      check();
      await (
        await this.run(p.programs[kindOf(i)]![0]!, i, latentFrame(i), asm, firstFrame(i))
      ).placed;
    }
    const nTiles = p.tiles!.length;
    for (let j = 0; j < nTiles; j++) {
      for (const key of p.tileRingKeys) this.encoder.ringCounts.delete(key);
      this.clearRings(p.tileRingKeys);
      for (let i = 0; i < T; i++) {
        check();
        const prog = p.programs[kindOf(i)]![1 + j]!;
        await submit((await this.run(prog, i, null, asm, firstFrame(i))).placed, () => (j === nTiles - 1 ? emit(i, prog.prog.framesOut) : undefined));
      }
    }
  }

  /**
   * Zero the rings `keys` on the GPU (clearBuffer: no host traffic; 3.5 GiB at 480x832 f32). The convs
   * never read a ring frame before it is written (tap0 skips them), so this is defence in depth. It used
   * to be a writeBuffer of host zeros: 1.3 s per GiB on this 2-core machine vs 0.13 s for clearBuffer,
   * and the likely cause of the H200 probe's 2.4 s of GPU idle in a 4.8 s 480x832 decode.
   */
  private clearRings(keys: string[]): void {
    const enc = this.device.createCommandEncoder({ label: 'clear rings' });
    for (const k of keys) enc.clearBuffer(this.res.rings.get(k)!);
    this.device.queue.submit([enc.finish()]);
  }

  /**
   * Encode and submit one program run for chunk `chunk`. Resolves once submitted (after the 'cpu' store
   * readback, which the next runs need) with a promise that resolves when its output regions are read
   * back and placed (uses one of the two staging buffers: at most one run may be unread at a time).
   */
  private async run(
    pp: ProgramPlan,
    chunk: number,
    latentFrame: Float32Array | null,
    asm: FrameAssembler,
    firstFrame: number,
    check?: () => void,
    /** called (awaited) before this run waits for a pipeline that is still compiling */
    beforeWait?: () => Promise<void>,
  ): Promise<{ placed: Promise<void> }> {
    const p = this.plan;
    const r = this.res;
    // one submission, or (cache offload) one per tile: the tile's rings uploaded before, read back after;
    // while pipelines still compile (create's overlap), one per range of steps whose pipelines are there
    if (this.park && this.compiling) {
      await beforeWait?.();
      await this.compiling; // (cache offload: its segments are whole tiles)
    }
    const dynamic = !this.park && this.compiling !== null;
    const segments: { from: number; to: number; tile: number | null }[] = this.park ? this.park.segments(pp) : dynamic ? [] : [{ from: 0, to: Infinity, tile: null }];
    const nSteps = pp.prog.steps.length;
    const outputs = pp.prog.steps.filter((s): s is OutputStep => s.kind === 'output');
    const rgbBytes = pp.prog.outElems * 4,
      rgbaBytes = p.outRgbaElems ? pp.prog.outRgbaElems * 4 : 0;
    const staging = r.staging[this.flip]!;
    for (let k = 0, from = 0; dynamic ? from < nSteps : k < segments.length; k++) {
      if (dynamic) {
        // the steps from `from` whose pipelines are compiled (at least one: wait for the next)
        let to = this.encoder.readyEnd(pp, from);
        if (to === from) await beforeWait?.();
        while (to === from) {
          await this.encoder.stepReady(pp, from);
          to = this.encoder.readyEnd(pp, from);
        }
        if (this.compiling) this.build.overlappedSubmits++; // (submitted while some pipeline still compiles)
        segments[k] = { from, to: to === nSteps ? Infinity : to, tile: null };
        from = to;
      }
      const seg = segments[k]!;
      if (this.timeline) this.event(`submit ${chunk} steps ${seg.from}-${Math.min(seg.to, nSteps) - 1}${seg.tile === null ? '' : ` tile ${seg.tile}`}`);
      const lastSeg = dynamic ? seg.to === Infinity : k === segments.length - 1;
      if (k) check?.(); // cancelled between the tiles (or step ranges) of a chunk
      // the previous submission (the previous chunk, or tile of this chunk) must have passed before this one goes out
      await this.verify();
      let parked = false;
      await this.checked(
        () => this.where(pp, chunk, firstFrame, outputs.length > 0, seg.tile),
        async () => {
          if (k === 0) {
            if (latentFrame) this.device.queue.writeBuffer(r.latent, 0, storageBytes(latentFrame, this.elem));
            await this.store.beforeRun(pp, chunk);
          }
          // weight streaming: one encoder per weight group, each group written into its ring slot before it (exec/weight-stream.ts)
          const segs = new Segments(this.device, `${pp.prog.name} ${pp.prog.kind} chunk ${chunk}${seg.tile === null ? '' : ` tile ${seg.tile}`}`, r.stream);
          if (seg.tile !== null) this.park!.before(seg.tile, chunk, segs.first);
          this.encoder.encode(pp, chunk, segs.first, seg.from, seg.to, segs.split);
          const enc = segs.last;
          parked = seg.tile !== null && this.park!.copyOut(seg.tile, chunk, enc);
          if (lastSeg) {
            if (rgbBytes) {
              this.flip ^= 1;
              enc.copyBufferToBuffer(r.out, 0, staging, 0, rgbBytes);
            }
            if (rgbaBytes) enc.copyBufferToBuffer(r.rgba, 0, staging, p.outElems * 4, rgbaBytes);
          }
          await segs.submit();
        },
      );
      if (parked) await this.park!.readBack(seg.tile!, check);
    }
    await this.store.afterSubmit(pp, chunk);
    if (!rgbBytes) return { placed: this.device.queue.onSubmittedWorkDone() };
    const placed = (async () => {
      await staging.mapAsync(GPUMapMode.READ);
      try {
        const rgb = new Float32Array(staging.getMappedRange(0, rgbBytes));
        const rgba = rgbaBytes ? new Uint32Array(staging.getMappedRange(p.outElems * 4, rgbaBytes)) : null;
        for (const o of outputs) {
          const px = o.region.oh * o.region.ow;
          asm.place(firstFrame + o.frame, o.region, rgb.subarray(o.rgbOff, o.rgbOff + 3 * px), rgba ? rgba.subarray(o.rgbaOff, o.rgbaOff + px) : null);
        }
      } finally {
        staging.unmap();
      }
      if (this.timeline) this.event(`placed ${chunk}`);
    })();
    return { placed };
  }

  /**
   * Runs `record` (recording and submitting one submission) inside its own validation and out-of-memory
   * error scopes, popped as soon as it has submitted, without waiting for the GPU: verify() awaits the
   * result before the next submission. `record` awaits only streamed weight uploads (exec/weight-stream.ts:
   * a mapped upload buffer); nothing else of this decoder records meanwhile, but an error of other work on the
   * same device in that wait (an onFrame callback drawing with it) lands in these scopes and stops the decode
   * as this submission's. `where` names the submission in the error.
   */
  private async checked(where: () => string, record: () => void | Promise<void>): Promise<void> {
    const d = this.device;
    d.pushErrorScope('out-of-memory');
    d.pushErrorScope('validation');
    try {
      await record();
    } finally {
      this.unchecked = Promise.all([d.popErrorScope(), d.popErrorScope()]).then(
        ([v, m]) => {
          const e = v ?? m;
          if (!e) return null;
          const { text, group } = summarizeGpuError(e.message);
          const at = `${where()}${group ? ` at step ${group}` : ''}`;
          return v ? new DecoderError('validation', `${at} failed validation; the decode stopped there: ${text}`) : new DecoderError('oom', `out of GPU memory in ${at}: ${text}`);
        },
        () => null, // a lost device: reported by the device-lost path
      );
    }
  }

  /** Throws the fault of the last submission, if any (its error scopes resolve without a GPU round trip). */
  private async verify(): Promise<void> {
    const u = this.unchecked;
    this.unchecked = null;
    const e = u && (await u);
    if (e) throw e;
  }

  /** Names a submission: chunk (latent frame) of the decode, the output frames it writes, its tile. */
  private where(pp: ProgramPlan, chunk: number, firstFrame: number, outputs: boolean, segTile: number | null): string {
    const T = this.plan.opts.frames;
    const n = pp.prog.framesOut;
    const frames = !outputs ? ' (latent-rate part)' : n === 1 ? ` (frame ${firstFrame})` : ` (frames ${firstFrame}-${firstFrame + n - 1})`;
    const m = /^tile (\d+)$/.exec(pp.prog.name);
    const j = segTile ?? (m ? Number(m[1]) : null);
    const t = j === null ? undefined : this.plan.tiles?.[j];
    const tile = j === null ? '' : `, tile ${j} of ${this.plan.tiles?.length ?? '?'}${t ? ` (latent x ${t.core.x0}-${t.core.x1}, y ${t.core.y0}-${t.core.y1})` : ''}`;
    return `chunk ${chunk} of 0-${T - 1}${frames}${tile}`;
  }

  /** How the weight buffers are packed: storage, conv weight format, tensor-core layout (equal: reusable). */
  private get weightFormat(): string {
    return `${this.plan.opts.precision}|${convWeightFormat(this.plan.opts.precision, this.plan.opts.weightsPrecision)}|${this.mma ? `mma${this.mma.emulate ? '-emu' : ''}` : 'portable'}`;
  }

  /**
   * Takes the weight buffers out of this decoder, for the next decoder built on the same device (a new
   * plan of the same model: GpuDecoder.create's `reuse` adopts them instead of uploading again). Dispose
   * this decoder next; destroy what the next one did not adopt with `destroyReleased(r.buffers.values())`.
   */
  releaseWeights(weights: Weights): ReleasedWeights {
    const buffers = new Map(this.arena.release('weights').map((b) => [b.label, b] as const));
    return { weights, format: this.weightFormat, buffers };
  }

  /** weight streaming: bytes and writes uploaded into the ring since the decoder was built, ms waiting for an upload buffer and the rest of the uploads' JS time (null: resident weights) */
  get weightStream(): StreamUploads | null {
    return this.res?.stream ?? null;
  }

  dispose(): void {
    this.disposed = true;
    this.res?.stream?.destroy();
    this.store?.destroy();
    this.arena.dispose();
  }
}
