// weights-block (shaders/weights-block.wgsl): conv weights re-blocked for conv3d-mma and rounded to f16 on
// the GPU, from the f32 rows uploaded in bounded chunks (the decoder's tensor-core operand copy serves as
// the staging buffer: src/runtime/exec/weights.ts). Bit-identical to storageBytes(packConvWeightBlocked(w),
// 'f16'). Here: the kernel and the chunking, pure (no GPU objects).
import src from '../../shaders/weights-block.wgsl?raw';
import toHalf from '../../shaders/to-half.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { linearGrid, wgslConst, type KernelDef } from '../gpu/kernel';

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

/** One conv weight to prepare: PyTorch order [cout, cin, taps], f32. */
export interface BlockedShape {
  cout: number;
  cin: number;
  taps: number;
}

/** One dispatch of a chunk: rows o0 .. o0 + n - 1 of weight `job`, its staged f32 rows from word src0. */
export interface BlockPart {
  job: number;
  o0: number;
  /** rows written (the last part of a weight also writes its zero rows up to a multiple of 16) */
  n: number;
  /** rows staged (those < cout): n - padding */
  staged: number;
  src0: number;
}

/**
 * The weights cut into chunks of whole output-channel rows, each chunk's rows at most `stagingWords` f32
 * words and at most `maxParts` dispatches (one per weight part): the uploads and submissions of the GPU
 * preparation, in order. A weight whose single row (cin * taps words) exceeds the staging is not in any
 * chunk: returned in `tooLarge` (the caller prepares it in JS).
 */
export function blockChunks(shapes: readonly BlockedShape[], stagingWords: number, maxParts: number): { chunks: BlockPart[][]; tooLarge: number[] } {
  if (!(maxParts >= 1)) throw new DecoderError('bad-input', `weights-block: ${maxParts} dispatches per chunk (need >= 1)`);
  const chunks: BlockPart[][] = [];
  const tooLarge: number[] = [];
  let cur: BlockPart[] = [];
  let used = 0;
  const flush = () => {
    if (cur.length) chunks.push(cur);
    cur = [];
    used = 0;
  };
  shapes.forEach((s, job) => {
    const row = s.cin * s.taps;
    if (row > stagingWords) {
      tooLarge.push(job);
      return;
    }
    const padded = Math.ceil(s.cout / 16) * 16;
    for (let o0 = 0; o0 < s.cout;) {
      if (cur.length >= maxParts || used + row > stagingWords) flush();
      const staged = Math.min(s.cout - o0, Math.floor((stagingWords - used) / row));
      const last = o0 + staged === s.cout;
      cur.push({ job, o0, n: last ? padded - o0 : staged, staged, src0: used });
      used += staged * row;
      o0 += staged;
    }
  });
  flush();
  return { chunks, tooLarge };
}

/** The kernel's params for part `p` of weight `s`. */
export function blockParams(s: BlockedShape, p: BlockPart): WeightsBlockParams {
  const ob = Math.ceil(s.cout / 16),
    cb = Math.ceil(s.cin / 16);
  const words = s.taps * p.n * cb * 8;
  return { cin: s.cin, taps: s.taps, ob, cb, cout: s.cout, o0: p.o0, n: p.n, src0: p.src0, words, gx: linearGrid(Math.ceil(words / WG))[0] };
}
