// Step encoding: every pipeline and bind group of every program, built once from the step-kind table
// (step-kernels.ts / plan/step-kinds.ts: each step's kernels, overrides, bindings and params), then one program run recorded
// into a command encoder per chunk: its uniforms (one 256-byte slot per dispatch), its dispatches, and
// the copies after a step (the ring push of a cached conv, a store entry). Dispatch sizes are checked
// against the device's maxComputeWorkgroupsPerDimension when the decoder is built.
import { DecoderError } from '../../gpu/errors';
import { checkDispatch, encodeParams, resolveOverrides, type AnyKernelDef, type Elem, type PipelineCache } from '../../gpu/kernel';
import type { Program, Step } from '../../plan/graph';
import type { Plan, ProgramPlan } from '../../plan/planner';
import { kindOf } from '../../plan/step-kinds';
import { stepKernels, type BindCtx } from './step-kernels';
import type { Resources } from './resources';
import type { StoreWindow } from './store-window';

interface EncodedKernel {
  def: AnyKernelDef;
  overrides: Record<string, number>;
  /** every override and uniform resolved (what dispatch and cost read) */
  resolved: Record<string, number>;
  pipeline: GPUComputePipeline;
  /** resolves once `pipeline` is set (rejects with its compile error) */
  ready: Promise<void>;
  /** null: the bindings depend on the chunk (made per chunk, once) */
  group: GPUBindGroup | null;
}

interface Encoded {
  step: Step;
  kernels: EncodedKernel[];
  /** the step's uniform slot: the params layout of its kernels (the longest list; the others are prefixes) and the overrides its fields carry */
  slot: { def: AnyKernelDef; overrides: Record<string, number> } | null;
}

/**
 * The one uniform slot the kernels of a step share per dispatch: their params lists must agree field by
 * field (one may be a prefix of another: the int8 dequant reads conv3d's fields of the tensor-core conv's
 * Params); fields that carry an override (ParamDef `override`, a KernelDef's `uniforms`) take the value
 * the step's kernels give it, which must be one (a pack and its GEMM both say KT).
 */
function stepSlot(label: string, ks: readonly { def: AnyKernelDef; overrides: Record<string, number> }[]): Encoded['slot'] {
  if (!ks.length) return null;
  const def = ks.reduce((a, k) => (k.def.params.length > a.params.length ? k.def : a), ks[0]!.def);
  const field = (x: AnyKernelDef['params'][number]) => `${x.name}:${x.type}`;
  if (ks.some((k) => k.def.params.some((x, i) => field(x) !== field(def.params[i]!))))
    throw new DecoderError('unsupported', `${label}: the kernels ${ks.map((k) => k.def.id).join(', ')} of one step must share one params struct`);
  const overrides: Record<string, number> = {};
  for (const name of def.params.flatMap((x) => (x.override ? [x.override] : [])))
    for (const k of ks) {
      const v = k.overrides[name];
      if (v === undefined) continue;
      if (name in overrides && overrides[name] !== v) throw new DecoderError('unsupported', `${label}: its kernels give ${name} = ${overrides[name]} and ${v}, but share one uniform slot`);
      overrides[name] = v;
    }
  return { def, overrides };
}

export interface EncodeOptions {
  tuning: Record<string, number>;
  mma: { subgroupSize: number; emulate?: boolean } | null;
}

const align4 = (n: number) => Math.ceil(n / 4) * 4;

/**
 * Bench profiling (bench/profile.ts with bench/lib/pass-probe.ts): when `on`, every dispatch gets its own
 * compute pass labelled `profile|<step label>|<kernel id>|<useful FLOPs>|<kind>|<conv shape>` so timestamp queries time
 * each one. Off in every decode outside that bench mode (one pass per run of steps).
 */
export const passProfile = { on: false };

export class StepEncoder {
  private readonly encoded = new Map<Program, Encoded[]>();
  private readonly chunkGroups = new Map<string, GPUBindGroup>();
  private paramsGroup!: GPUBindGroup;
  /** frames pushed into each ring in this decode (tile rings restart at every tile in tile-major order) */
  readonly ringCounts = new Map<string, number>();
  /**
   * Fault injection (WAN_VAE_INJECT_VALIDATION, runtime/gpu-decoder.ts): in chunk `chunk`, the first copy
   * a run records (a ring push or a store write) gets a destination offset 2 bytes off (not a multiple of
   * 4), the planner bug 2b1bfe3 fixed; null: none.
   */
  injectValidation: number | null = null;
  private readonly elem: Elem;

  constructor(
    private readonly device: GPUDevice,
    private readonly cache: PipelineCache,
    private readonly plan: Plan,
    private readonly res: Resources,
    private readonly store: StoreWindow,
    private readonly opts: EncodeOptions,
  ) {
    this.elem = plan.opts.precision;
  }

  private ctx(pp: ProgramPlan, chunk: number): BindCtx {
    const r = this.res;
    return {
      elem: this.elem,
      weightsPrecision: this.plan.opts.weightsPrecision,
      cfg: this.plan.cfg,
      tuning: this.opts.tuning,
      maxInvocations: this.device.limits.maxComputeInvocationsPerWorkgroup,
      mma: this.opts.mma,
      view: (v) => r.view(v, pp),
      weight: (k) => r.weight(k),
      ring: (k) => r.rings.get(k)!,
      dummy: r.dummy,
      out: r.out,
      rgba: r.rgba,
      mmaScratch: r.mmaScratch,
      wqScratch: r.wqScratch,
      winoScratch: r.winoScratch,
      winoU: (s) => r.scratch(pp, s),
      storeEntry: (which) => this.store.entry(chunk, which),
      inPlace: (v, y) => r.inPlace(pp, v, y),
    };
  }

  private group(label: string, def: AnyKernelDef, bindings: (GPUBuffer | GPUBufferBinding)[]): GPUBindGroup {
    return this.device.createBindGroup({
      label,
      layout: this.cache.bindGroupLayout(def),
      entries: bindings.map((b, i) => ({ binding: i, resource: 'buffer' in b ? b : { buffer: b } })),
    });
  }

  /**
   * Compile every pipeline (in parallel, requested in program and step order: the first chunk's first),
   * build every chunk-independent bind group, check dispatch sizes. Everything but the compiles is done
   * when this returns its promise: a run may be encoded step by step as stepReady/readyEnd allow.
   */
  async build(): Promise<void> {
    const jobs: Promise<void>[] = [];
    this.paramsGroup = this.device.createBindGroup({
      label: 'params',
      layout: this.cache.paramsLayout,
      entries: [{ binding: 0, resource: { buffer: this.res.uniforms, size: 256 } }],
    });
    for (const pp of Object.values(this.plan.programs).flat()) {
      const ctx = this.ctx(pp, 0);
      const list = pp.prog.steps.map((step): Encoded => {
        const kind = kindOf(step);
        const ks = stepKernels(step, ctx);
        const perChunk = kind.perChunk(step);
        // the kernels of a step share one uniform slot per dispatch: one params layout
        const slot = stepSlot(step.label, ks);
        for (const prm of kind.params(step, () => 0)) for (const k of ks) checkDispatch(k.def, k.def.dispatch(prm, resolveOverrides(k.def, k.overrides)), this.device.limits);
        const kernels = ks.map((k, j) => {
          const e = {
            def: k.def,
            overrides: k.overrides,
            resolved: resolveOverrides(k.def, k.overrides),
            group: perChunk ? null : this.group(j ? `${step.label} ${k.def.id}` : step.label, k.def, k.bindings),
          } as EncodedKernel;
          jobs.push((e.ready = this.cache.get(k.def, k.overrides, this.elem).then((p) => void (e.pipeline = p))));
          return e;
        });
        return { step, kernels, slot };
      });
      this.encoded.set(pp.prog, list);
    }
    await Promise.all(jobs);
  }

  /** The end of the run of steps of `pp` from `from` whose pipelines are all compiled (`from`: none yet). */
  readyEnd(pp: ProgramPlan, from: number): number {
    const list = this.encoded.get(pp.prog)!;
    let i = from;
    while (i < list.length && list[i]!.kernels.every((k) => k.pipeline)) i++;
    return i;
  }

  /** Resolves when every pipeline of step `i` of `pp` is compiled (rejects with a compile error). */
  stepReady(pp: ProgramPlan, i: number): Promise<void> {
    return Promise.all(this.encoded.get(pp.prog)![i]!.kernels.map((k) => k.ready)).then(() => undefined);
  }

  /** Bind group of kernel `j` of step `i` of `pp` for `chunk` (crops from the store), made once. */
  private chunkGroup(pp: ProgramPlan, i: number, j: number, chunk: number): GPUBindGroup {
    const step = pp.prog.steps[i]!;
    const key = `${pp.prog.name}|${pp.prog.kind}|${i}|${j}|${this.plan.storeWhere === 'cpu' ? 0 : chunk}`;
    let g = this.chunkGroups.get(key);
    if (!g) {
      const k = stepKernels(step, this.ctx(pp, chunk))[j]!;
      g = this.group(`${step.label} chunk ${chunk}`, k.def, k.bindings);
      this.chunkGroups.set(key, g);
    }
    return g;
  }

  /**
   * Record one run of `pp` for `chunk` into `enc` and queue its uniforms; advances the ring counters.
   * `from`/`to`: only steps [from, to) (cache offload submits a frame-major program tile by tile; each
   * part is one submission, since the uniforms are written from slot 0 per call).
   * `split` (weight streaming): called where a conv reads another weight group than the last one; the
   * steps from there on are recorded into the encoder it returns (exec/weight-stream.ts Segments).
   */
  encode(pp: ProgramPlan, chunk: number, enc: GPUCommandEncoder, from = 0, to = Infinity, split: ((group: number) => GPUCommandEncoder) | null = null): void {
    const p = this.plan;
    const stride = p.uniformStride;
    const list = this.encoded.get(pp.prog)!;
    const uni = new Uint8Array(p.maxDispatches * stride);
    const ringCount = (k: string) => this.ringCounts.get(k) ?? 0;
    let slot = 0;
    let pass: GPUComputePassEncoder | null = null;
    let group = -1;
    let inject = this.injectValidation === chunk;
    // each step's commands sit in a debug group named by its label: Dawn's validation messages end with
    // the debug group stack, which names the failing step (runtime/gpu-decoder.ts quotes it)
    const copy = (label: string, src: GPUBuffer, srcOff: number, dst: GPUBuffer, dstOff: number, bytes: number) => {
      pass?.end();
      pass = null;
      if (inject) ((dstOff += 2), (inject = false));
      enc.pushDebugGroup(label);
      enc.copyBufferToBuffer(src, srcOff, dst, dstOff, bytes);
      enc.popDebugGroup();
    };
    list.forEach((e, i) => {
      if (i < from || i >= to) return;
      const s = e.step;
      const kind = kindOf(s);
      const g = split ? this.res.stream!.groupOf(s) : -1;
      if (g >= 0 && g !== group) {
        (pass as GPUComputePassEncoder | null)?.end();
        pass = null;
        enc = split!(g);
        group = g;
      }
      if (e.kernels.length) {
        const cp: GPUComputePassEncoder = (pass ??= enc.beginComputePass({ label: pp.prog.name }));
        const groups = e.kernels.map((k, j) => k.group ?? this.chunkGroup(pp, i, j, chunk));
        const one = e.kernels.length === 1;
        // (profiling replaces the pass per dispatch: its pass labels name the step instead)
        if (!passProfile.on) cp.pushDebugGroup(s.label);
        if (one) {
          cp.setPipeline(e.kernels[0]!.pipeline);
          cp.setBindGroup(0, groups[0]!);
        }
        for (const prm of kind.params(s, ringCount)) {
          uni.set(encodeParams(e.slot!.def, prm, e.slot!.overrides), slot * stride);
          (pass as GPUComputePassEncoder).setBindGroup(1, this.paramsGroup, [slot++ * stride]);
          e.kernels.forEach((k, j) => {
            const ov = k.resolved;
            let p = pass as GPUComputePassEncoder;
            if (passProfile.on) {
              (pass as GPUComputePassEncoder | null)?.end();
              const flops = k.def.cost(prm, ov, this.elem).flops;
              const shape = s.kind === 'conv' ? `${s.cin}->${s.cout} ch ${s.h}x${s.w} ${s.kt}x${s.ks}x${s.ks}${s.up ? ' up' : ''}` : '';
              p = pass = enc.beginComputePass({ label: `profile|${s.label}|${k.def.id}|${flops}|${s.kind}|${shape}` });
              p.setBindGroup(1, this.paramsGroup, [(slot - 1) * stride]);
            }
            if (!one || passProfile.on) {
              p.setPipeline(k.pipeline);
              p.setBindGroup(0, groups[j]!);
            }
            const [x, y, z] = k.def.dispatch(prm, ov);
            // an empty dispatch (winograd-u past its conv's first band) is skipped: Dawn prints a warning on
            // stdout for a workgroup count of 0, which would break `--json` output
            if (x > 0 && y > 0 && z > 0) p.dispatchWorkgroups(x, y, z);
          });
        }
        if (!passProfile.on) cp.popDebugGroup();
      }
      const push = kind.ringPush(s);
      if (push) {
        // the cache keeps the conv input: copied over frame t-2 once the conv has read it (a packed ring:
        // the packed frame t, from the start of the operand copy)
        const k = ringCount(push.key);
        const [src, srcOff] = push.from === 'operand' ? [this.res.mmaScratch!, 0] : [this.res.view(push.x, pp), push.x.off * p.elemBytes];
        copy(s.label, src, srcOff, this.res.rings.get(push.key)!, (k & 1) * push.frameElems * p.elemBytes, align4(push.frameElems * p.elemBytes));
        this.ringCounts.set(push.key, k + 1);
      }
      const sw = kind.storeWrite(s);
      if (sw) copy(s.label, this.res.view(sw.x, pp), sw.x.off * p.elemBytes, this.store.copyTarget(), this.store.offset(chunk, sw.which), align4(sw.elems * p.elemBytes));
    });
    (pass as GPUComputePassEncoder | null)?.end();
    this.device.queue.writeBuffer(this.res.uniforms, 0, uni, 0, slot * stride);
  }
}
