// weights-pack (shaders/weights-pack.wgsl): conv weights put into the portable convs' layout (conv3d's
// [taps * cin][co4], src/kernels/conv3d.ts packConvWeight) and the storage precision on the GPU, from the
// f32 rows uploaded in bounded chunks (a plan's own buffer serves as the staging:
// src/runtime/exec/weights-pack.ts). Bit-identical to storageBytes(packConvWeight(w), elem). Here: the
// kernel and the chunking, pure (no GPU objects).
import src from '../../shaders/weights-pack.wgsl?raw';
import toHalf from '../../shaders/to-half.wgsl?raw';
import { linearGrid, wgslConst, type KernelDef } from '../gpu/kernel';
import { stagedChunks, type BlockedShape, type StagedPart } from './weight-chunks';

const WG = wgslConst(src, 'WG');

export interface WeightsPackParams extends Record<string, number> {
  cin: number;
  /** kt * ks * ks */
  taps: number;
  cout: number;
  /** cout padded to a multiple of 4: the row length of the layout */
  co4: number;
  /** output channels o0 .. o0 + n - 1 written (a multiple of 4 each; channels >= cout: zeros) */
  o0: number;
  n: number;
  /** word of the staging buffer holding w[o0, 0, 0] */
  src0: number;
  /** output words written: taps * cin * n (f32) or half that (f16 pairs) */
  words: number;
  /** workgroups per grid row (linearGrid) */
  gx: number;
}

export const weightsPack: KernelDef<WeightsPackParams> = {
  id: 'weights-pack',
  wgsl: `${src}\n${toHalf}`,
  bindings: [
    { name: 'src', access: 'read' },
    { name: 'dst', access: 'read_write' },
  ],
  params: (['cin', 'taps', 'cout', 'co4', 'o0', 'n', 'src0', 'words', 'gx'] as const).map((name) => ({ name, type: 'u32' as const })),
  overrides: { F16: 0 },
  dispatch: (p) => linearGrid(Math.ceil(p.words / WG)),
  cost: (p) => ({ flops: 0, bytes: p.words * 4 + Math.min(p.n, p.cout - Math.min(p.cout, p.o0)) * p.cin * p.taps * 4 }),
};

/** One dispatch: output channels o0 .. o0 + n - 1 of weight `job`, its staged f32 rows (those < cout) from word src0. */
export type PackPart = StagedPart;

/**
 * The weights cut into chunks of whole output-channel rows in groups of 4 (weight-chunks.ts stagedChunks:
 * an f16 word holds two channels, so a group is never split between dispatches), each chunk's staged rows
 * at most `stagingWords` f32 words and at most `maxParts` dispatches, in order. A weight whose 4 rows
 * exceed the staging is in no chunk: returned in `tooLarge` (the caller packs it in JS).
 */
export function packChunks(shapes: readonly BlockedShape[], stagingWords: number, maxParts: number): { chunks: PackPart[][]; tooLarge: number[] } {
  return stagedChunks(shapes, stagingWords, maxParts, { group: 4, padTo: 4, kernel: 'weights-pack' });
}

/** The kernel's params for part `p` of weight `s` in storage `f16` (0 or 1). */
export function packParams(s: BlockedShape, p: PackPart, f16: number): WeightsPackParams {
  const words = (s.taps * s.cin * p.n) >> f16;
  return { cin: s.cin, taps: s.taps, cout: s.cout, co4: Math.ceil(s.cout / 4) * 4, o0: p.o0, n: p.n, src0: p.src0, words, gx: linearGrid(Math.ceil(words / WG))[0] };
}
