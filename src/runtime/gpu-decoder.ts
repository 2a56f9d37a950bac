// GPU decoder: builds the arena and every pipeline and bind group of a Plan once, then decodes latent
// frames one chunk at a time (one command buffer per chunk), streaming output frames as they come.
// Lifetimes: weights, rings, slots, io, staging and uniforms live as long as the decoder (arena);
// the ring counters are per decode (reset by `decode`).
import { DecoderError } from '../gpu/errors';
import { encodeParams, paramsSize, PipelineCache, type AnyKernelDef, type Elem } from '../gpu/kernel';
import { conv3d, conv3dTuning, packConvWeight } from '../kernels/conv3d';
import { kernels } from '../kernels/index';
import type { Weights } from '../model/weights';
import { Arena } from './arena';
import { storageBytes } from './f16';
import type { ChunkKind, Step, View } from './graph';
import { checkLimits, weightBuffers, type Plan } from './planner';

export interface Frame {
  /** index of the frame in the video */
  index: number;
  /** [3, H, W] clamped to [-1, 1] */
  rgb: Float32Array;
  /** H·W·4 RGBA8, when the plan asked for it */
  rgba?: Uint8ClampedArray;
}

interface Encoded {
  step: Step;
  def: AnyKernelDef;
  overrides: Record<string, number>;
  pipeline: GPUComputePipeline;
  group: GPUBindGroup;
  counts: [number, number, number];
}

// a function, not a constant: GPUBufferUsage exists only once WebGPU is installed (Node: at run time)
const storageUsage = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;

export class GpuDecoder {
  readonly arena: Arena;
  private readonly elem: Elem;
  private readonly cache: PipelineCache;
  private readonly weightBufs = new Map<string, GPUBuffer>();
  private slotBufs: GPUBuffer[] = [];
  private ringBufs: GPUBuffer[] = [];
  private ringIndex = new Map<number, number>();
  private latentBuf!: GPUBuffer;
  private outBuf!: GPUBuffer;
  private rgbaBuf: GPUBuffer | null = null;
  private stagingBuf!: GPUBuffer;
  private uniformBuf!: GPUBuffer;
  private dummy!: GPUBuffer;
  private paramsGroup!: GPUBindGroup;
  private encoded: Partial<Record<ChunkKind, Encoded[]>> = {};
  private counters: number[] = [];
  private disposed = false;

  private constructor(
    readonly device: GPUDevice,
    readonly plan: Plan,
    private readonly tuning: Record<string, number>,
  ) {
    this.arena = new Arena(device);
    this.elem = plan.opts.precision;
    this.cache = new PipelineCache(device);
  }

  /** Allocates everything the plan lists, uploads the weights and compiles every pipeline. */
  static async create(device: GPUDevice, plan: Plan, weights: Weights, opts: { fallbackAdapter?: boolean } = {}): Promise<GpuDecoder> {
    checkLimits(plan, device.limits);
    if (plan.opts.precision === 'f16' && !device.features.has('shader-f16'))
      throw new DecoderError('unsupported', "f16 storage needs the WebGPU feature 'shader-f16', which this adapter does not offer: use precision f32");
    const d = new GpuDecoder(device, plan, opts.fallbackAdapter === false ? conv3dTuning.gpu : conv3dTuning.cpu);
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    try {
      d.allocate(weights);
      await d.build();
    } catch (e) {
      d.dispose();
      throw e;
    } finally {
      const v = await device.popErrorScope();
      const m = await device.popErrorScope();
      if (m) {
        d.dispose();
        throw new DecoderError('oom', `out of GPU memory while allocating ${plan.memory.total} bytes: ${m.message}`);
      }
      if (v) {
        d.dispose();
        throw new DecoderError('validation', `building the decoder failed validation: ${v.message}`);
      }
    }
    return d;
  }

  private upload(label: string, data: Float32Array, owner: 'weights' | 'io' = 'weights'): GPUBuffer {
    const bytes = storageBytes(data, this.elem);
    const buf = this.arena.create(owner, label, bytes.byteLength, storageUsage());
    this.device.queue.writeBuffer(buf, 0, bytes);
    return buf;
  }

  private allocate(weights: Weights): void {
    const p = this.plan;
    // weights: exactly the buffers the planner counted (every conv / norm the steps name), packed once
    for (const { key, step: s } of weightBuffers(Object.values(p.chunks).map((c) => c.graph))) {
      if (s.kind === 'conv' && key.endsWith('.weight')) {
        const w = weights.get(key);
        const want = s.up ? [s.cout, s.cin, 3, 3] : w.shape.length === 4 ? [s.cout, s.cin, 1, 1] : [s.cout, s.cin, s.kt, s.ks, s.ks];
        weights.get(key, want);
        this.weightBufs.set(key, this.upload(key, packConvWeight(w.data, s.cout, s.cin, s.kt, s.ks)));
      } else if (s.kind === 'conv') this.weightBufs.set(key, this.upload(key, weights.get(key, [s.cout]).data));
      else if (s.kind === 'norm') this.weightBufs.set(key, this.upload(key, weights.get(key, [s.c]).data));
    }
    this.ringBufs = p.rings.map((r, i) => this.arena.create('cache', `cache ${r.slot} ${r.label}`, p.ringBytes[i]!, storageUsage()));
    p.rings.forEach((r, i) => this.ringIndex.set(r.slot, i));
    this.slotBufs = p.slots.map((s) => this.arena.create('activations', `slot ${s.index}`, s.bytes, storageUsage()));
    const latentBytes = Math.ceil((p.cfg.zDim * p.opts.h * p.opts.w * p.elemBytes) / 4) * 4;
    this.latentBuf = this.arena.create('io', 'latent frame', latentBytes, storageUsage());
    const outBytes = p.maxFramesPerChunk * p.outFrameElems * 4;
    this.outBuf = this.arena.create('io', 'output rgb', outBytes, storageUsage());
    const rgbaBytes = p.opts.rgba ? p.maxFramesPerChunk * p.height * p.width * 4 : 0;
    if (rgbaBytes) this.rgbaBuf = this.arena.create('io', 'output rgba', rgbaBytes, storageUsage());
    this.dummy = this.arena.create('io', 'unused binding', 4, storageUsage());
    this.stagingBuf = this.arena.create('staging', 'readback', outBytes + rgbaBytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    this.uniformBuf = this.arena.create('uniforms', 'params', p.maxSteps * p.uniformStride, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  }

  private buf(v: View, kind: ChunkKind): GPUBuffer {
    if (v.t.io) return this.latentBuf;
    const slot = this.plan.chunks[kind]!.slotOf[v.t.id]!;
    return this.slotBufs[slot]!;
  }

  private stepKernel(s: Step): { def: AnyKernelDef; overrides: Record<string, number> } {
    switch (s.kind) {
      case 'conv':
        return { def: conv3d, overrides: { KT: s.kt, KS: s.ks, UP: s.up, HAS_RES: s.res ? 1 : 0, ...this.tuning } };
      case 'norm':
        return { def: kernels.rmsNorm, overrides: { SILU: s.silu ? 1 : 0 } };
      case 'attn':
        return { def: kernels.attention, overrides: {} };
      case 'dupadd':
        return { def: kernels.dupUpAdd, overrides: {} };
      case 'output':
        return { def: kernels.output, overrides: { PATCH: this.plan.cfg.patch } };
    }
  }

  private bindings(s: Step, kind: ChunkKind): GPUBuffer[] {
    const b = (v: View) => this.buf(v, kind);
    switch (s.kind) {
      case 'conv':
        return [
          b(s.x),
          s.ring !== undefined ? this.ringBufs[this.ringIndex.get(s.ring)!]! : this.dummy,
          this.weightBufs.get(`${s.wkey}.weight`)!,
          this.weightBufs.get(`${s.wkey}.bias`)!,
          s.res ? b(s.res) : this.dummy,
          b(s.y),
        ];
      case 'norm':
        return [b(s.x), this.weightBufs.get(s.gkey)!, b(s.y)];
      case 'attn':
        return [b(s.qkv), b(s.o)];
      case 'dupadd':
        return [b(s.x), b(s.y)];
      case 'output':
        return [b(s.x), this.outBuf, this.rgbaBuf ?? this.dummy];
    }
  }

  /** Compile every pipeline (in parallel) and build every bind group of every chunk kind. */
  private async build(): Promise<void> {
    const kinds = Object.keys(this.plan.chunks) as ChunkKind[];
    const jobs: Promise<void>[] = [];
    for (const kind of kinds) {
      const list: Encoded[] = [];
      for (const step of this.plan.chunks[kind]!.graph.steps) {
        const { def, overrides } = this.stepKernel(step);
        const e = { step, def, overrides, counts: [0, 0, 0] } as unknown as Encoded;
        e.group = this.device.createBindGroup({
          label: step.label,
          layout: this.cache.bindGroupLayout(def),
          entries: this.bindings(step, kind).map((buffer, i) => ({ binding: i, resource: { buffer } })),
        });
        jobs.push(this.cache.get(def, overrides, this.elem).then((p) => void (e.pipeline = p)));
        list.push(e);
      }
      this.encoded[kind] = list;
    }
    await Promise.all(jobs);
    this.paramsGroup = this.device.createBindGroup({
      label: 'params',
      layout: this.cache.paramsLayout,
      entries: [{ binding: 0, resource: { buffer: this.uniformBuf, size: 256 } }],
    });
  }

  /** Params of step `s` with the current ring counters; advances the counters of pushed rings. */
  private params(s: Step): Record<string, number> {
    switch (s.kind) {
      case 'conv': {
        let prev2 = 0, prev1 = 0, tap0 = s.kt === 3 ? 2 : 0;
        if (s.ring !== undefined) {
          const ri = this.ringIndex.get(s.ring)!;
          const k = this.counters[ri]!;
          const F = this.plan.rings[ri]!.frameElems;
          prev2 = (k & 1) * F;
          prev1 = ((k + 1) & 1) * F;
          tap0 = Math.max(0, 2 - k);
        }
        return { cin: s.cin, cout: s.cout, h: s.h, w: s.w, x_off: s.x.off, prev2_off: prev2, prev1_off: prev1, res_off: s.res?.off ?? 0, y_off: s.y.off, tap0 };
      }
      case 'norm':
        return { c: s.c, hw: s.hw, x_off: s.x.off, y_off: s.y.off };
      case 'attn':
        return { c: s.c, n: s.n, scale: 1 / Math.sqrt(s.c) };
      case 'dupadd':
        return { cout: s.d.cout, h: s.h, w: s.w, cin: s.d.cin, ft: s.d.ft, fs: s.d.fs, r: s.d.r, a: s.a, x_off: s.x.off, y_off: s.y.off };
      case 'output':
        return { h: s.h, w: s.w, x_off: s.x.off, frame: s.frame };
    }
  }

  /**
   * Decode de-normalised latents [z, T, h, w] (T = plan frames). Calls onFrame for every output frame in
   * order as soon as its chunk is read back; resolves when all are done. `signal` cancels between chunks.
   */
  async decode(latents: Float32Array, onFrame: (f: Frame) => void, signal?: AbortSignal): Promise<void> {
    if (this.disposed) throw new DecoderError('device-lost', 'this decoder was disposed');
    const p = this.plan;
    const { frames: T, h, w } = p.opts;
    const z = p.cfg.zDim;
    if (latents.length !== z * T * h * w)
      throw new DecoderError('bad-input', `latents have ${latents.length} values, the plan expects [${z}, ${T}, ${h}, ${w}] = ${z * T * h * w}`);
    this.counters = p.rings.map(() => 0);
    for (const r of this.ringBufs) this.device.queue.writeBuffer(r, 0, new Uint8Array(r.size));
    let next = 0;
    for (let i = 0; i < T; i++) {
      if (signal?.aborted) throw new DecoderError('bad-input', 'decode cancelled');
      const kind: ChunkKind = p.opts.cache === 'off' ? 'nocache' : i === 0 ? 'first' : 'steady';
      const frame = new Float32Array(z * h * w);
      for (let c = 0; c < z; c++) frame.set(latents.subarray((c * T + i) * h * w, (c * T + i + 1) * h * w), c * h * w);
      const n = await this.runChunk(kind, frame, next, onFrame);
      next += n;
    }
  }

  private async runChunk(kind: ChunkKind, latentFrame: Float32Array, firstIndex: number, onFrame: (f: Frame) => void): Promise<number> {
    const p = this.plan;
    const list = this.encoded[kind]!;
    this.device.queue.writeBuffer(this.latentBuf, 0, storageBytes(latentFrame, this.elem));
    const uni = new Uint8Array(list.length * p.uniformStride);
    const pushes: ({ ring: number; off: number; src: GPUBuffer; srcOff: number; bytes: number } | null)[] = [];
    list.forEach((e, i) => {
      const prm = this.params(e.step);
      uni.set(encodeParams(e.def, prm), i * p.uniformStride);
      e.counts = e.def.dispatch(prm, { ...e.def.overrides, ...e.overrides });
      const s = e.step;
      if (s.kind === 'conv' && s.push && s.ring !== undefined) {
        const ri = this.ringIndex.get(s.ring)!;
        const k = this.counters[ri]!;
        const F = p.rings[ri]!.frameElems;
        const bytes = Math.ceil((F * p.elemBytes) / 4) * 4;
        pushes.push({ ring: ri, off: (k & 1) * F * p.elemBytes, src: this.buf(s.x, kind), srcOff: s.x.off * p.elemBytes, bytes });
        this.counters[ri] = k + 1;
      } else pushes.push(null);
    });
    this.device.queue.writeBuffer(this.uniformBuf, 0, uni);
    const enc = this.device.createCommandEncoder({ label: `chunk ${kind}` });
    let pass: GPUComputePassEncoder | null = null;
    list.forEach((e, i) => {
      pass ??= enc.beginComputePass({ label: `chunk ${kind}` });
      pass.setPipeline(e.pipeline);
      pass.setBindGroup(0, e.group);
      pass.setBindGroup(1, this.paramsGroup, [i * p.uniformStride]);
      pass.dispatchWorkgroups(...e.counts);
      const push = pushes[i];
      if (push) {
        pass.end();
        pass = null;
        enc.copyBufferToBuffer(push.src, push.srcOff, this.ringBufs[push.ring]!, push.off, push.bytes);
      }
    });
    (pass as GPUComputePassEncoder | null)?.end();
    const nFrames = p.chunks[kind]!.graph.framesOut;
    const rgbBytes = nFrames * p.outFrameElems * 4;
    const outBytes = p.maxFramesPerChunk * p.outFrameElems * 4;
    enc.copyBufferToBuffer(this.outBuf, 0, this.stagingBuf, 0, rgbBytes);
    const rgbaBytes = nFrames * p.height * p.width * 4;
    if (this.rgbaBuf) enc.copyBufferToBuffer(this.rgbaBuf, 0, this.stagingBuf, outBytes, rgbaBytes);
    this.device.queue.submit([enc.finish()]);
    await this.stagingBuf.mapAsync(GPUMapMode.READ);
    try {
      const rgb = new Float32Array(this.stagingBuf.getMappedRange(0, rgbBytes).slice(0));
      const rgba = this.rgbaBuf ? new Uint8ClampedArray(this.stagingBuf.getMappedRange(outBytes, rgbaBytes).slice(0)) : null;
      for (let f = 0; f < nFrames; f++) {
        const frame: Frame = { index: firstIndex + f, rgb: rgb.slice(f * p.outFrameElems, (f + 1) * p.outFrameElems) };
        if (rgba) frame.rgba = rgba.slice(f * p.height * p.width * 4, (f + 1) * p.height * p.width * 4);
        onFrame(frame);
      }
    } finally {
      this.stagingBuf.unmap();
    }
    return nFrames;
  }

  dispose(): void {
    this.disposed = true;
    this.arena.dispose();
  }
}

export { paramsSize };
