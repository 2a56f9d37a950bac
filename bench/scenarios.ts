// The benchmark scenarios, as data. `scenarios(quick)` lists what a run does; `select` applies --only.
// Full sizes are the decoder's real shapes (official widths, ../shared/ANCHORS.md); quick sizes are
// small enough for a CPU adapter (SwiftShader ~1 GFLOP/s, lavapipe ~4) to finish in under two minutes.
// A new decode switch (tile, tileMode, norm mode, memory budget) is one line in MATRIX_SWITCHES; its
// first value is the exact reference the others are compared with.
import type { DecodeScenario, KernelScenario, MatrixScenario, ModelSpec, OrtScenario, Scenario, SuiteConfig } from './lib/types';
import { attentionOverrides } from '../src/kernels/attention';

const WAN21: ModelSpec = { version: '2.1', dim: 96, zDim: 16, seed: 1 };
const WAN22: ModelSpec = { version: '2.2', dim: 256, zDim: 48, seed: 1 };
const model = (version: '2.1' | '2.2', dim: number, zDim: number): ModelSpec => ({ version, dim, zDim, seed: 1 });

/** Switches of the trade-off matrix: every combination runs; the first value of each is the reference. */
export const MATRIX_SWITCHES: MatrixScenario['switches'] = {
  cache: ['on', 'off'],
  precision: ['f32', 'f16'],
};

/** The four conv layer shapes of ANCHORS.md: [channels, output height, width] (3x3x3, 3 frames -> 1). */
const CONV_ANCHORS: [number, number, number][] = [
  [96, 480, 832],
  [192, 240, 416],
  [384, 120, 208],
  [384, 60, 104],
];

/** Wan2.2's three largest 3x3x3 layer shapes at 704x1280 (src/plan/graph.ts, steady chunk): [channels, h, w]. */
const CONV_WAN22: [number, number, number][] = [
  [256, 352, 640],
  [512, 176, 320],
  [1024, 88, 160],
];

function convScenarios(quick: boolean): KernelScenario[] {
  // quick: the same layers with channels and both spatial sides divided by 8 (same FLOP ratios)
  const d = quick ? 8 : 1;
  // each shape plain and with --norm fused (NORM=1: RMS_norm + SiLU applied while loading the operands),
  // and on tensor cores (conv3d-mma, f16; skipped without subgroup matrices; checked against conv3d)
  const mma = CONV_ANCHORS.flatMap(([c, h, w]) =>
    [0, 1].map((norm): KernelScenario => ({
      name: `conv3d/${c / d}ch-${Math.ceil(h / d)}x${Math.ceil(w / d)}-mma${norm ? '-fused-norm' : ''}`,
      group: 'conv3d',
      kernel: 'conv3dMma',
      shape: { cin: c / d, cout: c / d, h: Math.ceil(h / d), w: Math.ceil(w / d), tap0: 0 },
      overrides: { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: norm, SILU: norm },
      elems: ['f16'],
      runs: quick ? 6 : 50,
      warmup: quick ? 1 : 5,
      note: 'tensor cores (subgroup matrices); extra.maxAbsVsPortable: against conv3d on the same inputs',
    })),
  );
  // Wan2.2's largest layers (704x1280: 24% each at 512ch 176x320 and 256ch 352x640, 14% at 1024ch 88x160
  // of a steady chunk's 66 TFLOP), tensor cores only, full size only
  const mma22 = quick
    ? []
    : CONV_WAN22.map(([c, h, w]): KernelScenario => ({
        name: `conv3d/wan22-${c}ch-${h}x${w}-mma`,
        group: 'conv3d',
        kernel: 'conv3dMma',
        shape: { cin: c, cout: c, h, w, tap0: 0 },
        overrides: { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0 },
        elems: ['f16'],
        runs: 30,
        warmup: 3,
        note: 'Wan2.2 704x1280 layer on tensor cores; extra.maxAbsVsPortable: against conv3d on the same inputs',
      }));
  return [
    ...mma,
    ...mma22,
    ...(quick ? [] : candidateScenarios(false)),
    ...CONV_ANCHORS.flatMap(([c, h, w]) =>
      [0, 1].map((norm): KernelScenario => ({
        name: `conv3d/${c / d}ch-${Math.ceil(h / d)}x${Math.ceil(w / d)}${norm ? '-fused-norm' : ''}`,
        group: 'conv3d',
        kernel: 'conv3d',
        shape: { cin: c / d, cout: c / d, h: Math.ceil(h / d), w: Math.ceil(w / d), tap0: 0 },
        overrides: { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: norm, SILU: norm },
        elems: ['f32', 'f16'],
        runs: quick ? 6 : 50,
        warmup: quick ? 1 : 5,
        note: `${quick ? `ANCHORS shape ${c}ch ${h}x${w} / 8` : 'ANCHORS layer shape'}${norm ? '; norm folded into the operand loads' : ''}`,
      })),
    ),
  ];
}

/**
 * Candidate rows (bench/lib/conv-candidates.ts): at each ANCHORS shape (quick: the real channel counts on
 * small frames) and the 96 -> 3 head, the decoder's portable conv and the TILED_CANDIDATES beside it on
 * the same inputs, f32.
 */
function candidateScenarios(quick: boolean): KernelScenario[] {
  // full: the ANCHORS layers and Wan2.2's three largest (conv3d/256ch-352x640-tiled ...: Winograd at Wan2.2's widths)
  const planes: [number, number, number][] = quick
    ? [
        [96, 48, 80],
        [192, 24, 40],
        [384, 12, 20],
      ]
    : [...CONV_ANCHORS, ...CONV_WAN22];
  const [hh, hw] = quick ? [48, 80] : [480, 832];
  const shapes: [number, number, number, number][] = [...planes.map(([c, h, w]): [number, number, number, number] => [c, c, h, w]), [96, 3, hh, hw]];
  return shapes.map(([cin, cout, h, w]): KernelScenario => ({
    name: `conv3d/${cin === cout ? cin : `${cin}to${cout}`}ch-${h}x${w}-tiled`,
    group: 'conv3d',
    kernel: 'conv3dCandidates',
    shape: { cin, cout, h, w, tap0: 0 },
    overrides: { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0 },
    // f16: the decoder's direct conv and the Winograd variants of f16 storage plans (no tiled candidates)
    elems: ['f32', 'f16'],
    runs: quick ? 6 : 20,
    warmup: quick ? 1 : 3,
    note: "the decoder's portable conv; extra.tflops_* / maxAbs_*: the candidate convs on the same inputs",
  }));
}

function normAttnScenarios(quick: boolean): KernelScenario[] {
  const runs = quick ? 6 : 50,
    warmup = quick ? 1 : 5;
  const norms: [number, number, number, number][] = quick
    ? [
        [12, 60, 104, 1],
        [48, 8, 13, 0],
      ]
    : [
        [96, 480, 832, 1],
        [384, 60, 104, 0],
      ];
  const [ac, an] = quick ? [48, 8 * 13] : [384, 60 * 104];
  return [
    ...norms.map(([c, h, w, silu]): KernelScenario => ({
      name: `rms-norm/${c}ch-${h}x${w}${silu ? '-silu' : ''}`,
      group: 'rms-norm',
      kernel: 'rmsNorm',
      shape: { c, hw: h * w },
      overrides: { SILU: silu },
      elems: ['f32', 'f16'],
      runs,
      warmup,
    })),
    {
      name: `attention/n${an}-c${ac}`,
      group: 'attention',
      kernel: 'attention',
      shape: { c: ac, n: an, scale: 1 / Math.sqrt(ac) },
      overrides: attentionOverrides(ac),
      elems: ['f32', 'f16'],
      runs,
      warmup,
      note: 'middle.1 of Wan2.1 at 480x832: N = 60·104',
    },
  ];
}

/** End-to-end decodes: [model, latent [T, h, w], label]. */
function decodeScenarios(quick: boolean, frames: number | undefined): DecodeScenario[] {
  const T = frames ?? 3;
  const cases: [ModelSpec, [number, number, number], string][] = quick
    ? [
        [model('2.1', 8, 16), [2, 4, 6], 'wan2.1-dim8-32x48'],
        [model('2.1', 16, 16), [2, 2, 3], 'wan2.1-dim16-16x24'],
        [model('2.2', 8, 48), [2, 4, 6], 'wan2.2-dim8-64x96'],
      ]
    : [
        [WAN21, [T, 60, 104], 'wan2.1-dim96-480x832'],
        [WAN21, [T, 90, 160], 'wan2.1-dim96-720x1280'],
        [model('2.1', 48, 16), [T, 60, 104], 'wan2.1-dim48-480x832'],
        [WAN22, [T, 30, 52], 'wan2.2-dim256-480x832'],
        [WAN22, [T, 44, 80], 'wan2.2-dim256-704x1280'],
      ];
  // quick: GPU busy time (one more decode) for the first case only: SwiftShader decodes take seconds
  return cases.map(([m, latent, label], i) => ({
    name: `decode/${label}`,
    group: 'decode',
    model: m,
    latent,
    options: { cache: 'on', precision: 'f32' },
    repeats: quick ? 1 : 3,
    checkCpu: quick,
    probe: !quick || i === 0,
  }));
}

function matrixScenarios(quick: boolean, frames: number | undefined): MatrixScenario[] {
  return quick
    ? // same model, latent and repeats as decode/wan2.1-dim8-32x48: its cache=on,f32 row is reused
      [{ name: 'matrix/wan2.1-dim8-32x48', group: 'matrix', model: model('2.1', 8, 16), latent: [2, 4, 6], switches: MATRIX_SWITCHES, repeats: 1 }]
    : [{ name: 'matrix/wan2.1-dim96-480x832', group: 'matrix', model: WAN21, latent: [frames ?? 3, 60, 104], switches: MATRIX_SWITCHES, repeats: 2 }];
}

/**
 * The trade-off table of issue 3: every memory lever one at a time against the exact f32 decode
 * (cache, precision, norm mode, tiling incl. order / store / blend). Quick: the golden sizes (Wan2.1
 * dim 16 on a 4x6x8 latent, Wan2.2 dim 16 on 3x5x6) with generated weights; full: Wan2.1 480x832.
 */
export function tradeoffSwitches(tile: string): MatrixScenario['switches'] {
  const [th, tw] = tile.split('x');
  return {
    cache: ['on', 'off'],
    precision: ['f32', 'f16'],
    // conv weights stored as int8 / f16 beside the reference's f32 storage (default: as precision)
    weightsPrecision: [undefined, 'f16', 'int8'],
    norm: ['full', 'chunked', 'fused'],
    tile: ['none', `exact:${th}x${tw}`, `exact:${th}x${tw}:tile-major:cpu`, `exact:${th}x${tw}:frame-major`, `blend:${th}x${tw}`],
  };
}

/** The trained default model (models/) on one of its samples: rows also carry PSNR / SSIM against the source clip. */
function trainedTradeoffs(sample: string, latent: [number, number, number], tile: string): MatrixScenario {
  return {
    group: 'tradeoffs',
    vary: 'one',
    name: `tradeoffs/trained-${sample}`,
    model: { ...model('2.1', 32, 16), seed: 0, sample },
    latent,
    switches: tradeoffSwitches(tile),
    repeats: 1,
    probe: false,
    note: `trained default model (models/, Wan2.1 dim 32), sample ${sample}: quality also against the source clip (psnrVsSource, ssimVsSource)`,
  };
}

function tradeoffScenarios(quick: boolean, frames: number | undefined): MatrixScenario[] {
  const base = { group: 'tradeoffs' as const, vary: 'one' as const };
  return quick
    ? [
        {
          ...base,
          name: 'tradeoffs/wan2.1-dim16-48x64',
          model: model('2.1', 16, 16),
          latent: [4, 6, 8],
          switches: tradeoffSwitches('3x4'),
          repeats: 1,
          note: 'golden wan21-small size, generated weights',
        },
        {
          ...base,
          name: 'tradeoffs/wan2.2-dim16-80x96',
          model: model('2.2', 16, 48),
          latent: [3, 5, 6],
          switches: { ...tradeoffSwitches('3x3'), cache: ['on'] },
          repeats: 1,
          note: 'golden wan22-small size, generated weights; cache off is refused for Wan2.2',
        },
        trainedTradeoffs('rocket-64', [2, 8, 8], '4x4'),
      ]
    : [
        { ...base, name: 'tradeoffs/wan2.1-dim96-480x832', model: WAN21, latent: [frames ?? 3, 60, 104], switches: tradeoffSwitches('30x26'), repeats: 1, probe: false },
        trainedTradeoffs('astronaut-128', [3, 16, 16], '8x8'),
        trainedTradeoffs('coffee-480x832', [2, 60, 104], '30x26'),
      ];
}

function coldScenarios(quick: boolean): DecodeScenario[] {
  const [m, latent, label]: [ModelSpec, [number, number, number], string] = quick ? [model('2.1', 8, 16), [1, 4, 6], 'wan2.1-dim8-32x48'] : [WAN21, [1, 60, 104], 'wan2.1-dim96-480x832'];
  return [
    { name: `cold/${label}`, group: 'cold', model: m, latent, options: { cache: 'on', precision: 'f32' }, repeats: 0, note: 'fresh device: import -> weights -> upload -> compile -> first frame' },
  ];
}

function ortScenarios(quick: boolean, runtime: 'chromium' | 'node'): OrtScenario[] {
  // quick in Chromium: SwiftShader runs each of onnxruntime's ~600 dispatches per chunk at 10-25 ms, so
  // only the 'frames' graph (the 'conv3d' one adds about a minute); Dawn + lavapipe runs both in seconds
  const quickLayouts: OrtScenario['layouts'] = runtime === 'chromium' ? ['frames'] : ['frames', 'conv3d'];
  return quick
    ? [{ name: 'ort/wan2.1-dim8-32x48', group: 'ort', model: model('2.1', 8, 16), latent: [2, 4, 6], layouts: quickLayouts, repeats: 1 }]
    : [
        { name: 'ort/wan2.1-dim96-240x416', group: 'ort', model: WAN21, latent: [2, 30, 52], layouts: ['frames', 'conv3d'], repeats: 2 },
        { name: 'ort/wan2.1-dim96-480x832', group: 'ort', model: WAN21, latent: [2, 60, 104], layouts: ['frames', 'conv3d'], repeats: 1 },
      ];
}

/**
 * conv3d tuning sweep (`--only sweep`, not part of a default run): GPU MODE 1 block shapes on two ANCHORS
 * layers, each row with its overrides in the name; the decoder's choice is conv3dTuningForCout.
 */
function sweepScenarios(): KernelScenario[] {
  const tunings: Record<string, Record<string, number>> = {
    'm16x2-n16x4': { WG_N: 16, WG_M: 16, TM4: 2, TN: 4, MODE: 1, BK: 16 },
    'm8x4-n16x4': { WG_N: 16, WG_M: 8, TM4: 4, TN: 4, MODE: 1, BK: 16 },
    'm8x4-n16x8': { WG_N: 16, WG_M: 8, TM4: 4, TN: 8, MODE: 1, BK: 16 },
    'm16x2-n16x8': { WG_N: 16, WG_M: 16, TM4: 2, TN: 8, MODE: 1, BK: 16 },
    'm16x2-n32x4': { WG_N: 32, WG_M: 8, TM4: 4, TN: 4, MODE: 1, BK: 8 },
    'm8x4-n16x4-bk32': { WG_N: 16, WG_M: 8, TM4: 4, TN: 4, MODE: 1, BK: 32 },
    'm12x2-n16x4': { WG_N: 16, WG_M: 12, TM4: 2, TN: 4, MODE: 1, BK: 16 },
    'm12x2-n16x8': { WG_N: 16, WG_M: 24, TM4: 1, TN: 8, MODE: 1, BK: 16 },
  };
  return CONV_ANCHORS.filter(([c]) => c === 96 || c === 384)
    .slice(0, 2)
    .flatMap(([c, h, w]) =>
      Object.entries(tunings).map(([name, t]): KernelScenario => ({
        name: `sweep/${c}ch-${h}x${w}-${name}`,
        group: 'conv3d',
        kernel: 'conv3d',
        shape: { cin: c, cout: c, h, w, tap0: 0 },
        overrides: { KT: 3, KS: 3, UP: 0, HAS_RES: 0, ...t },
        elems: ['f32'],
        runs: 30,
        warmup: 3,
      })),
    );
}

/** Every scenario of a run, cold start first (it must see no compiled pipeline). */
export function scenarios(cfg: Pick<SuiteConfig, 'quick' | 'frames' | 'ortLayouts'> & { only?: string[] }, runtime: 'chromium' | 'node'): Scenario[] {
  const q = cfg.quick;
  const ort = ortScenarios(q, runtime).map((s) => (cfg.ortLayouts?.length ? { ...s, layouts: cfg.ortLayouts as OrtScenario['layouts'] } : s));
  const sweep = cfg.only?.some((o) => o === 'sweep' || o.startsWith('sweep/')) ? sweepScenarios() : [];
  // quick candidate rows (each times ~10 kernels: ~80 s on lavapipe) only when --only names one
  const candidates = q && cfg.only?.some((o) => o.includes('-tiled')) ? candidateScenarios(true) : [];
  return [
    ...sweep,
    ...candidates,
    ...coldScenarios(q),
    ...convScenarios(q),
    ...normAttnScenarios(q),
    ...decodeScenarios(q, cfg.frames),
    ...matrixScenarios(q, cfg.frames),
    ...tradeoffScenarios(q, cfg.frames),
    ...ort,
  ];
}

/** --only: comma list of groups (`conv3d`, `decode`, `kernels` = conv3d + rms-norm + attention) or name prefixes. */
export function select(list: Scenario[], only: string[]): Scenario[] {
  if (!only.length) return list;
  const want = only.flatMap((o) => (o === 'kernels' ? ['conv3d', 'rms-norm', 'attention'] : [o]));
  // a name ending in '$' matches exactly (conv3d/96ch-480x832$ without its -mma / -tiled / -fused-norm rows)
  const picked = list.filter((s) => want.some((o) => s.group === o || (o.endsWith('$') ? s.name === o.slice(0, -1) : s.name.startsWith(o))));
  if (!picked.length) throw new Error(`--only ${only.join(',')} matches no scenario; names: ${list.map((s) => s.name).join(', ')}`);
  return picked;
}
