// Kernel descriptions (KernelDef), the only pipeline-key builder, uniform encoding, dispatch-size
// checks, and the pipeline cache with explicit bind-group layouts. Owns shader modules, layouts and
// pipelines for one device (device lifetime); owns no buffers. (Running one kernel alone, for kernel
// tests, is test/helpers/gpu.ts `runKernel`; the decoder encodes its steps in runtime/exec/encode.ts.)
//
// Binding model shared by every kernel:
//   @group(0) @binding(i): storage buffers in `def.bindings` order ('read' -> read-only-storage).
//   @group(1) @binding(0): `struct Params` (scalars only, 4 bytes each, in `def.params` order) as a
//                          uniform buffer with a dynamic offset.
//
// Specialisation: a kernel's WGSL declares its tunables as `override NAME: T = default;` (what the
// KernelDef's `overrides` list), and `specializedSource` writes the chosen values into the text as
// `const NAME: T = value;` before the module is created: one pipeline per combination of values. A
// value that buys no speed as a constant (an epilogue's branch, a loop whose start is a uniform anyway)
// is a KernelDef `uniforms` entry instead: given like an override, but written into a `struct Params`
// field (a ParamDef with `override: NAME`) by encodeParams, so one pipeline serves every value. Pipelines are built without
// `compute.constants`: wgpu (Firefox, Deno; naga 29) panics creating some of the kernels' pipelines from
// override constants, and one text per pipeline key is what `wan-vae shaders --dump` writes.
import { DecoderError, formatCompileInfo } from './errors';

export type Elem = 'f32' | 'f16';
export type ParamType = 'u32' | 'i32' | 'f32';

export interface BindingDef {
  readonly name: string;
  readonly access: 'read' | 'read_write';
}

export interface ParamDef<P> {
  readonly name: keyof P & string;
  readonly type: ParamType;
  /** the field carries this override's (or uniform override's) resolved value instead of a value of P */
  readonly override?: string;
}

export interface KernelCost {
  flops: number;
  bytes: number;
}

export interface KernelDef<P extends Record<string, number>> {
  /** = shader file name without `.wgsl` */
  readonly id: string;
  readonly wgsl: string;
  readonly bindings: readonly BindingDef[];
  readonly params: readonly ParamDef<P>[];
  /** every override constant of the shader with its default */
  readonly overrides: Readonly<Record<string, number>>;
  /**
   * Overrides carried in `struct Params` (a ParamDef with `override: NAME` each) instead of the WGSL text,
   * with their defaults: given, resolved and passed to dispatch / cost like `overrides`, but not part of
   * the pipeline key (one pipeline for every value). The WGSL does not declare them.
   */
  readonly uniforms?: Readonly<Record<string, number>>;
  /** workgroup counts; `ov` may be partial (missing names take the defaults) */
  dispatch(p: P, ov: Record<string, number>): [number, number, number];
  /** FLOPs (2 per multiply-add) and minimum bytes moved; `elem` (default 'f32') sizes the storage */
  cost(p: P, ov: Record<string, number>, elem?: Elem): KernelCost;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKernelDef = KernelDef<any>;

/** Bytes of one storage element. */
export function elemBytes(elem: Elem): number {
  return elem === 'f16' ? 2 : 4;
}

/** Value of `const NAME: u32 = N;` in a WGSL source, so TS never duplicates a shader constant. */
export function wgslConst(wgsl: string, name: string): number {
  const m = new RegExp(`^const ${name}\\s*:\\s*[uif]32\\s*=\\s*([0-9.]+)[uif]?\\s*;`, 'm').exec(wgsl);
  if (!m) throw new DecoderError('unsupported', `WGSL has no 'const ${name}: u32 = ...;' line`);
  return Number(m[1]);
}

const ELEM_LINE = 'alias Elem = f32;';

/** WGSL of `def` for storage type `elem`: the one allowed substitution, `alias Elem = f32;` -> f16. */
export function shaderSource(def: AnyKernelDef, elem: Elem): string {
  if (elem === 'f32') return def.wgsl;
  if (!def.wgsl.includes(ELEM_LINE)) throw new DecoderError('unsupported', `${def.id}: no '${ELEM_LINE}' line for f16`);
  return def.wgsl.replace(ELEM_LINE, 'enable f16;\nalias Elem = f16;');
}

/** `override NAME: T = default;` at the start of a line (an optional comment after it). */
const OVERRIDE_LINE = /^override\s+(\w+)\s*:\s*(u32|i32|f32)\s*=\s*([^;]+);/gm;

/** WGSL literal of `v` for a `const` of scalar type `type`; throws for values the type cannot hold. */
function wgslLiteral(def: AnyKernelDef, name: string, type: string, v: number): string {
  const bad = (why: string) => new DecoderError('bad-input', `${def.id}: override ${name} = ${String(v)} ${why}`);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad('is not a finite number');
  if (type === 'f32') {
    if (Math.abs(v) > 3.4028234663852886e38) throw bad('is out of f32 range');
    const t = String(v);
    return /[.e]/.test(t) ? t : `${t}.0`;
  }
  if (!Number.isInteger(v)) throw bad(`is not an integer (${type})`);
  if (type === 'u32') {
    if (v < 0 || v > 0xffffffff) throw bad('is out of u32 range');
    return `${v}u`;
  }
  if (v < -0x80000000 || v > 0x7fffffff) throw bad('is out of i32 range');
  return `${v}i`;
}

/**
 * The WGSL one pipeline of `def` compiles: `shaderSource(def, elem)` with every override declaration
 * turned into a `const` of the resolved value (defaults merged with `overrides`; one the KernelDef does
 * not list keeps the WGSL default). The one place a kernel is specialised; a listed override the text
 * does not declare is an error.
 */
export function specializedSource(def: AnyKernelDef, overrides: Record<string, number>, elem: Elem): string {
  const ov = bakedOverrides(def, overrides);
  const seen = new Set<string>();
  const code = shaderSource(def, elem).replace(OVERRIDE_LINE, (_line, name: string, type: string, dflt: string) => {
    // an override the KernelDef does not list keeps the WGSL's default (as a pipeline created without it would)
    if (!(name in ov)) return `const ${name}: ${type} = ${dflt.trim()};`;
    seen.add(name);
    return `const ${name}: ${type} = ${wgslLiteral(def, name, type, ov[name]!)};`;
  });
  const missing = Object.keys(ov).filter((k) => !seen.has(k));
  if (missing.length) throw new DecoderError('unsupported', `${def.id}: override ${missing.join(', ')} listed by the KernelDef is not declared in its WGSL`);
  const declared = Object.keys(def.uniforms ?? {}).filter((k) => new RegExp(`^override\\s+${k}\\s*:`, 'm').test(shaderSource(def, elem)));
  if (declared.length)
    throw new DecoderError('unsupported', `${def.id}: ${declared.join(', ')} ${declared.length > 1 ? 'are' : 'is'} carried in Params (uniforms) but declared as an override in its WGSL`);
  if (/^\s*override\s/m.test(code.replace(/\/\/.*$/gm, '')))
    throw new DecoderError('unsupported', `${def.id}: an override declaration is not of the form 'override NAME: u32|i32|f32 = value;' at a line start`);
  return code;
}

/** Defaults (overrides and uniforms) merged with `ov`; unknown names are an error (they would fail pipeline creation anyway). */
export function resolveOverrides(def: AnyKernelDef, ov: Record<string, number> = {}): Record<string, number> {
  const known = { ...def.overrides, ...def.uniforms };
  for (const k of Object.keys(ov)) if (!(k in known)) throw new DecoderError('bad-input', `${def.id}: unknown override '${k}' (known: ${Object.keys(known).join(', ')})`);
  return { ...known, ...ov };
}

/** The overrides written into the WGSL (resolveOverrides without the uniforms): what makes one pipeline. */
export function bakedOverrides(def: AnyKernelDef, ov: Record<string, number> = {}): Record<string, number> {
  const all = resolveOverrides(def, ov);
  return Object.fromEntries(Object.keys(def.overrides).map((k) => [k, all[k]!]));
}

/** The only place pipeline keys are built: id, storage type, every baked override (defaults included), sorted. */
export function pipelineKey(def: AnyKernelDef, overrides: Record<string, number>, elem: Elem): string {
  const ov = bakedOverrides(def, overrides);
  const parts = Object.keys(ov)
    .sort()
    .map((k) => `${k}=${ov[k]}`);
  return `${def.id}|${elem}|${parts.join(',')}`;
}

/** Size in bytes of `struct Params` (4 bytes per scalar, padded to 16). */
function paramsSize(def: AnyKernelDef): number {
  return Math.max(16, Math.ceil((def.params.length * 4) / 16) * 16);
}

/**
 * Encodes `p` in `struct Params` layout, the fields that carry an override (ParamDef `override`) from
 * `overrides` (resolved: defaults where not given; needed whenever `def` has such fields, so that no caller
 * writes the defaults by mistake); throws DecoderError('bad-input') for missing or out-of-range values.
 */
export function encodeParams<P extends Record<string, number>>(def: KernelDef<P>, p: P, overrides?: Record<string, number>): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(paramsSize(def));
  const view = new DataView(bytes.buffer);
  const carried = def.params.some((x) => x.override !== undefined);
  if (carried && !overrides)
    throw new DecoderError(
      'unsupported',
      `${def.id}: its Params carry overrides (${def.params
        .filter((x) => x.override)
        .map((x) => x.override)
        .join(', ')}): encodeParams needs the dispatch's overrides`,
    );
  const ov = carried ? resolveOverrides(def, overrides) : {};
  def.params.forEach(({ name, type, override }, i) => {
    const v = override !== undefined ? ov[override] : (p as Record<string, number>)[name];
    const bad = (why: string) => new DecoderError('bad-input', `${def.id}: param ${name} = ${String(v)} ${why}`);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad('is not a finite number');
    if (type === 'f32') view.setFloat32(i * 4, v, true);
    else if (!Number.isInteger(v)) throw bad(`is not an integer (${type})`);
    else if (type === 'u32') {
      if (v < 0 || v > 0xffffffff) throw bad('is out of u32 range');
      view.setUint32(i * 4, v, true);
    } else {
      if (v < -0x80000000 || v > 0x7fffffff) throw bad('is out of i32 range');
      view.setInt32(i * 4, v, true);
    }
  });
  return bytes;
}

/**
 * Workgroup grid for `groups` workgroups numbered linearly as (wg.y * num_workgroups.x + wg.x): a 2D
 * grid once one dimension would exceed the WebGPU default limit of 65535 (the shader guards the tail).
 */
export function linearGrid(groups: number): [number, number, number] {
  const x = Math.min(Math.max(groups, 1), 65535);
  return [x, Math.ceil(groups / x), 1];
}

/** Throws DecoderError('limits') when a dispatch exceeds maxComputeWorkgroupsPerDimension. */
export function checkDispatch(def: AnyKernelDef, counts: [number, number, number], limits: GPUSupportedLimits): void {
  const max = limits.maxComputeWorkgroupsPerDimension;
  if (counts.some((n) => n > max)) throw new DecoderError('limits', `${def.id}: dispatch [${counts}] exceeds maxComputeWorkgroupsPerDimension ${max}`);
}

/** Group 0 of a kernel as a string (binding access modes in order): kernels with the same one share a layout. */
function bindingsSignature(def: AnyKernelDef): string {
  return def.bindings.map((b) => (b.access === 'read' ? 'r' : 'w')).join('');
}

/** When one pipeline was asked for and when it was compiled (performance.now() ms; ready: undefined while compiling). */
export interface PipelineTime {
  key: string;
  requested: number;
  ready?: number;
}

/**
 * Compiles and caches pipelines of one device; concurrent requests for one key share one promise, and so
 * do keys whose WGSL (specializedSource) and group-0 bindings are the same text (one compile: two kernel
 * ids or constant sets that generate the same shader, e.g. a constant the text does not read).
 * A request goes to the device at once: createShaderModule, then createComputePipelineAsync in the same
 * call, the module's compilation info checked while the pipeline compiles. Dawn compiles async pipelines
 * on worker threads (lavapipe, 2026-12-02: 12 pipelines requested, then 2 s of busy JS: all compiled at
 * 2003 ms), so everything asked for in one synchronous loop compiles in parallel and in that order;
 * awaiting getCompilationInfo before createComputePipelineAsync (as this did before) held every request
 * back until the JS thread was free again.
 */
export class PipelineCache {
  readonly paramsLayout: GPUBindGroupLayout;
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  /** bindings signature + WGSL -> the pipeline compiled from it and the key it was first asked for by */
  private readonly bySource = new Map<string, { key: string; pipeline: Promise<GPUComputePipeline> }>();
  /** pipeline key -> the key whose compile it shares (itself unless its text was first compiled under another key) */
  private readonly compiledAs = new Map<string, string>();
  private readonly layouts = new Map<string, GPUBindGroupLayout>();
  private readonly pipelineLayouts = new Map<string, GPUPipelineLayout>();
  /** every compile asked for (one per distinct text), in request order, with its request and compile times */
  readonly times: PipelineTime[] = [];

  constructor(readonly device: GPUDevice) {
    this.paramsLayout = device.createBindGroupLayout({
      label: 'params',
      entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform', hasDynamicOffset: true } }],
    });
  }

  /** Group 0 layout of `def`: its storage bindings in order. */
  bindGroupLayout(def: AnyKernelDef): GPUBindGroupLayout {
    const sig = bindingsSignature(def);
    let layout = this.layouts.get(sig);
    if (!layout) {
      layout = this.device.createBindGroupLayout({
        label: def.id,
        entries: def.bindings.map((b, i) => ({
          binding: i,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: b.access === 'read' ? ('read-only-storage' as const) : ('storage' as const) },
        })),
      });
      this.layouts.set(sig, layout);
    }
    return layout;
  }

  pipelineLayout(def: AnyKernelDef): GPUPipelineLayout {
    const sig = bindingsSignature(def);
    let layout = this.pipelineLayouts.get(sig);
    if (!layout) {
      layout = this.device.createPipelineLayout({
        label: def.id,
        bindGroupLayouts: [this.bindGroupLayout(def), this.paramsLayout],
      });
      this.pipelineLayouts.set(sig, layout);
    }
    return layout;
  }

  get(def: AnyKernelDef, overrides: Record<string, number>, elem: Elem): Promise<GPUComputePipeline> {
    const key = pipelineKey(def, overrides, elem);
    let p = this.pipelines.get(key);
    if (!p) {
      let code: string;
      try {
        code = specializedSource(def, overrides, elem);
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
      const source = `${bindingsSignature(def)}\n${code}`;
      const same = this.bySource.get(source);
      if (same) p = same.pipeline;
      else {
        const time: PipelineTime = { key, requested: performance.now() };
        this.times.push(time);
        const q = this.create(def, code, key);
        q.then(
          () => void (time.ready = performance.now()),
          () => this.bySource.delete(source),
        );
        this.bySource.set(source, { key, pipeline: q });
        p = q;
      }
      this.compiledAs.set(key, same?.key ?? key);
      p.catch(() => this.pipelines.delete(key));
      this.pipelines.set(key, p);
    }
    return p;
  }

  /** The key whose compile `get(def, overrides, elem)` shares (the pipeline's label): the key itself unless the same text was asked for first under another. */
  sharedKey(def: AnyKernelDef, overrides: Record<string, number>, elem: Elem): string {
    const key = pipelineKey(def, overrides, elem);
    return this.compiledAs.get(key) ?? key;
  }

  /**
   * The module of one pipeline (its WGSL: specializedSource), created now; `checked` rejects with its
   * compile errors (scoped: reported here, with its lines, not as an uncaptured device error).
   */
  private module(def: AnyKernelDef, code: string, key: string): { module: GPUShaderModule; checked: Promise<void> } {
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: key, code });
    const scoped = this.device.popErrorScope();
    const checked = (async () => {
      const [info, err] = await Promise.all([module.getCompilationInfo(), scoped]);
      const msg = formatCompileInfo(`${def.id}.wgsl`, info, code) || err?.message;
      if (msg) throw new DecoderError('compile', `${key} does not compile:\n${msg}`);
    })();
    // handled here, awaited later by create: the compile info can arrive (and reject) before the pipeline
    // settles, and a rejection with no handler yet is reported as unhandled even though create awaits it
    checked.catch(() => undefined);
    return { module, checked };
  }

  /** Asks for the pipeline now (synchronously); the promise settles once it is compiled and checked. */
  private create(def: AnyKernelDef, code: string, key: string): Promise<GPUComputePipeline> {
    const { module, checked } = this.module(def, code, key);
    this.device.pushErrorScope('validation');
    const pending = this.device.createComputePipelineAsync({
      label: key,
      layout: this.pipelineLayout(def),
      compute: { module, entryPoint: 'main' },
    });
    const scopedPipe = this.device.popErrorScope();
    return (async () => {
      const [pipe, scoped] = await Promise.all([
        pending.then(
          (p) => ({ p, e: null as unknown }),
          (e: unknown) => ({ p: null, e }),
        ),
        scopedPipe,
      ]);
      // a module's own errors first: they name the WGSL lines
      await checked;
      if (pipe.e || scoped || !pipe.p) {
        const why = pipe.e instanceof Error ? pipe.e.message : scoped ? scoped.message : String(pipe.e);
        throw new DecoderError('compile', `pipeline ${key} failed: ${why}`, { cause: pipe.e ?? scoped });
      }
      return pipe.p;
    })();
  }
}
