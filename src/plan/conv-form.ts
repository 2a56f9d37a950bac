// The conv form of every step, decided here and nowhere else: which kernel family runs each conv of a
// plan (Winograd F(2x2) / F(4x4), tensor cores with f16 or int8-dequantised weights, the portable conv
// over packed weights, or the portable direct conv), the eligibility rules, the per-shape tables and the
// measured costs behind them. The planner records the plan-time part on each conv step (ConvStep.form,
// and ConvStep.wino for Winograd's tile side and band); the adapter-dependent part of the portable conv
// (the head kernel, the generated tiled conv or conv3d, by the adapter's tuning) is `portableVariant`,
// which the executor calls (runtime/exec/step-kernels.ts). auto.ts, gpu-session.ts, the planner and the
// step kinds read these functions instead of deciding. Pure TS: no kernel module with shaders.
import type { ConvWeightFormat } from '../model/quantize';
import type { OptionValue } from '../options/schema';
import { tiledShapeError, type TiledShape } from '../kernels/conv3d-tiled-shape';
import { winoPositions, winoWeightLength, type WinoR, type WinoScratch } from '../kernels/winograd-transforms';

/** The --conv option (src/options/schema.ts). */
export type ConvOption = OptionValue<'conv'>;

/** The shape of a conv step this module decides on (graph.ts ConvStep has these fields). */
export interface ConvShape {
  ks: number;
  kt: number;
  cin: number;
  cout: number;
  up?: number;
  /** output spatial size */
  h: number;
  w: number;
}

/**
 * The plan-time form of a conv step:
 *   'winograd'  the non-fused Winograd conv (kernels/winograd.ts; tile side and band in ConvStep.wino)
 *   'mma'       tensor cores: operand copy + the blocked f16 GEMM (kernels/conv3d-mma-flat.ts)
 *   'mma-int8'  tensor cores with int8 weights: dequant-int8 into an f16 scratch, then 'mma'
 *   'wq'        the portable conv over packed weights (int8, or f16 beside f32 storage), dequantised in its operand load
 *   'portable'  the portable direct conv: conv3d-head, conv3d-tiled or conv3d by the adapter (portableVariant)
 *   'wino-mma'  Winograd on tensor cores: f16 V in the GEMM's operand layout, the batched subgroup-matrix GEMM,
 *               winograd-out (kernels/winograd-mma.ts; tile side and band in ConvStep.wino, with wino.mma)
 */
export type ConvForm = 'winograd' | 'mma' | 'mma-int8' | 'wq' | 'portable' | 'wino-mma';

// ---------------------------------------------------------------------------------------------------
// Tensor cores

/**
 * Tensor cores run every conv, the 3-channel head too (its output block is 16 channels wide, 13 of them
 * computed and dropped: 312 ms of the 4.96 s Wan2.1 480x832x81 decode on the portable conv at 1.6 TFLOP/s,
 * H200 profile 2026-12-01).
 */
export const onTensorCores = (_s: ConvShape): boolean => true;

/**
 * Whether a conv's cache ring holds its two frames (t-2, t-1) packed in the tensor-core operand layout
 * (kernels/conv-layout.ts mmaFrameElems) instead of raw: the cached 3-tap convs of the tensor-core forms.
 * Each call then packs frame t alone, the GEMM reads t-2 and t-1 from the ring, and the ring push copies
 * the packed t: each frame is packed once instead of three times (the pack was 327 ms, 10.7% of the
 * Wan2.1 480x832x81 decode's GPU time, H200 2026-12-02, d62b86f). About the same ring bytes (the padding
 * in, the inverse-RMS row out: Wan2.1 480x832x81 f16 cache 1815 -> 1832 MiB) and the operand copy holds one
 * frame for these convs instead of three (221 -> 147 MiB; whole plan 2424 -> 2367 MiB).
 */
export const packedRing = (s: ConvShape & { form?: ConvForm; ring?: string }): boolean => !!s.ring && s.kt === 3 && onMma(s.form);

/**
 * Whether an upsample Conv2d (nearest 2x, then 3x3) on tensor cores with f16 weights runs as its four output
 * phases' 2x2 convs of the low-resolution input (kernels/conv3d-mma-flat.ts `phases`, conv-layout.ts
 * upPhaseWeight): the same function with 16 multiply-adds per input pixel and channel pair instead of 36
 * (Wan2.1 480x832x81: 23 of the decode's 275 TFLOP are these convs), and an operand copy of the
 * low-resolution frame (a quarter of the upsampled one). Its weight is its own key (`${wkey}.weight.up2`, 16 taps).
 * int8 weights keep the upsampled form (dequant-int8 expands the conv's 9-tap blocks). The default; a plan made with
 * PlanOptions.upPhases false runs the upsampled GEMM. Measured (H100, 2026-12-07): 1.47-1.67x faster than that GEMM.
 */
export const upPhases = (s: ConvShape & { form?: ConvForm; phases?: boolean }): boolean => !!s.phases && s.form === 'mma';

/** The frame a conv's kernels see (their Params h, w): the output frame, or with upPhases the low-resolution input. */
export const convFrame = <S extends ConvShape & { form?: ConvForm; phases?: boolean }>(s: S): S | { cin: number; cout: number; h: number; w: number } =>
  upPhases(s) ? { cin: s.cin, cout: s.cout, h: s.h / 2, w: s.w / 2 } : s;

/** The key of a conv's weight buffer: the model's, or with upPhases its 16-tap phase weight (its own layout and size). */
export const convWeightKey = (s: { wkey: string; form?: ConvForm; phases?: boolean } & ConvShape): string => (upPhases(s) ? `${s.wkey}.weight.up2` : `${s.wkey}.weight`);

/** Whether decideConvForm gives a tensor-core conv its phases: an upsample Conv2d with f16 weights unless the plan declines them (PlanOptions.upPhases false). */
const phasesFor = (s: ConvShape, form: ConvForm, c: ConvFormContext): boolean => form === 'mma' && s.up === 1 && s.ks === 3 && s.kt === 1 && c.upPhases;

/**
 * Whether a plan with `tensorCores` asked may keep them: packed weights run the portable conv3d-wq (no
 * tensor cores, no operand copy), except int8 with f16 storage (dequant-int8 expands each conv's weights
 * to f16 just before its GEMM).
 */
export function tensorCoresAllowed(precision: 'f32' | 'f16', wFormat: ConvWeightFormat): boolean {
  return wFormat === 'elem' || (wFormat === 'int8' && precision === 'f16');
}

/** A plan's convs run on tensor cores: asked (and allowed, tensorCoresAllowed) with f16 storage. */
export const planOnTensorCores = (o: { tensorCores?: boolean; precision: 'f32' | 'f16' }): boolean => !!o.tensorCores && o.precision === 'f16';

/**
 * The tensor cores a decode of a plan runs on a device: the device's subgroup-matrix configuration where
 * the plan counted them (opts.tensorCores), else null. `replan`: the plan asked for them and the device
 * has none, so the same plan without their operand copy must be made (gpu-session.ts).
 */
export function deviceTensorCores<M>(o: { tensorCores?: boolean }, deviceMma: M | null): { mma: M | null; replan: boolean } {
  if (o.tensorCores && !deviceMma) return { mma: null, replan: true };
  return { mma: o.tensorCores && deviceMma ? deviceMma : null, replan: false };
}

// ---------------------------------------------------------------------------------------------------
// Winograd: where it runs, its bands and scratch

/**
 * Largest scratch (V + M, bytes) of one conv's band: 128 MiB, WebGPU's default maxStorageBufferBindingSize
 * (the scratch is bound whole), so Winograd never needs a larger binding than the adapter's default
 * (Wan2.1 96ch 480x832 unbanded would be 2.4 GB for F(2x2), 1.4 GB for F(4x4)). Measured on the H200 at
 * 256 MiB and at 128 MiB (bench/results/h200/, Winograd per-layer rows of 2026-12-01).
 */
export const WINO_SCRATCH_BYTES = 128 * 2 ** 20;

/** Tile count rounded up to the GEMM's 4-tile stride (V and M rows). */
const stride = (nt: number) => Math.ceil(nt / 4) * 4;

/** A conv's Winograd form in a plan: tile side r and tiles per band (a multiple of 128, or all the frame's tiles). */
export interface WinoPlan {
  r: WinoR;
  band: number;
  /** V, M and U in f32 or in the storage type (kernels/winograd-transforms.ts WinoScratch; winoScratchFor; absent: 'elem') */
  scratch?: WinoScratch;
  /** set: the conv runs on tensor cores (form 'wino-mma', winoMmaPlanFor); U in the GEMM's blocked layout */
  mma?: boolean;
  /**
   * 'call': U made per conv call (kernels/winograd-weights.ts winogradWeightsCall, before the first band's GEMM)
   * from the conv's f32 rows, held as a weight instead of U, into a scratch live during the conv's step (assignWinoU);
   * absent: U held, made at upload (exec/wino-weights.ts)
   */
  u?: 'call';
}

/** Output tiles of an h x w frame. */
export const winoTiles = (r: WinoR, h: number, w: number): number => Math.ceil(h / r) * Math.ceil(w / r);

/** Scratch elements of a band of `band` tiles: V [E][kt*cin][band] + M [E][cout][band]. */
export function winoScratchElems(r: WinoR, band: number, cin: number, cout: number, kt: number): number {
  return winoPositions(r) * (kt * cin + cout) * stride(band);
}

/**
 * The Winograd form of a conv, or null where it stays direct: 3x3 spatial taps and >= `minCout` output
 * channels (Wan's 3x3x3 causal convs and upsample Conv2d; 1x1, 3x1x1 and the 3- or 12-channel head stay
 * direct). Tiles per band: the most (a multiple of 128) whose scratch fits `capBytes`.
 */
export function winoPlanFor(r: WinoR, s: ConvShape, minCout = 96, capBytes = WINO_SCRATCH_BYTES, elemBytes = 4): WinoPlan | null {
  if (s.ks !== 3 || s.cout < Math.max(16, minCout)) return null;
  const all = winoTiles(r, s.h, s.w);
  const scratch = winoScratchFor(r, elemBytes);
  const perTile = winoPositions(r) * (s.kt * s.cin + s.cout) * winoScratchBytes(scratch, elemBytes);
  const fit = Math.max(128, Math.floor(capBytes / perTile / 128) * 128);
  return { r, band: Math.min(fit, stride(all)), scratch };
}

/**
 * V, M and U of F(r x r) in plans whose storage takes `elemBytes`: in f16 plans F(2x2) keeps them in f16 and
 * F(4x4) in f32. F(4x4) rounds through coefficients up to 25 (B^T) and 8 (A^T): with f16 V, M and U the Wan2.1
 * 480x832x81 decode came to 58.8 dB against the f32 decode (H200, 2026-12-01, 8afd812 + its probe patch,
 * bench/results/h200/probe-f16-wino-2026-12-01-8afd812), under the 60 dB of f16 paths; F(2x2) with f16 ones
 * 65.9 dB. Per layer (test/kernels/winograd-f16.node.test.ts, 96 channels, lavapipe) F(4x4) with an f32
 * scratch adds nothing measurable to the f16 output rounding (NMSE 4.6e-8), with an f16 one 10x that; whole
 * decode on lavapipe (2x8x13 latents, every conv F(4x4)): 67.6 dB against 57.9 dB.
 */
export function winoScratchFor(r: WinoR, elemBytes: number): WinoScratch {
  return elemBytes === 2 && r === 4 ? 'f32' : 'elem';
}

/** Bytes of one scratch (and U) element. */
export const winoScratchBytes = (sc: WinoScratch | undefined, elemBytes: number): number => (sc === 'f32' ? 4 : elemBytes);

// ---------------------------------------------------------------------------------------------------
// Winograd: U held or made per conv call

/** Where a plan's Winograd U lives (PlanOptions.winoU): 'auto' = assignWinoU's choice, 'held' = made at upload, 'call' = made per conv call wherever it can. */
export type WinoUOption = 'auto' | 'held' | 'call';

/** Bytes of a Winograd conv's U ([E][kt*cin][cout4], in its scratch type). */
export const winoUBytes = (wp: WinoPlan, s: Pick<ConvShape, 'cout' | 'cin' | 'kt'>, elemBytes: number): number =>
  Math.ceil((winoWeightLength(wp.r, s.cout, s.cin, s.kt) * winoScratchBytes(wp.scratch, elemBytes)) / 4) * 4;

/** Bytes of the f32 rows ([cout][cin][kt][3][3], the model's order) that a conv with U made per call holds instead of U. */
export const winoRowsBytes = (s: Pick<ConvShape, 'cout' | 'cin' | 'kt'>): number => s.cout * s.cin * s.kt * 9 * 4;

/**
 * Where the plan's Winograd convs (form 'winograd') keep U, decided over all the plan's steps at once (a weight is
 * held once however many programs name it). U made per call (WinoPlan.u = 'call'; kernels/winograd-weights.ts
 * winogradWeightsCall, in the conv's first band) on the convs whose U fits one binding of WINO_SCRATCH_BYTES and,
 * under 'auto', whose f32 rows take fewer bytes than U (F(4x4) U is 4x the rows in f32; F(2x2) U is 16/9 of them
 * in f32 and 8/9 in f16 storage: those stay held). U then lives only during its conv's step, in an activation
 * slot the planner gives it by liveness like a tensor's (planner.ts assignSlots: a slot free at that step, most
 * often one of the full-resolution tensors' while the low-resolution convs run). 'auto' takes it where that cannot
 * cost bytes: the rows plus the largest U (the most the slots can grow by) under every U held. The bands stay.
 * Wan2.1 480x832x81 f32 default: 5065.6 -> 4597.7 MiB planned, under the 4.5 GiB target; the per-call transform
 * moves 4-80 MB per conv call (winoCallBytes), under 1% of the call at the H200's bandwidth.
 */
export function assignWinoU(steps: Iterable<{ kind: string }>, o: WinoUOption, elemBytes: number): void {
  if (o === 'held') return;
  type S = ConvShape & { kind: 'conv'; wkey: string; form?: ConvForm; wino?: WinoPlan };
  const call: (S & { wino: WinoPlan })[] = [];
  for (const s of steps) {
    const c = s as S;
    if (s.kind !== 'conv' || c.form !== 'winograd' || !c.wino) continue;
    const u = winoUBytes(c.wino, c, elemBytes);
    if (u <= WINO_SCRATCH_BYTES && (o === 'call' || winoRowsBytes(c) < u)) call.push(c as S & { wino: WinoPlan });
  }
  if (!call.length) return;
  if (o === 'auto') {
    const held = new Map<string, number>(),
      rows = new Map<string, number>();
    let uMax = 0;
    for (const s of call) {
      const u = winoUBytes(s.wino, s, elemBytes);
      held.set(`${s.wkey}.${s.wino.r}`, u);
      rows.set(s.wkey, winoRowsBytes(s));
      uMax = Math.max(uMax, u);
    }
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    if (sum(rows) + uMax >= sum(held)) return;
  }
  for (const s of call) s.wino = { ...s.wino, u: 'call' };
}

/** Bands (dispatches of each of the three kernels) of a conv with an h x w output. */
export const winoBandCount = (wp: WinoPlan, h: number, w: number): number => Math.ceil(winoTiles(wp.r, h, w) / wp.band);

/** Params of each band dispatch of a conv whose direct params are `p` (kernels/winograd.ts WinoParams). */
export function winoBandParams<P extends { h: number; w: number; cin: number }>(wp: WinoPlan, p: P, kt: number): (P & { t0: number; nt: number; m_off: number })[] {
  const all = winoTiles(wp.r, p.h, p.w);
  const m_off = winoPositions(wp.r) * kt * p.cin * stride(wp.band);
  const out: (P & { t0: number; nt: number; m_off: number })[] = [];
  for (let t0 = 0; t0 < all; t0 += wp.band) out.push({ ...p, t0, nt: Math.min(wp.band, all - t0), m_off });
  return out;
}

/**
 * Per-layer milliseconds of the three forms at the shapes 'auto' was chosen from (H200, Dawn, f32, one
 * 3x3x3 conv): Wan2.1's four ANCHORS layers (build of df5671f, 2026-12-01) and Wan2.2's three largest
 * (build of 7117f36, 2026-12-01); bench/results/h200/ holds the runs. Effective 70-94 TFLOP/s for F(4x4)
 * against 26.5-29.8 direct at Wan2.1's widths; at 1024 channels F(4x4)'s 36 GEMMs over K = 3072 lose to F(2x2).
 */
export const WINO_MEASURED_MS: readonly { cout: number; h: number; w: number; direct: number; f2: number; f4: number }[] = [
  { cout: 96, h: 480, w: 832, direct: 6.84, f2: 4.28, f4: 2.66 },
  { cout: 192, h: 240, w: 416, direct: 6.86, f2: 3.68, f4: 2.15 },
  { cout: 384, h: 120, w: 208, direct: 6.68, f2: 3.48, f4: 2.11 },
  { cout: 384, h: 60, w: 104, direct: 1.87, f2: 0.95, f4: 0.71 },
  { cout: 256, h: 352, w: 640, direct: 30.61, f2: 15.37, f4: 9.15 },
  { cout: 512, h: 176, w: 320, direct: 31.53, f2: 14.46, f4: 10.09 },
  { cout: 1024, h: 88, w: 160, direct: 28.66, f2: 14.29, f4: 17.19 },
];

/**
 * 'auto' only on frames of at least AUTO_MIN_PIXELS (60x104, the smallest layer of WINO_MEASURED_MS):
 * below it nothing was measured, and at small decodes the fixed costs dominate (U, 4x the 3x3 weights,
 * transformed at upload; three more pipelines per conv form). On lavapipe the CLI test's 1x2x2 latent
 * (frames of 2x2 to 16x16 px) took 3 s direct and 8.5 s as F(4x4), 2026-12-01.
 */
export const AUTO_MIN_PIXELS = 60 * 104;

/**
 * 'auto' (WINO_MEASURED_MS): F(4x4) for the 3x3 convs of Wan2.1's widths (output channels a multiple of
 * 96) and of Wan2.2's 256 and 512 channels, F(2x2) at 1024 channels and more, the direct conv elsewhere.
 * F(2x2) also at >= 384 channels on frames of at most AUTO_MIN_PIXELS (Wan2.1 480x832's 60x104 level), where
 * F(4x4)'s U buys the least time per byte: its eleven convs hold 640 MB of F(4x4) U in f32 (4x their 3x3
 * weights; F(2x2): 16/9x) for 0.71 against 0.95 ms per call (f32), 231 calls: 354 MB for ~0.06 s of a ~5 s
 * decode (H200, 2026-12-01; the 120x208 level would give 195 MB for 0.34 s). f16 plans alike (their F(4x4)
 * U is f32 too; F(2x2) keeps V, M and U in f16).
 * Always the non-fused form: the input transform done in the GEMM's staging (a fused kernel, 7f5426c to 2026-12-06, V never in
 * global memory) was 1.8-2.6x slower on every Wan2.1 layer, f32 and f16 storage (H200, stock set, 2026-12-02, 7f5426c:
 * 96ch 480x832 F(4x4) 5.72 against 2.66 ms; bench/results/h200/wino-fused-2026-12-02-7f5426c/).
 */
function autoWino(s: ConvShape): WinoR | null {
  if (s.ks !== 3 || s.cout < 96 || s.h * s.w < AUTO_MIN_PIXELS) return null;
  if (s.cout >= 1024 && s.cout % 128 === 0) return 2;
  if (s.cout >= 384 && s.h * s.w <= AUTO_MIN_PIXELS) return 2;
  return s.cout % 96 === 0 || s.cout % 128 === 0 ? 4 : null;
}

/**
 * The Winograd form of one conv under --conv: null = a direct conv. 'winograd' / 'winograd4': every 3x3
 * conv with >= 16 output channels (the golden cases' small widths too); 'auto': the form measured fastest
 * for the conv's shape (autoWino).
 */
export function convFormFor(o: ConvOption, s: ConvShape, elemBytes = 4): WinoPlan | null {
  if (o === 'winograd') return winoPlanFor(2, s, 16, WINO_SCRATCH_BYTES, elemBytes);
  if (o === 'winograd4') return winoPlanFor(4, s, 16, WINO_SCRATCH_BYTES, elemBytes);
  if (o === 'auto') {
    const r = autoWino(s);
    return r ? winoPlanFor(r, s, 96, WINO_SCRATCH_BYTES, elemBytes) : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Winograd on tensor cores ('wino-mma', kernels/winograd-mma.ts)

/**
 * The tensor-core Winograd form of a conv, or null where it stays on conv3d-mma: 3x3 spatial taps, cin and cout
 * multiples of 16 (the GEMM's 16x16 operand blocks), >= `minCout` output channels. V, M and U in f16; tiles per
 * band: the most (a multiple of 128) whose V + M fit `capBytes`, or all the frame's tiles rounded up to 16 (the
 * GEMM reads V in blocks of 16 tiles, so the band's stride is a multiple of 16 and winoScratchElems holds).
 */
export function winoMmaPlanFor(r: WinoR, s: ConvShape, minCout = 16, capBytes = WINO_SCRATCH_BYTES): WinoPlan | null {
  if (s.ks !== 3 || s.cout < Math.max(16, minCout) || s.cin % 16 || s.cout % 16) return null;
  const all = winoTiles(r, s.h, s.w);
  const perTile = winoPositions(r) * (s.kt * s.cin + s.cout) * 2;
  const fit = Math.max(128, Math.floor(capBytes / perTile / 128) * 128);
  return { r, band: Math.min(fit, Math.ceil(all / 16) * 16), scratch: 'elem', mma: true };
}

/**
 * Per-layer milliseconds on the H200 of the tensor-core forms (f16, one 3x3x3 conv: conv3d-mma's pack + GEMM
 * against winograd-mma's three kernels over all bands), the table 'auto' reads for tensor-core plans. Empty: no
 * layer measured faster, so 'auto' keeps conv3d-mma and 'winograd' forces the form. Whole decodes with every
 * eligible conv as 'wino-mma' (H200, 2026-12-02, build of 31fac9c, bench/results/h200/winograd-mma-2026-12-02-31fac9c/):
 * Wan2.1 480x832x81 4.30 s against 3.63 s (162 -> 195 ms per latent chunk), Wan2.2 704x1280x121 19.73 s against
 * 20.17 s (627 -> 616 ms per chunk): the non-fused form moves ~4.6x the bytes of the direct conv (V, M round trips).
 */
export const WINO_MMA_MEASURED_MS: readonly { cout: number; h: number; w: number; mma: number; f2: number }[] = [];

/** 'auto' on tensor cores: F(2x2) where WINO_MMA_MEASURED_MS has the conv's width and frame and F(2x2) won there. */
function autoWinoMma(s: ConvShape): WinoR | null {
  const m = WINO_MMA_MEASURED_MS.find((x) => x.cout === s.cout && x.h === s.h && x.w === s.w);
  return m && m.f2 < m.mma ? 2 : null;
}

/** Whether a plan may run 'wino-mma': f16 on tensor cores with f16 weights held on the GPU (U is made at upload). */
export const winoMmaAllowed = (c: Pick<ConvFormContext, 'precision' | 'wFormat' | 'weightsStream' | 'tensorCores'>): boolean =>
  c.tensorCores && c.precision === 'f16' && c.wFormat === 'elem' && !c.weightsStream;

/**
 * The tensor-core Winograd form of one conv under --conv (null: conv3d-mma): 'winograd' = F(2x2) on every
 * eligible conv, 'auto' = the measured table. F(4x4) is not planned on tensor cores (its f16 V and M lost
 * 7 dB in the portable path, and its input transform is untested here: test/kernels/winograd-mma.node.test.ts).
 */
export function winoMmaFormFor(o: ConvOption, s: ConvShape): WinoPlan | null {
  if (o === 'winograd') return winoMmaPlanFor(2, s);
  if (o === 'auto') {
    const r = autoWinoMma(s);
    return r ? winoMmaPlanFor(r, s, 96) : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The plan-time decision, recorded on the steps

/** What the plan-time decision depends on: the plan's storage, weight format and levers. */
export interface ConvFormContext {
  precision: 'f32' | 'f16';
  wFormat: ConvWeightFormat;
  /** tensor cores asked and allowed (tensorCoresAllowed) */
  tensorCores: boolean;
  weightsStream: boolean;
  conv: ConvOption;
  /** PlanOptions.upPhases (default true): tensor-core upsample Conv2ds as four phases (upPhases) */
  upPhases: boolean;
}

/**
 * Winograd runs in portable plans (f32, or f16 without tensor cores: the stock-browser path) with weights in
 * the storage type held on the GPU (the U weights are made at upload; streamed and packed weights are not
 * transformed). f16 plans on tensor cores keep their GEMM (faster there, H200 2026-12-01: 4.08 s against
 * 5.37 s for Wan2.1 480x832x81).
 */
export const winogradAllowed = (c: Pick<ConvFormContext, 'precision' | 'wFormat' | 'weightsStream' | 'tensorCores'>): boolean =>
  (c.precision === 'f32' || !c.tensorCores) && c.wFormat === 'elem' && !c.weightsStream;

/** The plan-time form of one conv (the Winograd plan where it is 'winograd'). */
export function decideConvForm(s: ConvShape, c: ConvFormContext): { form: ConvForm; wino?: WinoPlan; phases?: true } {
  const wino = winogradAllowed(c) ? convFormFor(c.conv, s, c.precision === 'f16' ? 2 : 4) : null;
  if (wino) return { form: 'winograd', wino };
  const wm = winoMmaAllowed(c) ? winoMmaFormFor(c.conv, s) : null;
  if (wm) return { form: 'wino-mma', wino: wm };
  const tc = c.tensorCores && c.precision === 'f16' && onTensorCores(s);
  if (tc) {
    const form = c.wFormat === 'int8' ? 'mma-int8' : 'mma';
    return phasesFor(s, form, c) ? { form, phases: true } : { form };
  }
  if (c.wFormat !== 'elem') return { form: 'wq' };
  return { form: 'portable' };
}

/** Records the form of every conv step among `steps` (ConvStep.form, ConvStep.wino, ConvStep.phases). */
export function assignConvForms(steps: Iterable<{ kind: string }>, c: ConvFormContext): void {
  for (const s of steps)
    if (s.kind === 'conv') {
      const cs = s as unknown as ConvShape & { form?: ConvForm; wino?: WinoPlan; phases?: boolean };
      const d = decideConvForm(cs, c);
      cs.form = d.form;
      if (d.wino) cs.wino = d.wino;
      if (d.phases) cs.phases = true;
      else delete cs.phases;
    }
}

/** The tensor-core forms: the pack (conv3d-mma-pack / -pack-norm) + the blocked GEMM. */
const onMma = (form: ConvForm | undefined): boolean => form === 'mma' || form === 'mma-int8';

/**
 * --norm fused on tensor cores: the RMS_norm statistics of a conv's input are computed by its pack
 * (conv3d-mma-pack-norm, from the frame it reads anyway) instead of by an rms-norm pass that writes an
 * inverse-RMS row for the conv to read. Here, after the forms (assignConvForms): every statistics step
 * whose tensor is read (with that norm) only by tensor-core convs is dropped from `prog`, and those
 * convs get `norm.inPack` (frame-major tile starts follow). Statistics steps before other forms stay.
 * Why: the statistics passes took 154 ms of the Wan2.1 480x832x81 decode's 3062 ms of GPU time in
 * 1530 dispatches (H200 2026-12-02, d62b86f), reading every normalised tensor once more than the pack.
 */
export function assignStatsInPack(prog: { steps: { kind: string }[]; tileStarts?: number[] }): void {
  type Norm = { kind: 'norm'; stats: boolean; gkey: string; x: { t: object } };
  type Conv = { kind: 'conv'; form?: ConvForm; x: { t: object }; norm?: { gkey: string; silu: boolean; inPack?: boolean } };
  const readers = (n: Norm) => prog.steps.filter((s): s is Conv => s.kind === 'conv' && (s as Conv).x.t === n.x.t && (s as Conv).norm?.gkey === n.gkey);
  const drop = new Set<number>();
  prog.steps.forEach((s, i) => {
    if (s.kind !== 'norm' || !(s as Norm).stats) return;
    const convs = readers(s as Norm);
    if (!convs.length || !convs.every((c) => onMma(c.form))) return;
    for (const c of convs) c.norm = { ...c.norm!, inPack: true };
    drop.add(i);
  });
  if (!drop.size) return;
  if (prog.tileStarts) prog.tileStarts = prog.tileStarts.map((t) => t - [...drop].filter((i) => i < t).length);
  prog.steps = prog.steps.filter((_, i) => !drop.has(i));
}

/** Whether a plan's scratch counts the tensor-core operand copy / the int8 weights' f16 scratch (planner). */
export const countsMmaScratch = (c: Pick<ConvFormContext, 'tensorCores' | 'precision' | 'wFormat'>): boolean => c.tensorCores && c.precision === 'f16' && c.wFormat !== 'f16';
export const countsInt8Scratch = (c: Pick<ConvFormContext, 'tensorCores' | 'precision' | 'wFormat'>): boolean => c.tensorCores && c.precision === 'f16' && c.wFormat === 'int8';

// ---------------------------------------------------------------------------------------------------
// The adapter-dependent part: the kernel of a conv step on a device

/** The head kernel (shaders/conv3d-head.wgsl) holds at most this many output vec4 (its MAX_C4; test/structure checks). */
export const HEAD_MAX_C4 = 3;

/** The overrides of conv3d-head for a conv with `cout` output channels and kernel ks, upsampling `up`, or null when it does not apply. */
export function conv3dHeadFor(cout: number, ks: number, up: number): { COUT4: number } | null {
  return ks === 3 && up === 0 && cout <= 4 * HEAD_MAX_C4 ? { COUT4: Math.ceil(cout / 4) } : null;
}

/** The generated tiled conv's shapes the decoder runs (fma: one rounding per multiply-add): blocks of 96 or 128 channels x 64 or 128 pixels. */
export const TILED_GPU = {
  c96p128w: { wgN: 16, wgM: 24, tm4: 1, tn4: 2, bk: 12, fma: true }, // 4 ch x 8 px per invocation, 384 invocations
  c96p128: { wgN: 16, wgM: 12, tm4: 2, tn4: 2, bk: 12, fma: true }, // 8 ch x 8 px, 192 invocations
  c96p64: { wgN: 16, wgM: 12, tm4: 2, tn4: 1, bk: 12, fma: true }, // 8 ch x 4 px
  c128p128: { wgN: 16, wgM: 16, tm4: 2, tn4: 2, bk: 16, fma: true },
  c128p64: { wgN: 16, wgM: 16, tm4: 2, tn4: 1, bk: 16, fma: true },
} as const satisfies Record<string, TiledShape>;

/**
 * The generated conv the decoder runs for a conv with `cout` output channels on `hw` output pixels, or
 * null for conv3d: GPU tunings only (MODE 1; CPU adapters keep conv3d's direct loops), channel counts
 * that fill 96- or 128-channel blocks (Wan's 96 ... 1024; the head's 3 and 12 run conv3d-head). The
 * table is the H200's per-shape best (2026-12-01, fma forms, bench/results/h200/): 96-channel x 128-pixel
 * blocks of 4 x 8 per invocation on large frames (29.0 TFLOP/s at 96ch 480x832 and 192ch 240x416; the
 * 8 x 8 form where 384 invocations do not fit, 27.3-27.8), and 64-pixel blocks on frames under 50k
 * pixels, where 128-pixel ones leave the last wave of workgroups mostly empty (384ch 120x208: 128 x 64
 * at 29.7 vs 23.7 for 128 x 128; 384ch 60x104: 96 x 64 at 26.5).
 */
export function conv3dTiledFor(tuning: Record<string, number>, cout: number, hw: number, maxInvocations = 256): TiledShape | null {
  if (tuning.MODE !== 1) return null;
  const small = hw < 50_000;
  const options: TiledShape[] =
    small && cout % 128 === 0 && hw >= 20_000
      ? [TILED_GPU.c128p64]
      : cout % 96 === 0
        ? small
          ? [TILED_GPU.c96p64]
          : [TILED_GPU.c96p128w, TILED_GPU.c96p128]
        : cout % 128 === 0
          ? small
            ? [TILED_GPU.c128p64]
            : [TILED_GPU.c128p128]
          : [];
  return options.find((t) => !tiledShapeError(t, maxInvocations)) ?? null;
}

/** The portable direct conv's kernel on an adapter: conv3d-head, the generated tiled conv, or conv3d. */
export type PortableVariant = { kind: 'head'; head: { COUT4: number } } | { kind: 'tiled'; shape: TiledShape } | { kind: 'conv3d' };

/** The portable direct conv's kernel for conv `s` with the adapter's conv3d `tuning` (GPUs: head, then tiled; else conv3d). */
export function portableVariant(s: ConvShape, tuning: Record<string, number>, maxInvocations: number): PortableVariant {
  const head = tuning.MODE === 1 ? conv3dHeadFor(s.cout, s.ks, s.up ?? 0) : null;
  if (head) return { kind: 'head', head };
  const shape = conv3dTiledFor(tuning, s.cout, s.h * s.w, maxInvocations);
  return shape ? { kind: 'tiled', shape } : { kind: 'conv3d' };
}

/**
 * The kernel family of a conv step on a device: the form the planner recorded, except that the
 * tensor-core forms run the portable conv where no tensor cores are given (`mma` false; the executor's
 * tensor cores follow the plan: gpu-session.ts replans without them where the device has none). A step
 * with no recorded form (built outside plan()) gets the form its weight format and `mma` imply.
 */
export function deviceConvForm(s: ConvShape & { form?: ConvForm; wino?: WinoPlan }, mma: boolean, wFormat: ConvWeightFormat): ConvForm {
  const f =
    s.form ?? (s.wino ? 'winograd' : mma && onTensorCores(s) && wFormat !== 'f16' ? (wFormat === 'int8' ? 'mma-int8' : wFormat === 'elem' ? 'mma' : 'wq') : wFormat !== 'elem' ? 'wq' : 'portable');
  if ((f === 'mma' || f === 'mma-int8') && !mma) return f === 'mma-int8' ? 'wq' : 'portable';
  return f;
}
