// CPU reference decoder: a direct port of the official chunk loop (vae.py WanVAE_.decode / Decoder3d) with
// the feature cache rules of spec §4 (Rule CONV, Rule UP3D with the 'Rep' marker), on whole [C, T, H, W]
// chunks. Independent of the GPU runtime (which goes frame by frame): it is the oracle for it.
import { DecoderError } from '../gpu/errors';
import { WAN22_CACHE_OFF } from '../options/schema';
import type { DecoderConfig, ResBlockCfg, UpBlockCfg } from '../model/config';
import type { Weights } from '../model/weights';
import { add, attention, causalConv3d, clamp, concatT, conv2dPerFrame, dupUp3d, interleaveTime, lastFrames, rmsNorm, tensor, unpatchify, upsampleNearest2x, type Tensor } from './ops';

type Slot = Tensor | 'Rep' | null;

/** Feature cache of one decode: null = EMPTY, 'Rep' = time_conv skipped on chunk 0. `slots` undefined = feat_cache=None. */
interface Cache {
  slots: Slot[] | undefined;
  idx: number;
}

export class CpuDecoder {
  constructor(
    readonly cfg: DecoderConfig,
    private readonly w: Weights,
  ) {}

  private t(key: string): Tensor {
    const x = this.w.get(key);
    return { data: x.data, shape: x.shape };
  }

  /** 3x3x3 CausalConv3d with Rule CONV. */
  private cconv(x: Tensor, key: string, cache: Cache): Tensor {
    const w = this.t(`${key}.weight`),
      b = this.t(`${key}.bias`);
    if (!cache.slots) return causalConv3d(x, null, w, b);
    const i = cache.idx++;
    const c = cache.slots[i] ?? null;
    const T = x.shape[1]!;
    let next = lastFrames(x, Math.min(2, T));
    if (T === 1 && c && c !== 'Rep') next = concatT(lastFrames(c, 1), x);
    const out = causalConv3d(x, c && c !== 'Rep' ? c : null, w, b);
    cache.slots[i] = next;
    return out;
  }

  private resBlock(x: Tensor, rb: ResBlockCfg, cache: Cache): Tensor {
    const h = rb.shortcut ? causalConv3d(x, null, this.t(`${rb.path}.shortcut.weight`), this.t(`${rb.path}.shortcut.bias`)) : x;
    let a = rmsNorm(x, this.t(`${rb.path}.residual.0.gamma`), true);
    a = this.cconv(a, `${rb.path}.residual.2`, cache);
    a = rmsNorm(a, this.t(`${rb.path}.residual.3.gamma`), true);
    a = this.cconv(a, `${rb.path}.residual.6`, cache);
    return add(a, h);
  }

  /** Resample (Rule UP3D for upsample3d), then nearest 2x + Conv2d per frame. */
  private resample(x: Tensor, blk: UpBlockCfg, cache: Cache): Tensor {
    const rs = blk.resample!;
    if (rs.mode === 'upsample3d' && cache.slots) {
      const i = cache.idx++;
      const c = cache.slots[i] ?? null;
      const T = x.shape[1]!;
      if (c === null) {
        cache.slots[i] = 'Rep';
      } else {
        let next = lastFrames(x, Math.min(2, T));
        if (T === 1) next = c === 'Rep' ? concatT(tensor(x.shape.slice()), x) : concatT(lastFrames(c, 1), x);
        const tc = causalConv3d(x, c === 'Rep' ? null : c, this.t(`${rs.path}.time_conv.weight`), this.t(`${rs.path}.time_conv.bias`));
        cache.slots[i] = next;
        x = interleaveTime(tc);
      }
    }
    const w = this.t(`${rs.path}.resample.1.weight`);
    return conv2dPerFrame(upsampleNearest2x(x), w, this.t(`${rs.path}.resample.1.bias`));
  }

  /** Decoder3d.forward on one chunk x: [z, T, h, w] (after conv2). Returns [3·patch², T', H, W]. */
  forwardChunk(x: Tensor, cache: Cache, firstChunk: boolean): Tensor {
    const cfg = this.cfg;
    x = this.cconv(x, 'decoder.conv1', cache);
    x = this.resBlock(x, cfg.middle.res0, cache);
    const a = cfg.middle.attn.path;
    x = attention(x, this.t(`${a}.norm.gamma`), this.t(`${a}.to_qkv.weight`), this.t(`${a}.to_qkv.bias`), this.t(`${a}.proj.weight`), this.t(`${a}.proj.bias`));
    x = this.resBlock(x, cfg.middle.res1, cache);
    for (const blk of cfg.upBlocks) {
      const input = x;
      for (const rb of blk.resblocks) x = this.resBlock(x, rb, cache);
      if (blk.resample) x = this.resample(x, blk, cache);
      if (blk.dupUp) {
        const d = blk.dupUp;
        const s = dupUp3d(input, d.cout, d.ft, d.fs, firstChunk);
        if (s.shape[1] !== x.shape[1])
          throw new DecoderError(
            'unsupported',
            `Wan2.2 without the feature cache: the DupUp3D shortcut of up block ${blk.index} gives ${s.shape[1]} frames, the main path ${x.shape[1]} (the official code raises here too)`,
          );
        x = add(x, s);
      }
    }
    x = rmsNorm(x, this.t('decoder.head.0.gamma'), true);
    return this.cconv(x, 'decoder.head.2', cache);
  }

  /**
   * Decode de-normalised latents z: [zDim, T, h, w]. `useCache=false` reproduces the official per-frame loop with
   * feat_cache=None. Calls onChunk with each chunk's clamped output [3, T', H, W]; returns the whole video.
   * Between chunks it yields to the event loop (so a worker can receive a cancel) and checks `signal`.
   * `keep: false` (a caller that takes the chunks from onChunk): the chunks are not kept and the returned
   * video is empty ([3, 0, H, W]), so CPU memory does not grow with the video's length. A Promise
   * returned by onChunk is awaited before the next chunk is decoded.
   */
  async decode(z: Tensor, opts: { useCache?: boolean; onChunk?: (chunk: Tensor, index: number) => unknown; signal?: AbortSignal; keep?: boolean } = {}): Promise<Tensor> {
    const useCache = opts.useCache ?? true;
    if (!useCache && this.cfg.version === '2.2') throw new DecoderError('unsupported', WAN22_CACHE_OFF);
    const [zc, T, h, w] = z.shape as [number, number, number, number];
    const x = causalConv3d(z, null, this.t('conv2.weight'), this.t('conv2.bias'));
    const cache: Cache = { slots: useCache ? new Array<Slot>(this.cfg.numSlots).fill(null) : undefined, idx: 0 };
    const chunks: Tensor[] = [];
    for (let i = 0; i < T; i++) {
      await new Promise((r) => setTimeout(r, 0));
      if (opts.signal?.aborted) throw new DecoderError('cancelled', 'decode cancelled');
      const xi = tensor([zc, 1, h, w]);
      for (let c = 0; c < zc; c++) xi.data.set(x.data.subarray((c * T + i) * h * w, (c * T + i + 1) * h * w), c * h * w);
      cache.idx = 0;
      let out = this.forwardChunk(xi, cache, i === 0);
      if (this.cfg.patch === 2) out = unpatchify(out);
      out = clamp(out);
      await opts.onChunk?.(out, i); // backpressure: a consumer's Promise is awaited before the next chunk
      if (opts.keep === false) {
        if (!chunks.length) chunks.push(tensor([out.shape[0]!, 0, out.shape[2]!, out.shape[3]!]));
      } else chunks.push(out);
    }
    return chunks.reduce((a, b) => concatT(a, b));
  }
}
