// GPU decoder: builds the arena and every pipeline and bind group of a Plan once, then decodes latent
// frames one chunk at a time (one command buffer per program run), streaming frames as they complete.
// Lifetimes: weights, rings, slots, store, io, staging and uniforms live as long as the decoder (arena);
// ring counters are per decode (tile rings restart at every tile in tile-major order).
// Pipelining: two readback staging buffers; program run i+1 is encoded and submitted before the frames
// of run i are mapped and placed, so the GPU works while the CPU reads back, assembles and encodes.
import { DecoderError } from '../gpu/errors';
import { encodeParams, PipelineCache, type AnyKernelDef, type Elem } from '../gpu/kernel';
import { conv3dTuning, conv3dTuningForCout, packConvWeight } from '../kernels/conv3d';
import { conv3dMma, conv3dMmaEmu, conv3dMmaPack, mmaScratchElems, packConvWeightBlocked } from '../kernels/conv3d-mma';
import { kernels } from '../kernels/index';
import { invMaxFor } from '../kernels/rms-norm';
import type { Weights } from '../model/weights';
import { Arena } from './arena';
import { FrameAssembler, type Frame } from './assembler';
import { storageBytes } from './f16';
import type { ChunkKind, OutputStep, Program, Step, View } from './graph';
import { checkLimits, dispatchesOf, weightBuffers, type Plan, type ProgramPlan } from './planner';

export type { Frame } from './assembler';

interface Encoded {
  step: Step;
  def: AnyKernelDef;
  overrides: Record<string, number>;
  pipeline: GPUComputePipeline;
  group: GPUBindGroup | null;
  /** tensor cores: the operand copy (conv3d-mma-pack) dispatched just before, with the same params */
  pack?: { def: AnyKernelDef; overrides: Record<string, number>; pipeline: GPUComputePipeline; group: GPUBindGroup };
}

/** Tensor cores run every conv with at least 16 output channels (the 3-channel head stays portable). */
const onTensorCores = (s: Step): boolean => s.kind === 'conv' && s.cout >= 16;

// a function, not a constant: GPUBufferUsage exists only once WebGPU is installed (Node: at run time)
const storageUsage = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;

export class GpuDecoder {
  readonly arena: Arena;
  private readonly elem: Elem;
  private readonly cache: PipelineCache;
  private readonly weightBufs = new Map<string, GPUBuffer>();
  private slotBufs: GPUBuffer[] = [];
  private readonly ringBufs = new Map<string, GPUBuffer>();
  private readonly counters = new Map<string, number>();
  private latentBuf!: GPUBuffer;
  private storeBuf: GPUBuffer | null = null;
  /** 'cpu' store: readback buffer of one chunk's entries, and every chunk's entries in host memory */
  private storeStaging: GPUBuffer | null = null;
  private readonly hostStore: Uint8Array<ArrayBuffer>[] = [];
  private outBuf!: GPUBuffer;
  private rgbaBuf!: GPUBuffer;
  /** two readback buffers, alternating between program runs (run i+1 is submitted while run i is read) */
  private stagingBufs: GPUBuffer[] = [];
  private flip = 0;
  private uniformBuf!: GPUBuffer;
  private dummy!: GPUBuffer;
  /** tensor cores: the blocked operand copy, one conv call at a time (conv3d-mma-pack writes, conv3d-mma reads) */
  private mmaScratch: GPUBuffer | null = null;
  private paramsGroup!: GPUBindGroup;
  private readonly encoded = new Map<Program, Encoded[]>();
  private disposed = false;

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

  /** Allocates everything the plan lists, uploads the weights and compiles every pipeline. */
  /** `tuning`: conv3d tiling overrides for the adapter (conv3dTuningFor(info)); default the CPU-adapter tuning. */
  /** `mma`: run the convs on tensor cores (conv3d-mma; needs f16 storage and the device's subgroup-matrix feature). */
  static async create(device: GPUDevice, plan: Plan, weights: Weights, opts: { tuning?: Record<string, number>; mma?: { subgroupSize: number; emulate?: boolean } | null } = {}): Promise<GpuDecoder> {
    checkLimits(plan, device.limits);
    if (plan.opts.precision === 'f16' && !device.features.has('shader-f16'))
      throw new DecoderError('unsupported', "f16 storage needs the WebGPU feature 'shader-f16', which this adapter does not offer: use precision f32");
    if (opts.mma && plan.opts.precision !== 'f16')
      throw new DecoderError('unsupported', 'tensor cores (conv3d-mma) multiply f16 operands: they need precision f16');
    const d = new GpuDecoder(device, plan, opts.tuning ?? conv3dTuning.cpu, opts.mma ?? null);
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let failure: unknown = null;
    try {
      d.allocate(weights);
      await d.build();
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

  private programs(): ProgramPlan[] {
    return Object.values(this.plan.programs).flat();
  }

  private upload(label: string, data: Float32Array): GPUBuffer {
    const bytes = storageBytes(data, this.elem);
    const buf = this.arena.create('weights', label, bytes.byteLength, storageUsage());
    this.device.queue.writeBuffer(buf, 0, bytes);
    return buf;
  }

  private allocate(weights: Weights): void {
    const p = this.plan;
    // weights: exactly the buffers the planner counted (every conv / norm the steps name), packed once
    for (const { key, step: s } of weightBuffers(this.programs().map((x) => x.prog))) {
      if (s.kind === 'conv' && key.endsWith('.weight')) {
        const w = weights.get(key);
        const want = s.up ? [s.cout, s.cin, 3, 3] : w.shape.length === 4 ? [s.cout, s.cin, 1, 1] : [s.cout, s.cin, s.kt, s.ks, s.ks];
        weights.get(key, want);
        const packed = this.mma && onTensorCores(s) ? packConvWeightBlocked(w.data, s.cout, s.cin, s.kt, s.ks) : packConvWeight(w.data, s.cout, s.cin, s.kt, s.ks);
        this.weightBufs.set(key, this.upload(key, packed));
      } else if (s.kind === 'conv') this.weightBufs.set(key, this.upload(key, weights.get(key, [s.cout]).data));
      else if (s.kind === 'norm') this.weightBufs.set(key, this.upload(key, weights.get(key, [s.c]).data));
    }
    for (const r of p.rings) this.ringBufs.set(r.key, this.arena.create('cache', `cache ${r.key} ${r.label}`, r.bytes, storageUsage()));
    this.slotBufs = p.slots.map((s) => this.arena.create('activations', `slot ${s.index}`, s.bytes, storageUsage()));
    if (p.memory.store) this.storeBuf = this.arena.create('store', p.storeWhere === 'cpu' ? 'latent-rate store window (one chunk)' : 'latent-rate store', p.memory.store, storageUsage());
    if (p.storeWhere === 'cpu') this.storeStaging = this.arena.create('staging', 'store readback', p.memory.store, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    this.latentBuf = this.arena.create('io', 'latent frame', Math.ceil((p.cfg.zDim * p.opts.h * p.opts.w * p.elemBytes) / 4) * 4, storageUsage());
    this.outBuf = this.arena.create('io', 'output rgb', p.outElems * 4, storageUsage());
    this.rgbaBuf = p.outRgbaElems ? this.arena.create('io', 'output rgba', p.outRgbaElems * 4, storageUsage()) : (null as unknown as GPUBuffer);
    this.dummy = this.arena.create('io', 'unused binding', 4, storageUsage());
    if (this.mma) {
      // the largest operand copy of any conv call (not in the plan's figures yet: counted as activations here)
      let elems = 0;
      for (const pp of this.programs())
        for (const s of pp.prog.steps) if (s.kind === 'conv' && onTensorCores(s)) elems = Math.max(elems, mmaScratchElems(s, s.kt, s.ks));
      if (elems) this.mmaScratch = this.arena.create('activations', 'tensor-core operand copy', Math.ceil((elems * p.elemBytes) / 4) * 4, storageUsage());
    }
    this.rgbaBuf ??= this.dummy;
    for (const k of [0, 1])
      this.stagingBufs.push(this.arena.create('staging', `readback ${k}`, (p.outElems + p.outRgbaElems) * 4, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST));
    this.uniformBuf = this.arena.create('uniforms', 'params', p.maxDispatches * p.uniformStride, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  }

  private buf(v: View, pp: ProgramPlan): GPUBuffer {
    if (v.t.io === 'latent') return this.latentBuf;
    return this.slotBufs[pp.slotOf[v.t.id]!]!;
  }

  /** True when the planner gave a step's output the slot of input `v` (an in-place update). */
  private inPlace(pp: ProgramPlan, v: View | undefined, y: View): boolean {
    return !!v && v.t !== y.t && !v.t.io && pp.slotOf[v.t.id] === pp.slotOf[y.t.id];
  }

  private stepKernel(s: Step, pp: ProgramPlan): { def: AnyKernelDef; overrides: Record<string, number> } | null {
    switch (s.kind) {
      case 'conv': {
        const res = s.res ? (this.inPlace(pp, s.res, s.y) ? 2 : 1) : 0;
        const common = { KT: s.kt, KS: s.ks, UP: s.up, HAS_RES: res, NORM: s.norm ? 1 : 0, SILU: s.norm?.silu ? 1 : 0 };
        if (this.mma && onTensorCores(s)) return { def: this.mma.emulate ? conv3dMmaEmu : conv3dMma, overrides: { KT: s.kt, KS: s.ks, HAS_RES: res, SG: this.mma.subgroupSize } };
        return { def: kernels.conv3d, overrides: { ...common, ...conv3dTuningForCout(this.tuning, s.cout, this.device.limits.maxComputeInvocationsPerWorkgroup) } };
      }
      case 'norm':
        return { def: kernels.rmsNorm, overrides: { SILU: s.silu ? 1 : 0, STATS: s.stats ? 1 : 0, INPLACE: !s.stats && this.inPlace(pp, s.x, s.y) ? 1 : 0, INV_MAX: invMaxFor(this.elem) } };
      case 'attn':
        return { def: kernels.attention, overrides: {} };
      case 'dupadd':
        return { def: kernels.dupUpAdd, overrides: {} };
      case 'crop':
        return { def: kernels.crop, overrides: {} };
      case 'output':
        return { def: kernels.output, overrides: { PATCH: this.plan.cfg.patch } };
      case 'store':
        return null; // a buffer copy
    }
  }

  private bindings(s: Step, pp: ProgramPlan): GPUBuffer[] {
    const b = (v: View) => this.buf(v, pp);
    switch (s.kind) {
      case 'conv': {
        const res = s.res && !this.inPlace(pp, s.res, s.y) ? b(s.res) : this.dummy;
        const gamma = s.norm ? this.weightBufs.get(s.norm.gkey)! : this.dummy;
        if (this.mma && onTensorCores(s)) return [this.mmaScratch!, this.weightBufs.get(`${s.wkey}.weight`)!, this.weightBufs.get(`${s.wkey}.bias`)!, res, b(s.y)];
        return [b(s.x), s.ring ? this.ringBufs.get(s.ring)! : this.dummy, this.weightBufs.get(`${s.wkey}.weight`)!, this.weightBufs.get(`${s.wkey}.bias`)!, res, b(s.y), gamma];
      }
      case 'norm':
        // stats and in-place norms read their input through the y binding
        return [s.stats || this.inPlace(pp, s.x, s.y) ? this.dummy : b(s.x), this.weightBufs.get(s.gkey)!, b(s.y)];
      case 'attn':
        return [b(s.qkv), b(s.o)];
      case 'dupadd':
        return [b(s.x), b(s.y)];
      case 'crop':
        return ['store' in s.x ? this.storeBuf! : b(s.x), b(s.y)];
      case 'output':
        return [b(s.x), this.outBuf, this.rgbaBuf];
      case 'store':
        return [];
    }
  }

  /** Compile every pipeline (in parallel) and build every bind group of every program. */
  private async build(): Promise<void> {
    const jobs: Promise<void>[] = [];
    for (const pp of this.programs()) {
      const list: Encoded[] = [];
      for (const step of pp.prog.steps) {
        const k = this.stepKernel(step, pp);
        const e = { step, def: k?.def, overrides: k?.overrides ?? {}, group: null } as unknown as Encoded;
        if (k && !(step.kind === 'crop' && 'store' in step.x)) {
          e.group = this.device.createBindGroup({
            label: step.label,
            layout: this.cache.bindGroupLayout(k.def),
            entries: this.bindings(step, pp).map((buffer, i) => ({ binding: i, resource: { buffer } })),
          });
        }
        if (k) jobs.push(this.cache.get(k.def, k.overrides, this.elem).then((p) => void (e.pipeline = p)));
        if (step.kind === 'conv' && this.mma && onTensorCores(step)) {
          // the operand copy: conv3d-mma-pack reads what conv3d would (x, the ring, gamma) into the scratch
          const s = step;
          const ov = { KT: s.kt, KS: s.ks, UP: s.up, NORM: s.norm ? 1 : 0, SILU: s.norm?.silu ? 1 : 0 };
          const gamma = s.norm ? this.weightBufs.get(s.norm.gkey)! : this.dummy;
          const bufs = [this.buf(s.x, pp), s.ring ? this.ringBufs.get(s.ring)! : this.dummy, gamma, this.mmaScratch!];
          const group = this.device.createBindGroup({ label: `${s.label} pack`, layout: this.cache.bindGroupLayout(conv3dMmaPack), entries: bufs.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
          jobs.push(this.cache.get(conv3dMmaPack, ov, this.elem).then((pipeline) => void (e.pack = { def: conv3dMmaPack, overrides: ov, pipeline, group })));
        }
        list.push(e);
      }
      this.encoded.set(pp.prog, list);
    }
    await Promise.all(jobs);
    this.paramsGroup = this.device.createBindGroup({
      label: 'params',
      layout: this.cache.paramsLayout,
      entries: [{ binding: 0, resource: { buffer: this.uniformBuf, size: 256 } }],
    });
  }

  /** Byte offset of store entry (chunk, which) in the GPU store (the 'cpu' store's window holds one chunk); entries are bound one at a time (binding-size limit). */
  private storeOffset(chunk: number, which: number): number {
    return ((this.plan.storeWhere === 'cpu' ? 0 : chunk * this.plan.storePerChunk) + which) * this.plan.storeEntryBytes;
  }

  private readonly storeGroups = new Map<string, GPUBindGroup>();

  /** Bind group of a crop from the store entry of `chunk` (one per step and chunk, made once). */
  private storeGroup(e: Encoded, pp: ProgramPlan, chunk: number, which: number): GPUBindGroup {
    const key = `${pp.prog.name}|${pp.prog.kind}|${e.step.label}|${this.storeOffset(chunk, which)}`;
    let g = this.storeGroups.get(key);
    if (!g) {
      const s = e.step as Extract<Step, { kind: 'crop' }>;
      g = this.device.createBindGroup({
        label: `${s.label} chunk ${chunk}`,
        layout: this.cache.bindGroupLayout(e.def),
        entries: [
          { binding: 0, resource: { buffer: this.storeBuf!, offset: this.storeOffset(chunk, which), size: this.plan.storeEntryBytes } },
          { binding: 1, resource: { buffer: this.buf(s.y, pp) } },
        ],
      });
      this.storeGroups.set(key, g);
    }
    return g;
  }

  /** Params of each dispatch of step `s` (several for a chunked norm) at the current ring counters. */
  private dispatchParams(s: Step): Record<string, number>[] {
    if (s.kind !== 'norm') return [this.params(s)];
    return Array.from({ length: dispatchesOf(s) }, (_, j) => {
      const p0 = j * s.chunk;
      return { c: s.c, hw: s.hw, x_off: s.x.off, y_off: s.y.off, p0, np: Math.min(s.chunk, s.hw - p0) };
    });
  }

  /** Params of step `s` at the current ring counters (counters advance when the program is encoded). */
  private params(s: Exclude<Step, { kind: 'norm' }>): Record<string, number> {
    switch (s.kind) {
      case 'conv': {
        let prev2 = 0, prev1 = 0, tap0 = s.kt === 3 ? 2 : 0;
        if (s.ring) {
          const k = this.counters.get(s.ring) ?? 0;
          prev2 = (k & 1) * s.ringFrame;
          prev1 = ((k + 1) & 1) * s.ringFrame;
          tap0 = Math.max(0, 2 - k);
        }
        return { cin: s.cin, cout: s.cout, h: s.h, w: s.w, x_off: s.x.off, prev2_off: prev2, prev1_off: prev1, res_off: s.res?.off ?? 0, y_off: s.y.off, tap0 };
      }
      case 'attn':
        return { c: s.c, n: s.n, scale: 1 / Math.sqrt(s.c) };
      case 'dupadd':
        return { cout: s.d.cout, h: s.h, w: s.w, cin: s.d.cin, ft: s.d.ft, fs: s.d.fs, r: s.d.r, a: s.a, x_off: s.x.off, y_off: s.y.off };
      case 'crop':
        return { c: s.c, src_h: s.srcH, src_w: s.srcW, y0: s.y0, x0: s.x0, h: s.h, w: s.w, x_off: 'store' in s.x ? 0 : s.x.off, y_off: s.y.off };
      case 'output': {
        const r = s.region;
        return { h: s.h, w: s.w, x_off: s.x.off, cy: r.cy, cx: r.cx, oh: r.oh, ow: r.ow, rgb_off: s.rgbOff, rgba_off: s.rgbaOff };
      }
      case 'store':
        return {};
    }
  }

  /**
   * Decode de-normalised latents [z, T, h, w] (T = plan frames). Calls onFrame for every output frame in
   * order as soon as it is complete; resolves when all are done. `signal` cancels between program runs.
   */
  async decode(latents: Float32Array, onFrame: (f: Frame) => void, signal?: AbortSignal): Promise<void> {
    if (this.disposed) throw new DecoderError('device-lost', 'this decoder was disposed');
    const p = this.plan;
    const { frames: T, h, w } = p.opts;
    const z = p.cfg.zDim;
    if (latents.length !== z * T * h * w)
      throw new DecoderError('bad-input', `latents have ${latents.length} values, the plan expects [${z}, ${T}, ${h}, ${w}] = ${z * T * h * w}`);
    this.counters.clear();
    this.clearRings([...this.ringBufs.keys()]);
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
      if (signal?.aborted) throw new DecoderError('bad-input', 'decode cancelled');
    };
    const emit = (i: number, n: number) => {
      for (let f = 0; f < n; f++) onFrame(asm.take(firstFrame(i) + f));
    };
    // the readback of the previous run, finished (frames placed, then emitted) after the next is submitted
    let pending: { placed: Promise<void>; after: () => void } | null = null;
    const flush = async () => {
      const q = pending;
      pending = null;
      if (q) {
        await q.placed;
        q.after();
      }
    };
    const submit = async (placed: Promise<void>, after: () => void) => {
      placed.catch(() => undefined); // observed by flush; avoids an unhandled rejection meanwhile
      await flush();
      pending = { placed, after };
    };
    try {
      if (p.opts.tile?.order !== 'tile-major') {
        for (let i = 0; i < T; i++) {
          check();
          const prog = p.programs[kindOf(i)]![0]!;
          await submit((await this.run(prog, i, latentFrame(i), asm, firstFrame(i))).placed, () => emit(i, prog.prog.framesOut));
        }
        return await flush();
      }
      await this.tileMajor(T, kindOf, latentFrame, asm, firstFrame, check, emit, submit);
      await flush();
    } finally {
      if (pending) await (pending as { placed: Promise<void> }).placed.catch(() => undefined);
    }
  }

  /** Tile-major order: the latent-rate part of every chunk first (into the store), then tile by tile. */
  private async tileMajor(
    T: number, kindOf: (i: number) => ChunkKind, latentFrame: (i: number) => Float32Array, asm: FrameAssembler, firstFrame: (i: number) => number,
    check: () => void, emit: (i: number, n: number) => void, submit: (placed: Promise<void>, after: () => void) => Promise<void>,
  ): Promise<void> {
    const p = this.plan;
    for (let i = 0; i < T; i++) {
      check();
      await (await this.run(p.programs[kindOf(i)]![0]!, i, latentFrame(i), asm, firstFrame(i))).placed;
    }
    const nTiles = p.tiles!.length;
    for (let j = 0; j < nTiles; j++) {
      for (const key of p.tileRingKeys) this.counters.delete(key);
      this.clearRings(p.tileRingKeys);
      for (let i = 0; i < T; i++) {
        check();
        const prog = p.programs[kindOf(i)]![1 + j]!;
        await submit((await this.run(prog, i, null, asm, firstFrame(i))).placed, () => {
          if (j === nTiles - 1) emit(i, prog.prog.framesOut);
        });
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
    for (const k of keys) enc.clearBuffer(this.ringBufs.get(k)!);
    this.device.queue.submit([enc.finish()]);
  }

  /**
   * Encode and submit one program run for chunk `chunk`. Resolves once submitted (after the 'cpu' store
   * readback, which the next runs need) with a promise that resolves when its output regions are read
   * back and placed (uses one of the two staging buffers: at most one run may be unread at a time).
   */
  private async run(pp: ProgramPlan, chunk: number, latentFrame: Float32Array | null, asm: FrameAssembler, firstFrame: number): Promise<{ placed: Promise<void> }> {
    const p = this.plan;
    const list = this.encoded.get(pp.prog)!;
    if (latentFrame) this.device.queue.writeBuffer(this.latentBuf, 0, storageBytes(latentFrame, this.elem));
    const hostStore = p.storeWhere === 'cpu';
    // 'cpu' store: a program that crops from the store reads this chunk's entries from the window
    if (hostStore && pp.prog.steps.some((s) => s.kind === 'crop' && 'store' in s.x)) this.device.queue.writeBuffer(this.storeBuf!, 0, this.hostStore[chunk]!);
    const uni = new Uint8Array(p.maxDispatches * p.uniformStride);
    // per step: its dispatches as (uniform slot, workgroup counts)
    const calls: { slot: number; counts: [number, number, number]; pack?: [number, number, number] }[][] = [];
    let slot = 0;
    const copies: ({ src: GPUBuffer; srcOff: number; dst: GPUBuffer; dstOff: number; bytes: number } | null)[] = [];
    const align = (n: number) => Math.ceil(n / 4) * 4;
    list.forEach((e) => {
      const s = e.step;
      const mine: { slot: number; counts: [number, number, number]; pack?: [number, number, number] }[] = [];
      if (e.def)
        for (const prm of this.dispatchParams(s)) {
          uni.set(encodeParams(e.def, prm), slot * p.uniformStride);
          // the pack shares the conv's params (the same struct): same uniform slot
          const pack = e.pack ? e.pack.def.dispatch(prm, { ...e.pack.def.overrides, ...e.pack.overrides }) : undefined;
          mine.push({ slot: slot++, counts: e.def.dispatch(prm, { ...e.def.overrides, ...e.overrides }), pack });
        }
      calls.push(mine);
      if (s.kind === 'conv' && s.ring) {
        // the cache stores the conv input: copy it over frame t-2 once the conv has read it
        const k = this.counters.get(s.ring) ?? 0;
        copies.push({ src: this.buf(s.x, pp), srcOff: s.x.off * p.elemBytes, dst: this.ringBufs.get(s.ring)!, dstOff: (k & 1) * s.ringFrame * p.elemBytes, bytes: align(s.ringFrame * p.elemBytes) });
        this.counters.set(s.ring, k + 1);
      } else if (s.kind === 'store') {
        const dst = hostStore ? this.storeStaging! : this.storeBuf!;
        copies.push({ src: this.buf(s.x, pp), srcOff: s.x.off * p.elemBytes, dst, dstOff: this.storeOffset(chunk, s.which), bytes: align(s.elems * p.elemBytes) });
      } else copies.push(null);
    });
    this.device.queue.writeBuffer(this.uniformBuf, 0, uni, 0, slot * p.uniformStride);
    const enc = this.device.createCommandEncoder({ label: `${pp.prog.name} ${pp.prog.kind} chunk ${chunk}` });
    let pass: GPUComputePassEncoder | null = null;
    list.forEach((e, i) => {
      if (e.def) {
        pass ??= enc.beginComputePass({ label: pp.prog.name });
        pass.setPipeline(e.pipeline);
        const s = e.step;
        pass.setBindGroup(0, s.kind === 'crop' && 'store' in s.x ? this.storeGroup(e, pp, chunk, s.x.store) : e.group!);
        for (const c of calls[i]!) {
          pass.setBindGroup(1, this.paramsGroup, [c.slot * p.uniformStride]);
          if (e.pack && c.pack) {
            pass.setPipeline(e.pack.pipeline);
            pass.setBindGroup(0, e.pack.group);
            pass.dispatchWorkgroups(...c.pack);
            pass.setPipeline(e.pipeline);
            pass.setBindGroup(0, e.group!);
          }
          pass.dispatchWorkgroups(...c.counts);
        }
      }
      const c = copies[i];
      if (c) {
        pass?.end();
        pass = null;
        enc.copyBufferToBuffer(c.src, c.srcOff, c.dst, c.dstOff, c.bytes);
      }
    });
    (pass as GPUComputePassEncoder | null)?.end();
    const outputs = pp.prog.steps.filter((s): s is OutputStep => s.kind === 'output');
    const rgbBytes = pp.prog.outElems * 4, rgbaBytes = p.outRgbaElems ? pp.prog.outRgbaElems * 4 : 0;
    const staging = this.stagingBufs[this.flip]!;
    if (rgbBytes) {
      this.flip ^= 1;
      enc.copyBufferToBuffer(this.outBuf, 0, staging, 0, rgbBytes);
    }
    if (rgbaBytes) enc.copyBufferToBuffer(this.rgbaBuf, 0, staging, p.outElems * 4, rgbaBytes);
    this.device.queue.submit([enc.finish()]);
    if (hostStore && pp.prog.steps.some((s) => s.kind === 'store')) {
      await this.storeStaging!.mapAsync(GPUMapMode.READ);
      this.hostStore[chunk] = new Uint8Array(this.storeStaging!.getMappedRange().slice(0));
      this.storeStaging!.unmap();
    }
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
    })();
    return { placed };
  }

  dispose(): void {
    this.disposed = true;
    this.arena.dispose();
  }
}
