// Which attention-mma shape the decoder runs per head dim, and where a shape applies: the decision alone, with no
// WGSL, so the planner (src/plan/expected-time.ts) prices the same choice step-kernels.ts makes
// (src/kernels/attention-mma.ts generates the kernels).

export interface AttentionMmaShape {
  /** output channel tiles of 16 per workgroup (C / 16 must be a multiple) */
  ct: number;
  /** key tiles of 16 per block */
  kb: number;
  /** exact max and sum in a first pass over the keys (S twice), else one pass with lazy rescaling */
  twoPass?: boolean;
  /** S's operands staged DC channels at a time into workgroup memory, transposed (row-major left, col-major right tiles) instead of read from qkv as col-major Q / row-major K tiles */
  stage?: boolean;
  /** channels per staged chunk (stage; a multiple of 16, default 32) */
  dc?: number;
  /** the O tiles go through workgroup memory row-major (default col-major) */
  oRow?: boolean;
  /**
   * the keys in this many ranges, one per dispatch z (more workgroups for the same queries; default 1): each
   * writes its partial output and softmax statistics (shaders/attention-mma-split.wgsl) and attention-combine
   * forms the output
   */
  split?: number;
  /** N baked into the pipeline (the override NS: constant strides and loop bounds) instead of read from Params */
  nConst?: boolean;
  /**
   * Q, K and V read as contiguous 16x16 tiles (stride 16) from a copy of qkv in tile order, [3C / 16][N / 16][16 ch][16
   * tokens], that attention-pack writes first (kernels/attention-pack.ts), instead of 16 runs of 16 at stride N
   * (not with `stage`)
   */
  packed?: boolean;
}

/** Where the tensor-core attention applies: C and N multiples of 16 (the tiles), C / 16 a multiple of ct. */
export function attentionMmaFits(p: { c: number; n: number }, ct: number): boolean {
  return p.c % 16 === 0 && p.n % 16 === 0 && p.n > 0 && (p.c / 16) % ct === 0;
}

/** One measured row: the shape the decoder runs from `minN` tokens per frame up (to the next row's minN). */
export interface AttentionMmaRow {
  minN: number;
  shape: AttentionMmaShape;
}

/** Measured rows per head dim C, by minN ascending. */
export type AttentionMmaTable = Readonly<Record<number, readonly AttentionMmaRow[]>>;

/**
 * The attention shapes the decoder runs on subgroup matrices per head dim C, by the frame's token count N, where
 * they were measured correct (full-size fidelity) and faster than shaders/attention.wgsl on a GPU; rows by minN
 * ascending, the last row with minN <= N applies.
 * C 384 (Wan2.1), one pass, 12 channel tiles x 2 key tiles, Q / K straight from qkv. H200, 2026-12-04
 * (bench/results/h200/attn-mma-enable-2026-12-04-d988a92/): 7.74 ms per 480x832 frame against 9.98 ms for the
 * shipped f16 kernel, 46.3 against 84.5 ms at 720x1280, SNR 70.6 dB; whole decodes 720x1280x81 8.00 -> 7.77 s,
 * 480x832x81 3.22 -> 3.20 s, 65.75 dB against the official fp32 decode. The staged forms were 7-8x slower.
 * From 720x1280's N (14400) the keys in 4 ranges (`split`). H100, 2026-12-06
 * (bench/results/h200/attn-forms-h100-2026-12-06-e5a7fce/): 42.4 against 53.1 ms per 720x1280 frame (split 8
 * 41.7), SNR 69.0 dB; at 480x832 split 4 is slower (7.86 against 7.44 ms), so N 6240 stays unsplit; N between the
 * two was not measured (unsplit). The 480x832x81 decode with split 4 everywhere: 65.74 dB against the official fp32
 * decode. Not taken: N baked (7.25 against 7.44 ms at 480p: 4 ms per decode for one pipeline per frame size), the
 * tile-order copy (`packed`: 6.33-6.57 ms at 480p, ~20 ms per decode; at 720x1280 packed + split 4 took 80.8 ms and
 * packed alone was not measured: a cliff between the two N not located).
 * C 1024 (Wan2.2): no direct shape is faster than shaders/attention.wgsl (H100, 2026-12-06: 16x2 packed 16.4 ms,
 * 16x2 split 4 16.5, 16x2 17.8 against 13.6 ms per 704x1280 frame).
 */
export const ATTENTION_MMA_MEASURED: AttentionMmaTable = {
  384: [
    { minN: 0, shape: { ct: 12, kb: 2 } },
    { minN: 90 * 160, shape: { ct: 12, kb: 2, split: 4 } },
  ],
};

/** The measured shape for this attention (head dim C, N tokens), or null where shaders/attention.wgsl runs. */
export function attentionMmaShapeFor(p: { c: number; n: number }, measured: AttentionMmaTable = ATTENTION_MMA_MEASURED): AttentionMmaShape | null {
  let shape: AttentionMmaShape | null = null;
  for (const row of measured[p.c] ?? []) if (row.minN <= p.n) shape = row.shape;
  return shape && attentionMmaFits(p, shape.ct) ? shape : null;
}
