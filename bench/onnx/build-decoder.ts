// The Wan decoder of ONE latent chunk (vae.py Decoder3d.forward on one latent frame, conv2 included) as
// an ONNX graph, with the causal feature cache as explicit graph inputs and outputs. This is the
// onnxruntime-web baseline of the benchmark: same weights, same math as src/cpu/decoder.ts (the oracle).
//
// Two chunk kinds, two models:
//   'first'  = chunk 0: no cache inputs; every cached conv sees 2 zero frames; upsample3d skips time_conv
//              ('Rep'); Wan2.2 DupUp3D drops its first ft-1 frames (first_chunk). Outputs cache_out_<slot>
//              for the conv slots only: time_conv slots hold 'Rep' after chunk 0, which chunk 1 reads as
//              zeros, so the runner feeds zeros there (exact: the official chunk-1 time_conv sees zeros).
//   'steady' = every later chunk: cache_in_<slot> / cache_out_<slot> for every slot, always 2 frames
//              (zeros or [0, x0] after chunk 0 equal the official 1-frame cache plus zero padding).
//
// Two graph layouts:
//   'conv3d' (default) the graph torch.onnx.export would give: tensors [1, C, T, H, W]; causal convs are
//            Concat(cache, x) on T + Conv 3D with spatial pads only; cache_out = Slice of the last 2 frames;
//            caches [1, C, 2, H, W]. onnxruntime-web runs 5-D Conv with its naive per-output shader.
//   'frames' an ORT-friendly rewrite: tensors [T, C, H, W] (frames as the batch); every causal 3x3x3 conv
//            becomes one Conv2d per output frame over its 3 input frames stacked on channels (a contiguous
//            Slice + free Reshape, weight [Cout, 3C, 3, 3]), so ORT uses its tiled Conv2d/MatMul kernels;
//            the time interleave is a free Reshape; chunk 0 uses only the current-frame tap (the other two
//            see zeros). Caches [2, C, H, W].
// Both: RMS norm = ReduceL2 over C, Clip(min 1e-12), Div, Mul by γ·√C (F.normalize as torch exports it;
// Clip because the WebGPU EP has no elementwise Max); SiLU = x·Sigmoid(x); attention = MatMul + Softmax
// (1/√C folded into the q weights); nearest 2x = Reshape/Expand/Reshape; DupUp3D and unpatchify =
// Reshape/Expand/Transpose/Reshape; output clamped with Clip(-1, 1). Opset 17, f32.
import type { DecoderConfig, ResBlockCfg, UpBlockCfg } from '../../src/model/config';
import type { Weights } from '../../src/model/weights';
import { attr, encodeModel, type AttrDef, type GraphDef, type NodeDef, type TensorDef, type ValueInfoDef } from './protobuf';

export type ChunkKind = 'first' | 'steady';
export type OnnxLayout = 'conv3d' | 'frames';

export interface ChunkModelOptions {
  /** latent height and width */
  h: number;
  w: number;
  kind: ChunkKind;
  /** default 'conv3d' */
  layout?: OnnxLayout;
  /**
   * weights in external data files (onnxruntime-web: session option `externalData`) instead of inside the
   * protobuf, which cannot exceed 2 GiB (Wan2.2 at full width has 2.1 GiB of f32 weights). Default 'auto':
   * external when the initializers exceed 1.5 GiB.
   */
  externalData?: boolean | 'auto';
}

export interface CacheSlotIO {
  slot: number;
  /** module path of the cached conv, e.g. decoder.middle.0.residual.2 or decoder.upsamples.3.time_conv */
  module: string;
  kind: 'conv' | 'time';
  /** physical shape: [1, C, 2, H, W] ('conv3d') or [2, C, H, W] ('frames') */
  shape: number[];
}

export interface ChunkModelIO {
  kind: ChunkKind;
  layout: OnnxLayout;
  /** input `x`: [1, zDim, 1, h, w], de-normalised latents of one frame (conv2 is inside the graph) */
  x: number[];
  /** output `video`: [1, 3, F, H, W], clamped to [-1, 1] (Wan2.2: unpatchified) */
  video: number[];
  /** cache_in_<slot> inputs ('first': none) */
  cacheIn: CacheSlotIO[];
  /** cache_out_<slot> outputs ('first': conv slots only) */
  cacheOut: CacheSlotIO[];
}

export interface ChunkModelStats {
  nodes: number;
  /** node count per op type */
  ops: Record<string, number>;
  /** initializer bytes (weights and shape constants) */
  initializerBytes: number;
  /** dense multiply-accumulates of the Conv and MatMul nodes */
  macs: number;
}

export interface ExternalDataFile {
  /** the `location` the model refers to; pass as { path, data } in the session option externalData */
  path: string;
  data: Uint8Array;
}

export interface BuiltChunkModel {
  bytes: Uint8Array;
  /** the weights when they are external (see ChunkModelOptions.externalData), else empty */
  externalData: ExternalDataFile[];
  io: ChunkModelIO;
  stats: ChunkModelStats;
}

/** Logical tensor [c, t, h, w] (batch 1) under the graph's layout. */
interface Tv {
  name: string;
  c: number;
  t: number;
  h: number;
  w: number;
}

const RMS_EPS = 1e-12;

class ChunkGraph {
  readonly nodes: NodeDef[] = [];
  readonly inits: TensorDef[] = [];
  readonly inputs: ValueInfoDef[] = [];
  readonly outputs: ValueInfoDef[] = [];
  readonly io: ChunkModelIO;
  macs = 0;
  private counter = 0;
  private readonly i64Cache = new Map<string, string>();
  private readonly f32Cache = new Map<string, string>();
  private readonly frames: boolean;
  private readonly first: boolean;

  constructor(
    private readonly cfg: DecoderConfig,
    private readonly weights: Weights | null,
    private readonly opts: Required<ChunkModelOptions>,
  ) {
    this.frames = opts.layout === 'frames';
    this.first = opts.kind === 'first';
    this.io = { kind: opts.kind, layout: opts.layout, x: [], video: [], cacheIn: [], cacheOut: [] };
  }

  // ---- graph plumbing ----

  private fresh(base: string): string {
    return `${base}:${this.counter++}`;
  }

  /** One node with one output; returns the output name. `label` (module path / role) names both. */
  private op(op: string, inputs: string[], label: string, attrs?: Record<string, AttrDef>): string {
    const out = this.fresh(`${label}/${op}`);
    this.nodes.push({ op, inputs, outputs: [out], name: out, attrs });
    return out;
  }

  private opN(op: string, inputs: string[], n: number, label: string, attrs?: Record<string, AttrDef>): string[] {
    const outs = Array.from({ length: n }, (_, i) => this.fresh(`${label}/${op}.${i}`));
    this.nodes.push({ op, inputs, outputs: outs, name: outs[0], attrs });
    return outs;
  }

  private i64(values: readonly number[]): string {
    const key = values.join(',');
    let name = this.i64Cache.get(key);
    if (!name) {
      name = `const_i64[${key}]`;
      this.inits.push({ name, dims: [values.length], data: BigInt64Array.from(values, (v) => BigInt(v)) });
      this.i64Cache.set(key, name);
    }
    return name;
  }

  private scalar(v: number): string {
    const key = String(v);
    let name = this.f32Cache.get(key);
    if (!name) {
      name = `const_f32[${key}]`;
      this.inits.push({ name, dims: [], data: Float32Array.of(v) });
      this.f32Cache.set(key, name);
    }
    return name;
  }

  /** A float initializer; `make` runs only when weights are present (shape-only builds skip the data). */
  private weight(name: string, dims: number[], make: () => Float32Array): string {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = this.weights ? make() : new Float32Array(0);
    if (this.weights && data.length !== n) throw new Error(`ONNX builder: ${name} has ${data.length} values, expected [${dims}]`);
    this.inits.push({ name, dims, data });
    return name;
  }

  private w(key: string): Float32Array {
    return this.weights!.get(key).data;
  }

  private dims(x: { c: number; t: number; h: number; w: number }): number[] {
    return this.frames ? [x.t, x.c, x.h, x.w] : [1, x.c, x.t, x.h, x.w];
  }

  private get tAxis(): number {
    return this.frames ? 0 : 2;
  }

  private reshape(x: string, shape: number[], label: string): string {
    return this.op('Reshape', [x, this.i64(shape)], label);
  }

  private sliceT(x: Tv, start: number, end: number, label: string): Tv {
    const name = this.op('Slice', [x.name, this.i64([start]), this.i64([end]), this.i64([this.tAxis])], label);
    return { ...x, name, t: end - start };
  }

  // ---- decoder ops on logical tensors ----

  /** RMS_norm over channels (F.normalize(x, dim=1)·√C·γ), optionally followed by SiLU. */
  private rmsNorm(x: Tv, gammaKey: string, silu: boolean, label: string): Tv {
    const C = x.c;
    const g = this.weight(gammaKey, this.frames ? [1, C, 1, 1] : [1, C, 1, 1, 1], () => {
      const s = Math.sqrt(C);
      return Float32Array.from(this.w(gammaKey), (v) => v * s);
    });
    let n = this.op('ReduceL2', [x.name], label, { axes: attr.ints([1]), keepdims: attr.int(1) });
    n = this.op('Clip', [n, this.scalar(RMS_EPS)], label);
    let y = this.op('Div', [x.name, n], label);
    y = this.op('Mul', [y, g], label);
    if (silu) y = this.op('Mul', [y, this.op('Sigmoid', [y], label)], label);
    return { ...x, name: y };
  }

  private bias(key: string, n: number): string {
    return this.weight(key, [n], () => this.w(key));
  }

  /** 1x1x1 conv (conv2, ResBlock shortcut): weight [cout, cin, 1, 1, 1]. */
  private pointwise(x: Tv, key: string): Tv {
    const wt = this.weights?.get(`${key}.weight`);
    const [cout, cin] = wt ? (wt.shape as [number, number]) : this.shapeOf(key);
    const W = this.weight(`${key}.weight`, this.frames ? [cout, cin, 1, 1] : [cout, cin, 1, 1, 1], () => this.w(`${key}.weight`));
    const name = this.op('Conv', [x.name, W, this.bias(`${key}.bias`, cout)], key, { kernel_shape: attr.ints(this.frames ? [1, 1] : [1, 1, 1]) });
    this.macs += cout * cin * x.t * x.h * x.w;
    return { ...x, name, c: cout };
  }

  /** Shapes without weights (shape-only builds): from the config. */
  private shapeOf(key: string): [number, number] {
    if (key === 'conv2') return [this.cfg.zDim, this.cfg.zDim];
    for (const rb of this.allResBlocks()) if (key === `${rb.path}.shortcut`) return [rb.cout, rb.cin];
    throw new Error(`ONNX builder: no shape for ${key}`);
  }

  private allResBlocks(): ResBlockCfg[] {
    return [this.cfg.middle.res0, this.cfg.middle.res1, ...this.cfg.upBlocks.flatMap((b) => b.resblocks)];
  }

  private cacheInput(slot: number, module: string, kind: 'conv' | 'time', x: Tv): string {
    const shape = this.dims({ ...x, t: 2 });
    const name = `cache_in_${slot}`;
    this.inputs.push({ name, elemType: 'float', shape });
    this.io.cacheIn.push({ slot, module, kind, shape });
    return name;
  }

  private cacheOutput(slot: number, module: string, kind: 'conv' | 'time', value: string, x: Tv): void {
    const shape = this.dims({ ...x, t: 2 });
    const name = `cache_out_${slot}`;
    this.nodes.push({ op: 'Identity', inputs: [value], outputs: [name], name });
    this.outputs.push({ name, elemType: 'float', shape });
    this.io.cacheOut.push({ slot, module, kind, shape });
  }

  /** Input frames t..t+2 of the time-padded sequence as one [1, 3C, H, W] tensor ('frames' layout). */
  private stack3(cat: Tv, t: number, label: string): string {
    const s = cat.t === 3 ? cat.name : this.sliceT(cat, t, t + 3, label).name;
    return this.reshape(s, [1, 3 * cat.c, cat.h, cat.w], label);
  }

  /** W [cout, cin, 3, kh, kw] -> [cout, 3·cin, kh, kw] with channel dt·cin + c (matches stack3). */
  private stackedWeight(key: string, cout: number, cin: number, kh: number, kw: number): string {
    return this.weight(`${key}.weight:stacked`, [cout, 3 * cin, kh, kw], () => {
      const src = this.w(`${key}.weight`);
      const k2 = kh * kw;
      const out = new Float32Array(cout * 3 * cin * k2);
      for (let o = 0; o < cout; o++)
        for (let c = 0; c < cin; c++) for (let dt = 0; dt < 3; dt++) out.set(src.subarray(((o * cin + c) * 3 + dt) * k2, ((o * cin + c) * 3 + dt + 1) * k2), ((o * 3 + dt) * cin + c) * k2);
      return out;
    });
  }

  /**
   * CausalConv3d with the cache (Rule CONV), kernel [cout, cin, 3, k, k] (k = 3 for the 3x3x3 convs,
   * 1 for time_conv). Returns the conv output [cout, T, H, W]; writes cache_out_<slot>.
   */
  private causalConv(x: Tv, key: string, slot: number, kind: 'conv' | 'time'): Tv {
    const wt = this.weights?.get(`${key}.weight`);
    const shape = wt ? (wt.shape as number[]) : this.causalShape(key);
    const [cout, cin, , k] = shape as [number, number, number, number];
    const pad = (k - 1) >> 1;
    const B = this.bias(`${key}.bias`, cout);
    this.macs += cout * cin * 3 * k * k * x.t * x.h * x.w;
    if (this.first) {
      if (kind === 'time') throw new Error('ONNX builder: time_conv does not run on the first chunk');
      // sees [0, 0, x]; the cache after chunk 0 is [0, x] (= the official 1-frame cache plus one zero frame)
      const cacheOut = this.op('Pad', [x.name, this.i64(this.frames ? [1, 0, 0, 0, 0, 0, 0, 0] : [0, 0, 1, 0, 0, 0, 0, 0, 0, 0])], key);
      this.cacheOutput(slot, key, kind, cacheOut, x);
      let name: string;
      if (this.frames) {
        // only the current-frame tap (dt = 2) meets non-zero input
        const W2 = this.weight(`${key}.weight:tap2`, [cout, cin, k, k], () => {
          const src = this.w(`${key}.weight`);
          const out = new Float32Array(cout * cin * k * k);
          for (let oc = 0; oc < cout * cin; oc++) out.set(src.subarray((oc * 3 + 2) * k * k, (oc * 3 + 3) * k * k), oc * k * k);
          return out;
        });
        name = this.op('Conv', [x.name, W2, B], key, { kernel_shape: attr.ints([k, k]), pads: attr.ints([pad, pad, pad, pad]) });
      } else {
        const W = this.weight(`${key}.weight`, [cout, cin, 3, k, k], () => this.w(`${key}.weight`));
        name = this.op('Conv', [x.name, W, B], key, { kernel_shape: attr.ints([3, k, k]), pads: attr.ints([2, pad, pad, 0, pad, pad]) });
      }
      return { ...x, name, c: cout };
    }
    const cache = this.cacheInput(slot, key, kind, x);
    const cat: Tv = { ...x, name: this.op('Concat', [cache, x.name], key, { axis: attr.int(this.tAxis) }), t: x.t + 2 };
    this.cacheOutput(slot, key, kind, this.sliceT(cat, x.t, x.t + 2, key).name, x);
    if (!this.frames) {
      const W = this.weight(`${key}.weight`, [cout, cin, 3, k, k], () => this.w(`${key}.weight`));
      const name = this.op('Conv', [cat.name, W, B], key, { kernel_shape: attr.ints([3, k, k]), pads: attr.ints([0, pad, pad, 0, pad, pad]) });
      return { ...x, name, c: cout };
    }
    const W = this.stackedWeight(key, cout, cin, k, k);
    const outs: string[] = [];
    for (let t = 0; t < x.t; t++) outs.push(this.op('Conv', [this.stack3(cat, t, key), W, B], key, { kernel_shape: attr.ints([k, k]), pads: attr.ints([pad, pad, pad, pad]) }));
    const name = outs.length === 1 ? outs[0]! : this.op('Concat', outs, key, { axis: attr.int(0) });
    return { ...x, name, c: cout };
  }

  private causalShape(key: string): number[] {
    const cfg = this.cfg;
    if (key === 'decoder.conv1') return [cfg.midDim, cfg.zDim, 3, 3, 3];
    if (key === 'decoder.head.2') return [cfg.head.cout, cfg.head.cin, 3, 3, 3];
    for (const rb of this.allResBlocks()) {
      if (key === `${rb.path}.residual.2`) return [rb.cout, rb.cin, 3, 3, 3];
      if (key === `${rb.path}.residual.6`) return [rb.cout, rb.cout, 3, 3, 3];
    }
    for (const b of cfg.upBlocks) if (b.resample && key === `${b.resample.path}.time_conv`) return [2 * b.resample.cin, b.resample.cin, 3, 1, 1];
    throw new Error(`ONNX builder: no shape for ${key}`);
  }

  private resBlock(x: Tv, rb: ResBlockCfg): Tv {
    const h = rb.shortcut ? this.pointwise(x, `${rb.path}.shortcut`) : x;
    let a = this.rmsNorm(x, `${rb.path}.residual.0.gamma`, true, `${rb.path}.residual.0`);
    a = this.causalConv(a, `${rb.path}.residual.2`, rb.slots[0], 'conv');
    a = this.rmsNorm(a, `${rb.path}.residual.3.gamma`, true, `${rb.path}.residual.3`);
    a = this.causalConv(a, `${rb.path}.residual.6`, rb.slots[1], 'conv');
    return { ...a, name: this.op('Add', [a.name, h.name], rb.path) };
  }

  /** Single-head attention per frame with the residual (vae.py AttentionBlock). */
  private attention(x: Tv): Tv {
    const p = this.cfg.middle.attn.path;
    const C = x.c,
      N = x.h * x.w,
      T = x.t;
    const u = this.rmsNorm(x, `${p}.norm.gamma`, false, `${p}.norm`);
    // [T, N, C] token-major
    const tok = this.reshape(this.op('Transpose', [u.name], p, { perm: attr.ints(this.frames ? [0, 2, 3, 1] : [0, 2, 3, 4, 1]) }), [T, N, C], p);
    const scale = 1 / Math.sqrt(C);
    // to_qkv.weight [3C, C, 1, 1] -> [C, 3C], q rows scaled by 1/√C
    const Wqkv = this.weight(`${p}.to_qkv.weight:T`, [C, 3 * C], () => {
      const src = this.w(`${p}.to_qkv.weight`);
      const out = new Float32Array(C * 3 * C);
      for (let o = 0; o < 3 * C; o++) for (let c = 0; c < C; c++) out[c * 3 * C + o] = src[o * C + c]! * (o < C ? scale : 1);
      return out;
    });
    const bqkv = this.weight(`${p}.to_qkv.bias:scaled`, [3 * C], () => Float32Array.from(this.w(`${p}.to_qkv.bias`), (v, o) => (o < C ? v * scale : v)));
    const qkv = this.op('Add', [this.op('MatMul', [tok, Wqkv], p), bqkv], p);
    const [q, k, v] = this.opN('Split', [qkv], 3, p, { axis: attr.int(2) }) as [string, string, string];
    const s = this.op('MatMul', [q, this.op('Transpose', [k], p, { perm: attr.ints([0, 2, 1]) })], p);
    const a = this.op('Softmax', [s], p, { axis: attr.int(-1) });
    const o = this.op('MatMul', [a, v], p);
    const Wp = this.weight(`${p}.proj.weight:T`, [C, C], () => {
      const src = this.w(`${p}.proj.weight`);
      const out = new Float32Array(C * C);
      for (let r = 0; r < C; r++) for (let c = 0; c < C; c++) out[c * C + r] = src[r * C + c]!;
      return out;
    });
    const proj = this.op('Add', [this.op('MatMul', [o, Wp], p), this.bias(`${p}.proj.bias`, C)], p);
    this.macs += T * (N * C * 3 * C + 2 * N * N * C + N * C * C);
    const back = this.frames
      ? this.op('Transpose', [this.reshape(proj, [T, x.h, x.w, C], p)], p, { perm: attr.ints([0, 3, 1, 2]) })
      : this.op('Transpose', [this.reshape(proj, [1, T, x.h, x.w, C], p)], p, { perm: attr.ints([0, 4, 1, 2, 3]) });
    return { ...x, name: this.op('Add', [x.name, back], p) };
  }

  /** Nearest 2x in H and W: out[y][x] = in[y>>1][x>>1]. */
  private upsample2x(x: Tv, label: string): Tv {
    const lead = this.frames ? [x.t, x.c] : [1, x.c, x.t];
    let y = this.reshape(x.name, [...lead, x.h, 1, x.w, 1], label);
    y = this.op('Expand', [y, this.i64([...lead, x.h, 2, x.w, 2])], label);
    y = this.reshape(y, [...lead, 2 * x.h, 2 * x.w], label);
    return { ...x, name: y, h: 2 * x.h, w: 2 * x.w };
  }

  /** Resample: (upsample3d: time_conv + interleave, not on chunk 0), nearest 2x, Conv2d 3x3 per frame. */
  private resample(x: Tv, blk: UpBlockCfg): Tv {
    const rs = blk.resample!;
    if (rs.mode === 'upsample3d' && !this.first) {
      const tc = this.causalConv(x, `${rs.path}.time_conv`, rs.slot, 'time');
      // out[k, 2τ + s] = tc[s·C + k, τ]
      const C = x.c,
        T = x.t;
      const name = this.frames
        ? this.reshape(tc.name, [2 * T, C, x.h, x.w], `${rs.path}.time_conv`)
        : this.reshape(
            this.op('Transpose', [this.reshape(tc.name, [1, 2, C, T, x.h, x.w], `${rs.path}.time_conv`)], `${rs.path}.time_conv`, {
              perm: attr.ints([0, 2, 3, 1, 4, 5]),
            }),
            [1, C, 2 * T, x.h, x.w],
            `${rs.path}.time_conv`,
          );
      x = { ...x, name, t: 2 * T };
    }
    const up = this.upsample2x(x, `${rs.path}.resample.0`);
    const key = `${rs.path}.resample.1`;
    const W = this.weight(`${key}.weight`, this.frames ? [rs.cout, rs.cin, 3, 3] : [rs.cout, rs.cin, 1, 3, 3], () => this.w(`${key}.weight`));
    const name = this.op('Conv', [up.name, W, this.bias(`${key}.bias`, rs.cout)], key, {
      kernel_shape: attr.ints(this.frames ? [3, 3] : [1, 3, 3]),
      pads: attr.ints(this.frames ? [1, 1, 1, 1] : [0, 1, 1, 0, 1, 1]),
    });
    this.macs += rs.cout * rs.cin * 9 * up.t * up.h * up.w;
    return { ...up, name, c: rs.cout };
  }

  /** Wan2.2 DupUp3D of the up block's input (parameter free), first ft-1 frames dropped on chunk 0. */
  private dupUp(x: Tv, blk: UpBlockCfg): Tv {
    const { cout, ft, fs, r } = blk.dupUp!;
    const label = `decoder.upsamples.${blk.index}.avg_shortcut`;
    let y: string;
    if (this.frames) {
      y = this.reshape(x.name, [x.t, x.c, 1, x.h, x.w], label);
      y = this.op('Expand', [y, this.i64([x.t, x.c, r, x.h, x.w])], label);
      y = this.reshape(y, [x.t, cout, ft, fs, fs, x.h, x.w], label);
      y = this.op('Transpose', [y], label, { perm: attr.ints([0, 2, 1, 5, 3, 6, 4]) });
      y = this.reshape(y, [x.t * ft, cout, x.h * fs, x.w * fs], label);
    } else {
      y = this.reshape(x.name, [1, x.c, 1, x.t, x.h, x.w], label);
      y = this.op('Expand', [y, this.i64([1, x.c, r, x.t, x.h, x.w])], label);
      y = this.reshape(y, [1, cout, ft, fs, fs, x.t, x.h, x.w], label);
      y = this.op('Transpose', [y], label, { perm: attr.ints([0, 1, 5, 2, 6, 3, 7, 4]) });
      y = this.reshape(y, [1, cout, x.t * ft, x.h * fs, x.w * fs], label);
    }
    const out: Tv = { name: y, c: cout, t: x.t * ft, h: x.h * fs, w: x.w * fs };
    return this.first && ft > 1 ? this.sliceT(out, ft - 1, out.t, label) : out;
  }

  build(): void {
    const { cfg } = this;
    const { h, w } = this.opts;
    const xShape = [1, cfg.zDim, 1, h, w];
    this.inputs.push({ name: 'x', elemType: 'float', shape: xShape });
    this.io.x = xShape;
    let x: Tv = { name: this.frames ? this.reshape('x', [1, cfg.zDim, h, w], 'x') : 'x', c: cfg.zDim, t: 1, h, w };
    x = this.pointwise(x, 'conv2');
    x = this.causalConv(x, 'decoder.conv1', 0, 'conv');
    x = this.resBlock(x, cfg.middle.res0);
    x = this.attention(x);
    x = this.resBlock(x, cfg.middle.res1);
    for (const blk of cfg.upBlocks) {
      const input = x;
      for (const rb of blk.resblocks) x = this.resBlock(x, rb);
      if (blk.resample) x = this.resample(x, blk);
      if (blk.dupUp) {
        const s = this.dupUp(input, blk);
        if (s.t !== x.t || s.c !== x.c || s.h !== x.h) throw new Error(`ONNX builder: DupUp3D of up block ${blk.index} gives [${s.c},${s.t},${s.h},${s.w}], main path [${x.c},${x.t},${x.h},${x.w}]`);
        x = { ...x, name: this.op('Add', [x.name, s.name], `decoder.upsamples.${blk.index}`) };
      }
    }
    x = this.rmsNorm(x, 'decoder.head.0.gamma', true, 'decoder.head.0');
    x = this.causalConv(x, 'decoder.head.2', cfg.head.slot, 'conv');
    // -> [1, 3, T, H, W]
    const P = cfg.patch,
      T = x.t;
    let v: string;
    if (this.frames) {
      let f = x.name; // [T, 3P², h, w]
      if (P === 2) {
        f = this.reshape(f, [T, 3, 2, 2, x.h, x.w], 'unpatchify');
        f = this.op('Transpose', [f], 'unpatchify', { perm: attr.ints([0, 1, 4, 3, 5, 2]) });
        f = this.reshape(f, [T, 3, 2 * x.h, 2 * x.w], 'unpatchify');
      }
      v = this.op('Transpose', [f], 'video', { perm: attr.ints([1, 0, 2, 3]) });
      v = this.reshape(v, [1, 3, T, P * x.h, P * x.w], 'video');
    } else {
      v = x.name;
      if (P === 2) {
        v = this.reshape(v, [1, 3, 2, 2, T, x.h, x.w], 'unpatchify');
        v = this.op('Transpose', [v], 'unpatchify', { perm: attr.ints([0, 1, 4, 5, 3, 6, 2]) });
        v = this.reshape(v, [1, 3, T, 2 * x.h, 2 * x.w], 'unpatchify');
      }
    }
    const videoShape = [1, 3, T, P * x.h, P * x.w];
    this.nodes.push({ op: 'Clip', inputs: [v, this.scalar(-1), this.scalar(1)], outputs: ['video'], name: 'video' });
    this.outputs.unshift({ name: 'video', elemType: 'float', shape: videoShape });
    this.io.video = videoShape;
  }

  graph(): GraphDef {
    return { name: `wan${this.cfg.version}-decoder-chunk-${this.opts.kind}-${this.opts.layout}`, nodes: this.nodes, initializers: this.inits, inputs: this.inputs, outputs: this.outputs };
  }
}

function normalise(opts: ChunkModelOptions): Required<ChunkModelOptions> {
  if (!(opts.h > 0 && opts.w > 0 && Number.isInteger(opts.h) && Number.isInteger(opts.w))) throw new Error(`buildChunkModel: bad latent size ${opts.h}x${opts.w}`);
  return { layout: 'conv3d', externalData: 'auto', ...opts };
}

const EXTERNAL_AUTO_BYTES = 1.5 * 2 ** 30;
/** external data files are cut at 1 GiB (one ArrayBuffer each, well inside every engine's limits) */
const EXTERNAL_FILE_BYTES = 2 ** 30;

/** Moves the float initializers of at least 1 KiB into external files of at most 1 GiB, 64-byte aligned. */
function externalize(inits: TensorDef[], kind: ChunkKind): ExternalDataFile[] {
  const big = inits.filter((t) => t.data instanceof Float32Array && t.data.byteLength >= 1024);
  const files: { path: string; parts: { t: TensorDef; offset: number }[]; size: number }[] = [];
  for (const t of big) {
    let f = files[files.length - 1];
    let at = f ? Math.ceil(f.size / 64) * 64 : 0;
    if (!f || at + t.data.byteLength > EXTERNAL_FILE_BYTES) {
      f = { path: `wan-decoder-${kind}.weights.${files.length}.bin`, parts: [], size: 0 };
      files.push(f);
      at = 0;
    }
    f.parts.push({ t, offset: at });
    f.size = at + t.data.byteLength;
  }
  return files.map((f) => {
    const data = new Uint8Array(f.size);
    for (const { t, offset } of f.parts) {
      data.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), offset);
      t.external = { location: f.path, offset, length: t.data.byteLength };
    }
    return { path: f.path, data };
  });
}

/** The chunk model with its IO description and statistics. `weights: null` gives io/stats only (bytes empty). */
export function buildChunk(cfg: DecoderConfig, weights: Weights | null, opts: ChunkModelOptions): BuiltChunkModel {
  const o = normalise(opts);
  const g = new ChunkGraph(cfg, weights, o);
  g.build();
  const ops: Record<string, number> = {};
  for (const n of g.nodes) ops[n.op] = (ops[n.op] ?? 0) + 1;
  const initializerBytes = g.inits.reduce((a, t) => a + (weights ? t.data.byteLength : t.dims.reduce((x, y) => x * y, 1) * 4), 0);
  const stats = { nodes: g.nodes.length, ops, initializerBytes, macs: g.macs };
  if (!weights) return { bytes: new Uint8Array(0), externalData: [], io: g.io, stats };
  const external = o.externalData === 'auto' ? initializerBytes > EXTERNAL_AUTO_BYTES : o.externalData;
  const externalData = external ? externalize(g.inits, o.kind) : [];
  return { bytes: encodeModel({ graph: g.graph(), opset: 17 }), externalData, io: g.io, stats };
}

/**
 * ONNX bytes of the decoder of one latent chunk (see the file header for inputs, outputs and layouts).
 * Throws when the weights do not fit in one protobuf (use buildChunk and its externalData then).
 */
export function buildChunkModel(cfg: DecoderConfig, weights: Weights, opts: ChunkModelOptions): Uint8Array {
  const m = buildChunk(cfg, weights, opts);
  if (m.externalData.length)
    throw new Error(
      `buildChunkModel: the weights (${(m.stats.initializerBytes / 2 ** 30).toFixed(2)} GiB) need ONNX external data: use buildChunk() and pass the model with its externalData to runOrtDecode`,
    );
  return m.bytes;
}

/** The chunk model's inputs and outputs without building it. */
export function chunkModelIO(cfg: DecoderConfig, opts: ChunkModelOptions): ChunkModelIO {
  return buildChunk(cfg, null, opts).io;
}
