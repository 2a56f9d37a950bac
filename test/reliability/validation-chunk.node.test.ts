// A validation error in the middle of a multi-chunk decode (issue: the H200's 121-frame decode ran 232 s
// of broken chunks before a misaligned CopyBufferToBuffer came back, the decode's error scopes being
// popped only at its end). WAN_VAE_INJECT_VALIDATION=C misaligns chunk C's first copy (a ring push) as
// that planner bug did. The decode must stop at chunk C with one line naming it (and its step, from
// Dawn's debug group stack), deliver no frame of chunk C or later, and leave the decoder usable.
//
// A wrong implementation fails it: with one scope around the whole decode (before this change) every
// frame of chunks C+1.. is delivered and the error names no chunk (tried: 17 frames delivered, the
// message 'a decode submission failed validation: ...'); a check that lags one chunk more
// delivers chunk C's frames; the last decode checks that the failed one left the decoder exact.
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { DecoderError } from '../../src/gpu/errors';
import { freshDevice, maxAbsDiff, tinyLatents, tinyWeights } from './device';

describe('a validation error mid-decode', () => {
  it('stops at the failing chunk, names it, delivers nothing from it on, and the next decode is exact', async (ctx) => {
    const dev = await freshDevice(ctx);
    const dec = new WanVaeDecoder(tinyWeights(), dev);
    const lat = tinyLatents(5, 4, 4); // 5 chunks: frame 0, then frames 1-4, 5-8, 9-12, 13-16 (32x32)
    const ref = await dec.decode(lat);
    expect(ref.frames).toBe(17);
    const seen: number[] = [];
    process.env.WAN_VAE_INJECT_VALIDATION = '2';
    let err: unknown;
    try {
      err = await dec.decode(lat, { onFrame: (f) => void seen.push(f.index) }).catch((e: unknown) => e);
    } finally {
      delete process.env.WAN_VAE_INJECT_VALIDATION;
    }
    console.log(`injected at chunk 2: ${(err as Error)?.message}`);
    // chunks 0 and 1 were delivered (they passed before chunk 2 went out), nothing of chunk 2 or later
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('validation');
    const msg = (err as Error).message;
    expect(msg).not.toMatch(/\n/); // one line (the CLI prints it as is)
    expect(msg).toMatch(/^chunk 2 of 0-4 \(frames 5-8\) at step decoder\.\S+ failed validation; the decode stopped there: .*not a multiple of 4/);
    // the decoder is usable: the next decode is exact
    const again = await dec.decode(lat);
    expect(maxAbsDiff(again.video, ref.video)).toBe(0);
    dec.dispose();
    dev.device.destroy();
  });
});
