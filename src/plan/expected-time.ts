// The expected time of a plan's decode, for choices between plans that are equally exact (fitPlan: weights
// streamed at fewer tiles against resident weights at more tiles; `wan-vae plan` prints it). A model, not a
// measurement: every step of every program run (tile halos included, so the tile recompute counts) priced by
// what it is: a conv by its form (conv-form.ts: direct, the 3- or 12-channel head, tensor cores with f16 or
// int8 weights, Winograd F(2x2) / F(4x4) portable or on tensor cores, packed weights dequantised in the
// load) at that form's measured rate, a norm by the pixels it reads, attention by its FLOPs; plus
// `dispatchSeconds` per dispatch (small tiles: many small dispatches); plus the bytes the plan moves
// over the bus (streamed weights, the CPU store, parked caches) and the build of the decoder with a filled
// driver shader cache (what the CLI's `seconds` holds). Rates from the H200 per-layer profiles below;
// checked against every recorded H200 decode by test/plan/expected-time-h200.node.test.ts.
import type { ConvStep, Step } from './graph';
import { kindOf } from './step-kinds';
import { upPhases, winoScratchBytes } from './conv-form';
import { winoCallBytes } from '../kernels/winograd-transforms';
import { attentionMmaShapeFor } from '../kernels/attention-mma-measured';
import { runOrder } from './weight-stream';
import type { Plan } from './planner';

/**
 * H200 through Dawn, 2026-12-01 (bench/results/h200/; GPU time of one warm Wan2.1 480x832x81 decode per
 * kernel kind, `bench/profile.ts`). Conv rates are of the direct conv's FLOPs (2 x multiply-adds of the 3-D
 * conv), whatever form computes them:
 *   portableF32Flops  conv3d-tiled, f32: 9.57 s of conv for 273 TFLOP less the head (portable-2026-12-01-d6f80d3/call2)
 *   portableF16Flops  the same in f16 storage: 10.03 s (mma-2026-12-01-e96e7c0, tensor cores off)
 *   headFlops         conv3d-head 96->3: 117.3 ms for 0.50 TFLOP; headMmaFlops: the head on tensor cores, 59.6 ms
 *   wino4Flops        F(4x4) portable (in + GEMM + out): 3.58 s for 271.3 TFLOP (winograd-2026-12-01-df5671f/call2
 *                     auto, less the head and the direct 1x1 / time convs); per layer 70-94 (WINO_MEASURED_MS)
 *   wino2Flops        F(2x2) portable: per layer 46.5-57 TFLOP/s at Wan2.1's and Wan2.2's widths (WINO_MEASURED_MS)
 *   tensorCoreFlops   the blocked f16 GEMM + operand copy: 2.64 s for 273 TFLOP (mma-2026-12-01-3ced731/final, norm fused)
 *   tensorCoreInt8Flops  dequant-int8 + that GEMM: Wan2.1 480x832x81 whole frames 7.82 s by the CLI, JS int8 packing
 *                     included (levers-int8-2026-12-01-f92a682)
 *   wqFlops           the portable conv over packed int8 / f16 weights (levers-2026-12-01-fc373eb, 14.1 s whole frames)
 *   tensorCorePhaseFlops  the upsample Conv2d as four output phases on tensor cores (conv-form.ts upPhases): Wan2.1
 *                     480x832x81's three of them 190.2 ms of GEMM upsampled, 123.1 ms as phases (1.55x, not the 2.25x
 *                     of the multiplies: the phase GEMM runs at 74-94 TFLOP/s of its own FLOPs; H100,
 *                     phases-ab-h100-2026-12-07-43ceb57), so tensorCoreFlops x 1.55
 *   winoMmaFlops      Winograd F(2x2) on tensor cores: NOT measured yet; priced at 2.25x fewer multiplies than
 *                     tensorCoreFlops at 60% of its rate (F(4x4) portable keeps 75.7 of 28.5 x 4 = 66%)
 *   winoCallBytes     winograd-u, U made per conv call (conv-form.ts WinoPlan.u): NOT measured yet; its bytes (the f32
 *                     rows read, U written: kernels/winograd-transforms.ts winoCallBytes) at 3 TB/s, ~60% of the H200's
 *                     4.8 TB/s; its dispatch rides in its conv's first uniform slot (dispatchSeconds is per slot)
 *   normSeconds       per normed value: full (statistics + apply) f32 331 ms / 3.38e10 values, f16 293 ms; statistics
 *                     only (norm fused into the next conv's load) 155 ms
 *   attnF32Flops / attnF16Flops  the middle block's attention: 252 / 210 ms for 1.26 TFLOP
 *   attnMmaFlops      the attention on tensor cores where a shape is measured for its head dim (attention-mma.ts
 *                     ATTENTION_MMA_MEASURED): 7.74 ms per 480x832 frame, 7.7 TFLOP/s (attn-mma-enable-2026-12-04-d988a92);
 *                     720x1280 split 4 at 7.5 TFLOP/s on an H100 (attn-forms-h100-2026-12-06-e5a7fce)
 *   dispatchSeconds   added per dispatch (fitted on the tiled decodes of levers-2026-12-01-*: small tiles, many small dispatches)
 *   busBytes          writeBuffer / readback through Dawn's staging; weight uploads hidden behind the compute
 *                     with 3 or more ring slots and not with 2
 *   startSeconds + startPerWeight x conv weights: the build inside the CLI's `seconds` with a filled driver
 *                     cache, growing with the weights prepared; since the uploads go through a mapped pair
 *                     (exec/upload-pair.ts) the build until the first chunk may start (`startup.readyMs`) was 0.80 s
 *                     for Wan2.2 (555 M weights; 2.46 s through writeBuffer) and 0.36-0.41 s for Wan2.1 (73 M), tensor
 *                     cores, H100 (mapped-upload-h100-2026-12-07-d386c5d): 0.3 s + 0.9 ns a weight
 *   int8PackPerWeight int8 weights are packed in JS inside `seconds` (bench/levers/int8-pack-time.ts): Wan2.2 704x1280x9
 *                     in 1 GiB took 35.6 s, "most of it the JS packing" (docs/memory-levers.md; levers-int8-2026-12-01-f92a682)
 */
export const EXPECTED_RATES = {
  portableF32Flops: 28.5e12,
  portableF16Flops: 27.6e12,
  headFlops: 4.2e12,
  headMmaFlops: 8.3e12,
  wino4Flops: 75.7e12,
  wino2Flops: 52e12,
  tensorCoreFlops: 103e12,
  tensorCoreInt8Flops: 47.7e12,
  wqFlops: 19.8e12,
  tensorCorePhaseFlops: 103e12 * 1.55,
  winoMmaFlops: 103e12 * 2.25 * 0.6,
  winoCallBytes: 3e12,
  normF32Seconds: 9.8e-12,
  normF16Seconds: 8.7e-12,
  normStatsSeconds: 4.6e-12,
  attnF32Flops: 5.0e12,
  attnF16Flops: 6.0e12,
  attnMmaFlops: 7.7e12,
  dispatchSeconds: 65e-6,
  busBytes: 2e9,
  startSeconds: 0.3,
  startPerWeight: 0.9e-9,
  int8PackPerWeight: 40e-9,
} as const;

/** Conv weights of `p`'s model (each conv step's weight once). */
function convWeights(p: Pick<Plan, 'programs'>): number {
  const seen = new Map<string, number>();
  for (const progs of Object.values(p.programs)) for (const pp of progs ?? []) for (const s of pp.prog.steps) if (s.kind === 'conv') seen.set(s.wkey, s.cout * s.cin * s.kt * s.ks * s.ks);
  let n = 0;
  for (const v of seen.values()) n += v;
  return n;
}

/** conv FLOP/s of one conv step of a plan with options `o` (EXPECTED_RATES; the step's form set by the planner). */
export function convRate(s: Pick<ConvStep, 'form' | 'wino' | 'cout' | 'up' | 'ks' | 'kt' | 'cin' | 'h' | 'w' | 'phases'>, o: Pick<Plan['opts'], 'precision'>): number {
  const R = EXPECTED_RATES;
  switch (s.form) {
    case 'winograd':
      return s.wino?.r === 2 ? R.wino2Flops : R.wino4Flops;
    case 'wino-mma':
      return R.winoMmaFlops;
    case 'mma':
      return s.cout <= 12 ? R.headMmaFlops : upPhases(s) ? R.tensorCorePhaseFlops : R.tensorCoreFlops;
    case 'mma-int8':
      return s.cout <= 12 ? R.headMmaFlops : R.tensorCoreInt8Flops;
    case 'wq':
      return R.wqFlops;
    default:
      return s.cout <= 12 ? R.headFlops : o.precision === 'f16' ? R.portableF16Flops : R.portableF32Flops;
  }
}

/** Seconds of the per-call weight transform of a Winograd conv with U made per call (winograd-u, by its bytes), else 0. */
function winoCallSeconds(s: ConvStep, o: Pick<Plan['opts'], 'precision'>): number {
  if (s.wino?.u !== 'call') return 0;
  const uBytes = winoScratchBytes(s.wino.scratch, o.precision === 'f16' ? 2 : 4);
  return winoCallBytes(s.wino.r, s.cout, s.cin, s.kt, uBytes) / EXPECTED_RATES.winoCallBytes;
}

/** FLOP/s of an attention step: on tensor cores where step-kernels.ts would pick attention-mma, else the portable kernel's */
function attnRate(s: { c: number; n: number }, o: Pick<Plan['opts'], 'precision' | 'tensorCores'>): number {
  const R = EXPECTED_RATES;
  if (o.precision !== 'f16') return R.attnF32Flops;
  return o.tensorCores && attentionMmaShapeFor(s) ? R.attnMmaFlops : R.attnF16Flops;
}

/** Seconds of one step of a plan with options `o`, without the per-dispatch cost. */
function stepCompute(s: Step, o: Pick<Plan['opts'], 'precision' | 'tensorCores'>): number {
  const R = EXPECTED_RATES;
  if (s.kind === 'conv') return (2 * s.cout * s.cin * s.kt * s.ks * s.ks * s.h * s.w) / convRate(s, o) + winoCallSeconds(s, o);
  if (s.kind === 'norm') return s.c * s.hw * (s.stats ? R.normStatsSeconds : o.precision === 'f16' ? R.normF16Seconds : R.normF32Seconds);
  if (s.kind === 'attn') return (4 * s.n * s.n * s.c) / attnRate(s, o);
  return 0;
}

/** Seconds of the steps of one program run: each step's compute plus dispatchSeconds per dispatch. */
function programSeconds(steps: readonly Step[], o: Pick<Plan['opts'], 'precision' | 'tensorCores'>): number {
  let t = 0;
  for (const s of steps) t += stepCompute(s, o) + kindOf(s).dispatches(s) * EXPECTED_RATES.dispatchSeconds;
  return t;
}

/** 2 x multiply-adds of every conv step of every program run of one decode (tile-major: each tile's run; halos included). */
export function convFlops(p: Pick<Plan, 'programs' | 'opts'>): number {
  const perProgram = new Map<object, number>();
  let total = 0;
  for (const prog of runOrder(p)) {
    let f = perProgram.get(prog);
    if (f === undefined) {
      f = 0;
      for (const s of prog.steps) if (s.kind === 'conv') f += 2 * s.cout * s.cin * s.kt * s.ks * s.ks * s.h * s.w;
      perProgram.set(prog, f);
    }
    total += f;
  }
  return total;
}

export interface ExpectedTime {
  /** every step of every program run at its rate, plus dispatchSeconds per dispatch */
  compute: number;
  /** bus seconds not hidden behind the compute (streamed weights with >= 3 slots overlap it; the store and parked caches do not) */
  bus: number;
  /** the decoder's build (filled driver shader cache) */
  start: number;
  total: number;
}

/** Dispatches of one decode (every step of every program run). */
export function dispatchCount(p: Pick<Plan, 'programs' | 'opts'>): number {
  const perProgram = new Map<object, number>();
  let total = 0;
  for (const prog of runOrder(p)) {
    let n = perProgram.get(prog);
    if (n === undefined) {
      n = prog.steps.reduce((a, s) => a + kindOf(s).dispatches(s), 0);
      perProgram.set(prog, n);
    }
    total += n;
  }
  return total;
}

/** Expected seconds of `p`'s decode (model above). */
export function expectedSeconds(p: Pick<Plan, 'programs' | 'opts' | 'bus' | 'weightStream'>): ExpectedTime {
  const perProgram = new Map<object, number>();
  let compute = 0;
  for (const prog of runOrder(p)) {
    let t = perProgram.get(prog);
    if (t === undefined) perProgram.set(prog, (t = programSeconds(prog.steps, p.opts)));
    compute += t;
  }
  const weights = p.bus.weights / EXPECTED_RATES.busBytes;
  const hidden = p.weightStream && p.weightStream.slots >= 3 ? Math.min(weights, compute) : 0;
  const bus = (p.bus.store + p.bus.cache) / EXPECTED_RATES.busBytes + weights - hidden;
  const n = convWeights(p);
  const start = EXPECTED_RATES.startSeconds + n * (EXPECTED_RATES.startPerWeight + (p.opts.weightsPrecision === 'int8' ? EXPECTED_RATES.int8PackPerWeight : 0));
  return { compute, bus, start, total: compute + bus + start };
}

/**
 * A tile-major plan's conv FLOPs split as latent + tiled * overhead (overhead = Plan.tileOverhead, the
 * tiles' area with halos over the frame's): what another tiling of the same decode would cost is then
 * latent + tiled * its overhead (fitPlan skips tilings that cannot be faster without planning them).
 * null for other plans (whole frames, frame-major: one program holds both parts).
 */
export function flopsSplit(p: Pick<Plan, 'programs' | 'opts' | 'tileOverhead'>): { latent: number; tiled: number } | null {
  if (p.opts.tile?.order !== 'tile-major') return null;
  const total = convFlops(p);
  const latent = convFlops({ opts: p.opts, programs: Object.fromEntries(Object.entries(p.programs).map(([k, v]) => [k, v!.slice(0, 1)])) });
  return { latent, tiled: (total - latent) / p.tileOverhead };
}

/**
 * The effective conv FLOP/s of `p`: its conv FLOPs over the seconds of its conv steps at their forms' rates
 * (EXPECTED_RATES, no dispatch floor): what another tiling of the same forms computes at (auto.ts).
 */
export function flopRate(p: Pick<Plan, 'programs' | 'opts'>): number {
  let flops = 0,
    secs = 0;
  for (const prog of runOrder(p))
    for (const s of prog.steps)
      if (s.kind === 'conv') {
        const f = 2 * s.cout * s.cin * s.kt * s.ks * s.ks * s.h * s.w;
        flops += f;
        secs += f / convRate(s, p.opts);
      }
  return secs ? flops / secs : EXPECTED_RATES.portableF32Flops;
}
