// How the GPU weight preparations cut the model's conv weights into staged chunks (weights-block for
// the tensor-core layout, weights-pack for the portable convs' layout): whole groups of output-channel
// rows, each chunk's staged f32 rows within the staging buffer and its dispatches within the params
// slots. Pure (no GPU objects).
import { DecoderError } from '../gpu/errors';

/** One conv weight to prepare: PyTorch order [cout, cin, taps], f32. */
export interface BlockedShape {
  cout: number;
  cin: number;
  taps: number;
}

/** One dispatch of a chunk: rows o0 .. o0 + n - 1 of weight `job` written, its staged f32 rows (those < cout) from word src0. */
export interface StagedPart {
  job: number;
  o0: number;
  /** rows written (the last part of a weight also writes its zero rows up to a multiple of padTo) */
  n: number;
  /** rows staged (those < cout): n - padding */
  staged: number;
  src0: number;
}

/**
 * The weights cut into chunks of whole output-channel rows in groups of `group` (a group is never split
 * between dispatches), each chunk's staged rows at most `stagingWords` f32 words and at most `maxParts`
 * dispatches (one per weight part), in order. A weight's last part also writes its zero rows up to a
 * multiple of `padTo`. A weight whose `group` rows (group * cin * taps words) exceed the staging is in no
 * chunk: returned in `tooLarge` (the caller prepares it in JS). `kernel` names the preparation in errors.
 */
export function stagedChunks(
  shapes: readonly BlockedShape[],
  stagingWords: number,
  maxParts: number,
  { group, padTo, kernel }: { group: number; padTo: number; kernel: string },
): { chunks: StagedPart[][]; tooLarge: number[] } {
  if (!(maxParts >= 1)) throw new DecoderError('bad-input', `${kernel}: ${maxParts} dispatches per chunk (need >= 1)`);
  const chunks: StagedPart[][] = [];
  const tooLarge: number[] = [];
  let cur: StagedPart[] = [];
  let used = 0;
  const flush = () => {
    if (cur.length) chunks.push(cur);
    cur = [];
    used = 0;
  };
  shapes.forEach((s, job) => {
    const row = s.cin * s.taps;
    if (group * row > stagingWords) {
      tooLarge.push(job);
      return;
    }
    const padded = Math.ceil(s.cout / padTo) * padTo;
    for (let o0 = 0; o0 < s.cout;) {
      // rows written by a part with `space` staging words: the rest of the weight (with its padding rows)
      // when its rows < cout fit, else whole groups
      const take = (space: number) => ((s.cout - o0) * row <= space ? padded - o0 : Math.min(padded - o0, Math.floor(space / (group * row)) * group));
      let n = cur.length >= maxParts ? 0 : take(stagingWords - used);
      if (n === 0) {
        flush();
        n = take(stagingWords);
      }
      const staged = Math.min(n, s.cout - o0);
      cur.push({ job, o0, n, staged, src0: used });
      used += staged * row;
      o0 += n;
    }
  });
  flush();
  return { chunks, tooLarge };
}
