// Allocation: every GPU buffer a Plan lists, created once through the arena (weights, cache rings,
// activation slots, the latent-rate store, io, readback staging, uniforms; the tensor-core operand copy
// when conv3d-mma runs), and the lookups from a step's views to buffers. Nothing here runs per frame.
import { DecoderError } from '../../gpu/errors';
import type { Elem } from '../../gpu/kernel';
import type { Weights } from '../../model/weights';
import { Arena } from '../arena';
import type { Program, Step, View } from '../../plan/graph';
import type { Plan, ProgramPlan } from '../../plan/planner';
import { mmaScratchOf, stepScratchBytes, winoScratchOf, wqScratchOf } from '../../plan/step-kinds';
import { convWeightFormat } from '../../model/quantize';
import { readbackUsage, storageUsage } from './usage';
import { WeightStream } from './weight-stream';
import { uploadWeights, type BlockedWeightJob, type WeightPrepMode } from './weights';

export class Resources {
  readonly weights: Map<string, GPUBuffer>;
  /** streamed plans: the conv weights' ring (exec/weight-stream.ts); `weights` then holds the rest */
  readonly stream: WeightStream | null = null;
  readonly rings = new Map<string, GPUBuffer>();
  readonly slots: GPUBuffer[];
  /** the latent-rate store (tile-major): every chunk's entries, or one chunk's window with the 'cpu' store */
  readonly store: GPUBuffer | null = null;
  /** 'cpu' store: readback buffer of one chunk's entries */
  readonly storeStaging: GPUBuffer | null = null;
  /** cache offload: readback buffer of one tile's rings (cache-park.ts) */
  readonly parkStaging: GPUBuffer | null = null;
  readonly latent: GPUBuffer;
  readonly out: GPUBuffer;
  /** the rgba output, or `dummy` when the plan reads back no rgba */
  readonly rgba: GPUBuffer;
  readonly dummy: GPUBuffer;
  /** two readback buffers, alternating between program runs (run i+1 is submitted while run i is read) */
  readonly staging: GPUBuffer[] = [];
  readonly uniforms: GPUBuffer;
  /** tensor cores: the blocked operand copy, one conv call at a time (conv3d-mma-pack writes, conv3d-mma reads) */
  readonly mmaScratch: GPUBuffer | null = null;
  /** tensor cores with int8 weights: the f16 blocked weights of one conv (dequant-int8 writes, the GEMM reads) */
  readonly wqScratch: GPUBuffer | null = null;
  /** Winograd convs: V and M of one band (winograd-in writes V, winograd-gemm M, winograd-out reads M) */
  readonly winoScratch: GPUBuffer | null = null;
  /** tensor cores: blocked f16 conv weights allocated but not yet written (GpuDecoder.create: prepareBlockedWeights, the operand copy as staging) */
  readonly weightJobs: BlockedWeightJob[] = [];

  /** `reuse`: weight buffers of the previous decoder on this device (same model and packing), adopted by key */
  constructor(
    device: GPUDevice,
    readonly arena: Arena,
    readonly plan: Plan,
    weights: Weights,
    mma: boolean,
    reuse?: Map<string, GPUBuffer>,
    prep: WeightPrepMode = 'gpu',
  ) {
    const p = plan;
    const elem: Elem = p.opts.precision;
    const steps = Object.values(p.programs)
      .flat()
      .flatMap((pp) => pp.prog.steps);
    const sp = p.weightStream;
    this.weights = uploadWeights(device, arena, steps, weights, elem, mma, p.opts.weightsPrecision, sp?.entries, reuse, this.weightJobs, prep);
    if (sp) this.stream = new WeightStream(device, arena, sp, steps, weights, elem, mma, p.opts.weightsPrecision);
    // one GPU buffer per ring `buffer` (cache offload: ring s<k> of every tile shares one, sized for the largest)
    const ringBuffers = new Map<string, GPUBuffer>();
    for (const r of p.rings) {
      let b = ringBuffers.get(r.buffer);
      if (!b) {
        const bytes = Math.max(...p.rings.filter((x) => x.buffer === r.buffer).map((x) => x.bytes));
        ringBuffers.set(
          r.buffer,
          (b = arena.create('cache', r.buffer === r.key ? `cache ${r.key} ${r.label}` : `cache ${r.buffer} (every tile's, parked in CPU memory between runs)`, bytes, storageUsage())),
        );
      }
      this.rings.set(r.key, b);
    }
    if (p.parkStagingBytes) this.parkStaging = arena.create('staging', 'cache rings readback (one tile)', p.parkStagingBytes, readbackUsage());
    this.slots = p.slots.map((s) => arena.create('activations', `slot ${s.index}`, s.bytes, storageUsage()));
    if (p.memory.store) this.store = arena.create('store', p.storeWhere === 'cpu' ? 'latent-rate store window (one chunk)' : 'latent-rate store', p.memory.store, storageUsage());
    if (p.storeWhere === 'cpu') this.storeStaging = arena.create('staging', 'store readback', p.memory.store, readbackUsage());
    this.latent = arena.create('io', 'latent frame', Math.ceil((p.cfg.zDim * p.opts.h * p.opts.w * p.elemBytes) / 4) * 4, storageUsage());
    this.out = arena.create('io', 'output rgb', p.outElems * 4, storageUsage());
    const rgba = p.outRgbaElems ? arena.create('io', 'output rgba', p.outRgbaElems * 4, storageUsage()) : null;
    this.dummy = arena.create('io', 'unused binding', 4, storageUsage());
    this.rgba = rgba ?? this.dummy;
    if (mma) {
      // the largest operand copy of any conv call (not in the plan's figures yet: counted as activations here)
      const elems = mmaScratchOf(steps);
      if (elems) this.mmaScratch = arena.create('activations', 'tensor-core operand copy', Math.ceil((elems * p.elemBytes) / 4) * 4, storageUsage());
      const wq = convWeightFormat(elem, p.opts.weightsPrecision) === 'int8' ? wqScratchOf(steps) : 0;
      if (wq) this.wqScratch = arena.create('activations', 'int8 weights of one conv in f16 (dequant-int8)', wq * 2, storageUsage());
    }
    // Winograd convs (portable f32 plans): V + M of the largest band (the planner counts it as activations)
    const wino = winoScratchOf(steps, p.elemBytes);
    if (wino) this.winoScratch = arena.create('activations', 'Winograd V + M of one band', Math.ceil(wino / 4) * 4, storageUsage());
    for (const k of [0, 1]) this.staging.push(arena.create('staging', `readback ${k}`, (p.outElems + p.outRgbaElems) * 4, readbackUsage()));
    this.uniforms = arena.create('uniforms', 'params', p.maxDispatches * p.uniformStride, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  }

  /** Weight buffer `key`, or its range of a ring slot when it is streamed. */
  weight(key: string): GPUBuffer | GPUBufferBinding {
    return this.stream?.binding(key) ?? this.weights.get(key)!;
  }

  /** The buffer holding view `v` in program `pp` (its slot, or the host-written latent frame). */
  view(v: View, pp: ProgramPlan): GPUBuffer {
    if (v.t.io === 'latent') return this.latent;
    return this.slots[pp.slotOf[v.t.id]!]!;
  }

  /** The step-local scratch of step `s` of `pp` (a per-call Winograd U): the range of a slot the planner gave it (ProgramPlan.scratchOf). */
  scratch(pp: ProgramPlan, s: Step): GPUBufferBinding {
    let index = this.stepIndex.get(pp.prog);
    if (!index) this.stepIndex.set(pp.prog, (index = new Map(pp.prog.steps.map((x, i) => [x, i]))));
    const at = pp.scratchOf?.[index.get(s) ?? -1];
    if (!at) throw new DecoderError('unsupported', `${s.label}: planned with U made per call, but its plan gives the step no scratch`);
    return { buffer: this.slots[at.slot]!, offset: at.offset, size: Math.ceil(stepScratchBytes(s, this.plan.elemBytes) / 4) * 4 };
  }
  private readonly stepIndex = new WeakMap<Program, Map<Step, number>>();

  /** True when the planner gave output `y` the slot of input `v` in program `pp` (an in-place update). */
  inPlace(pp: ProgramPlan, v: View | undefined, y: View): boolean {
    return !!v && v.t !== y.t && !v.t.io && pp.slotOf[v.t.id] === pp.slotOf[y.t.id];
  }
}
