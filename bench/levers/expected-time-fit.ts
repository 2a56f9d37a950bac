// The measurements src/plan/expected-time.ts was fitted to, against its prediction: each H200 decode
// re-planned here with the options its JSON line names (the planned bytes printed beside the measured
// peak show it is the same plan), then conv FLOPs, dispatches, bus bytes, the measured and the expected
// seconds. Run: node --import tsx --import ./bench/levers/register-wgsl.mjs bench/levers/expected-time-fit.ts
// Measured (H200, Dawn, 2026-12-01): bench/results/h200/levers-2026-12-01-5ae0879/decode.jsonl (5ae0879),
// bench/results/h200/levers-2026-12-01-fc373eb/decode.jsonl (fc373eb), f16 tensor-core whole frames of that call,
// int8 weights on tensor cores: bench/results/h200/levers-2026-12-01-7b0cf0f/decode.jsonl (7b0cf0f, the looped int8 GEMM
// conv3d-mma-wq: re-planned today its plan holds the f16 scratch of f92a682, so planned != measured there) and, since
// dequant-int8 + the straight-line GEMM, bench/results/h200/levers-int8-2026-12-01-f92a682/decode.jsonl (f92a682; its
// times include packing the int8 weights in JS: bench/levers/int8-pack-time.ts).
import { inferConfig } from '../../src/model/config';
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { plan, type PlanOptions } from '../../src/plan/planner';
import { withWeightStream } from '../../src/plan/weight-stream';
import { convFlops, dispatchCount, expectedSeconds } from '../../src/plan/expected-time';

const c1 = inferConfig(syntheticWeights(OFFICIAL['2.1'], { values: false }));
const c2 = inferConfig(syntheticWeights(OFFICIAL['2.2'], { values: false }));
// shrink false: these tiled decodes ran before shrinking tile windows (2026-12-01, c4e0032) computed each tile's ext at every level
const t = (th: number, tw: number) => ({ th, tw, mode: 'exact', order: 'tile-major', store: 'cpu', shrink: false }) as const;
// shrinking windows (c4e0032 on): the f92a682 rows
const t7 = (th: number, tw: number) => ({ th, tw, mode: 'exact', order: 'tile-major', store: 'cpu' }) as const;
const W21 = { frames: 21, h: 60, w: 104, cache: 'on' } as const;
const W22F = { frames: 31, h: 44, w: 80, cache: 'on' } as const;
const W22 = { frames: 2, h: 44, w: 80, cache: 'on' } as const;
// name (decode.jsonl), measured seconds and peak bytes, plan options, ring slots of a streamed plan
const rows: [string, number, number, typeof c1, PlanOptions, number | null][] = [
  ['fc373eb w21-f16tc', 6.047, 2602483500, c1, { ...W21, precision: 'f16', tensorCores: true, norm: 'full' }, null],
  ['fc373eb w21-512-f16-auto', 30.856, 520158764, c1, { ...W21, precision: 'f16', tensorCores: true, norm: 'full', tile: t(12, 13) }, null],
  ['w21-512-auto', 19.629, 532870188, c1, { ...W21, precision: 'f16', tensorCores: true, norm: 'full', tile: t(30, 15) }, 3],
  ['fc373eb w21-int8tc (portable)', 14.109, 2297647224, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', norm: 'full' }, null],
  ['fc373eb w21-512-int8tc (portable)', 35.239, 495323436, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', norm: 'full', tile: t(30, 15) }, 7],
  ['fc373eb w21-512-int8tc-res (portable)', 42.336, 492380024, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', norm: 'full', tile: t(30, 11) }, null],
  ['w21-512-int8', 35.926, 516575096, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', norm: 'full', tile: t(30, 13) }, null],
  ['fc373eb w22-1g-int8tc (portable)', 27.778, 929398652, c2, { ...W22, precision: 'f16', weightsPrecision: 'int8', norm: 'full', tile: t(22, 8) }, 2],
  ['w22-1g-auto', 29.37, 1062080380, c2, { ...W22, precision: 'f16', tensorCores: true, norm: 'chunked', tile: t(22, 7) }, 2],
  ['7b0cf0f w21-int8tc (tensor cores)', 24.065, 2468570668, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', tensorCores: true, norm: 'fused' }, null],
  ['f92a682 w21-int8tc (dequant-int8 + flat GEMM)', 7.818, 2476533292, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', tensorCores: true, norm: 'fused' }, null],
  ['f92a682 w21-512-int8 (tensor cores)', 10.485, 514177116, c1, { ...W21, precision: 'f16', weightsPrecision: 'int8', tensorCores: true, norm: 'fused', tile: t7(30, 26) }, 9],
  ['f92a682 w22f-1g (int8, tensor cores, 121 frames)', 109.516, 1065314380, c2, { ...W22F, precision: 'f16', weightsPrecision: 'int8', tensorCores: true, norm: 'fused', tile: t7(11, 9) }, null],
  ['fc373eb w21-exact (f32, not fitted)', 12.877, 4684200272, c1, { ...W21, precision: 'f32', norm: 'full' }, null],
  ['fc373eb w22-exact (f32, not fitted)', 10.67, 10267481588, c2, { ...W22, precision: 'f32', norm: 'full' }, null],
];
for (const [name, secs, peak, cfg, o, slots] of rows) {
  let p = plan(cfg, o);
  if (slots) p = withWeightStream(p, true, slots);
  const e = expectedSeconds(p);
  const bus = p.bus.weights + p.bus.store + p.bus.cache;
  console.log(
    `${name.padEnd(34)} planned ${p.memory.total === peak ? '= measured' : `${p.memory.total} != ${peak}`}  ${(convFlops(p) / 1e12).toFixed(0).padStart(5)} TFLOP  ${String(dispatchCount(p)).padStart(6)} dispatches  ${(bus / 1e9).toFixed(1).padStart(5)} GB  measured ${secs.toFixed(1).padStart(5)} s  expected ${e.total.toFixed(1).padStart(5)} s`,
  );
}
