// weights-block (shaders/weights-block.wgsl): conv weights re-blocked for conv3d-mma and rounded to f16 on
// the GPU, from the f32 rows uploaded in bounded chunks (the decoder's tensor-core operand copy serves as
// the staging buffer: src/runtime/exec/weights.ts). Bit-identical to storageBytes(packConvWeightBlocked(w),
// 'f16'). Here: the kernel and the chunking, pure (no GPU objects).
import src from '../../shaders/weights-block.wgsl?raw';
import toHalf from '../../shaders/to-half.wgsl?raw';
import { linearGrid, wgslConst, type KernelDef } from '../gpu/kernel';
import { stagedChunks, type BlockedShape, type StagedPart } from './weight-chunks';

const WG = wgslConst(src, 'WG');

export interface WeightsBlockParams extends Record<string, number> {
  cin: number;
  /** kt * ks * ks */
  taps: number;
  /** 16-channel blocks of cout and cin */
  ob: number;
  cb: number;
  cout: number;
  /** the rows o0 .. o0 + n - 1 of the blocked layout written (rows >= cout: zeros) */
  o0: number;
  n: number;
  /** word of the staging buffer holding w[o0, 0, 0] */
  src0: number;
  /** output words written: taps * n * cb * 8 */
  words: number;
  /** workgroups per grid row (linearGrid) */
  gx: number;
}

export const weightsBlock: KernelDef<WeightsBlockParams> = {
  id: 'weights-block',
  wgsl: `${src}\n${toHalf}`,
  bindings: [
    { name: 'src', access: 'read' },
    { name: 'dst', access: 'read_write' },
  ],
  params: (['cin', 'taps', 'ob', 'cb', 'cout', 'o0', 'n', 'src0', 'words', 'gx'] as const).map((name) => ({ name, type: 'u32' as const })),
  overrides: {},
  dispatch: (p) => linearGrid(Math.ceil(p.words / WG)),
  cost: (p) => ({ flops: 0, bytes: p.words * 4 + Math.min(p.n, p.cout - Math.min(p.cout, p.o0)) * p.cin * p.taps * 4 }),
};

export type { BlockedShape } from './weight-chunks';

/** One dispatch of a chunk: rows o0 .. o0 + n - 1 of weight `job` (the last part of a weight also writes its zero rows up to a multiple of 16). */
export type BlockPart = StagedPart;

/**
 * The weights cut into chunks of whole output-channel rows (weight-chunks.ts stagedChunks, groups of 1
 * row, padded to 16 rows): each chunk's rows at most `stagingWords` f32 words and at most `maxParts`
 * dispatches (one per weight part). A weight whose single row (cin * taps words) exceeds the staging is
 * in no chunk: returned in `tooLarge` (the caller prepares it in JS).
 */
export function blockChunks(shapes: readonly BlockedShape[], stagingWords: number, maxParts: number): { chunks: BlockPart[][]; tooLarge: number[] } {
  return stagedChunks(shapes, stagingWords, maxParts, { group: 1, padTo: 16, kernel: 'weights-block' });
}

/** The kernel's params for part `p` of weight `s`. */
export function blockParams(s: BlockedShape, p: BlockPart): WeightsBlockParams {
  const ob = Math.ceil(s.cout / 16),
    cb = Math.ceil(s.cin / 16);
  const words = s.taps * p.n * cb * 8;
  return { cin: s.cin, taps: s.taps, ob, cb, cout: s.cout, o0: p.o0, n: p.n, src0: p.src0, words, gx: linearGrid(Math.ceil(words / WG))[0] };
}
