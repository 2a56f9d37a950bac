// Weight storage precision of the convs (--weights-precision): the int8 quantiser, the f16 pair packing,
// their CPU references, and the rule of which conv weights follow the setting. Pure TypeScript, no GPU.
//
// int8: symmetric, one scale per output channel over that channel's Cin x taps weights:
//   s_o = max|W[o, :, :]| / 127,  q = round(W / s_o) clamped to [-127, 127],  W' = q · s_o   (s_o = 0: q = 0)
// GPU layout (shaders/conv3d-wq.wgsl, WQ=1): conv3d's packed weight order [taps][cin][cout4] with the 4
// output channels of one vec4 in one u32 (byte k = channel 4m+k, two's complement), then `cout` f32
// words s_o (the shader sign-extends each byte to q and multiplies the accumulated sum by s_o in the
// epilogue: per-output-channel scales factor out of the sum).
// f16 (WQ=2, with f32 activations): the same order, two u32 per vec4 (unpack2x16float), no scales.
import { DecoderError } from '../gpu/errors';
import { fromHalf, toHalf } from '../runtime/f16';
import { Weights, type Weight } from './weights';

/** Storage of conv weights: 'f32', 'f16' or 'int8' (per-output-channel scales). */
export type WeightsPrecision = 'f32' | 'f16' | 'int8';

/** How one conv's weight buffer is stored: 'elem' = in the activation storage type (conv3d), else packed u32 (conv3d-wq). */
export type ConvWeightFormat = 'elem' | 'int8' | 'f16';

/**
 * The format of a conv's weights for storage `elem` and weights precision `wp` (default: = elem).
 * int8 applies to every conv (3x3x3, time_conv, the Resample 2-D convs, 1x1 shortcuts, attention's qkv
 * and proj, conv1 and the head): one kernel, and the measured loss is small (README). Biases and norm
 * gammas stay in `elem`.
 */
export function convWeightFormat(elem: 'f32' | 'f16', wp: WeightsPrecision | undefined): ConvWeightFormat {
  const w = wp ?? elem;
  if (w === 'int8') return 'int8';
  if (w === elem) return 'elem';
  if (w === 'f16' && elem === 'f32') return 'f16';
  throw new DecoderError('bad-input', `weights precision ${w} with ${elem} storage: f32 weights need f32 storage (use --weights-precision f16 or int8, or --precision f32)`);
}

/** The WQ override of conv3d-wq for a packed format (0: not packed, plain conv3d). */
export function wqOverride(f: ConvWeightFormat): number {
  return f === 'int8' ? 1 : f === 'f16' ? 2 : 0;
}

/** Bytes of one conv's packed weight buffer (`rows` = taps · cin, conv3d's layout with cout padded to 4). */
export function packedWeightBytes(f: ConvWeightFormat, cout: number, rows: number, elemBytes: number): number {
  const cout4 = Math.ceil(cout / 4);
  if (f === 'elem') return Math.ceil((rows * cout4 * 4 * elemBytes) / 4) * 4;
  // at least 16 bytes: the buffer is also bound as conv3d's (unused) vec4 weight binding
  if (f === 'int8') return Math.max(16, 4 * (rows * cout4 + cout));
  return Math.max(16, 8 * rows * cout4);
}

export interface Int8Weights {
  /** [cout][per] int8 values of the PyTorch order [cout, cin, taps...] */
  q: Int8Array;
  /** per-output-channel scale s_o (W' = q · s_o) */
  scales: Float32Array;
}

/** Quantise a PyTorch-order weight [cout, ...] (any trailing shape) to int8 with per-output-channel scales. */
export function quantizeInt8(w: Float32Array, cout: number): Int8Weights {
  if (cout < 1 || w.length % cout) throw new DecoderError('bad-input', `quantizeInt8: ${w.length} values are not ${cout} output channels`);
  const per = w.length / cout;
  const q = new Int8Array(w.length);
  const scales = new Float32Array(cout);
  for (let o = 0; o < cout; o++) {
    let max = 0;
    for (let i = o * per; i < (o + 1) * per; i++) max = Math.max(max, Math.abs(w[i]!));
    if (!Number.isFinite(max)) throw new DecoderError('bad-input', `quantizeInt8: output channel ${o} has a non-finite weight`);
    const s = Math.fround(max / 127);
    scales[o] = s;
    if (s === 0) continue;
    for (let i = o * per; i < (o + 1) * per; i++) q[i] = Math.max(-127, Math.min(127, Math.round(w[i]! / s)));
  }
  return { q, scales };
}

/** CPU reference of the int8 weights: q · s_o in the PyTorch order (what the GPU convolves with, up to f32 rounding). */
export function dequantizeInt8(x: Int8Weights): Float32Array {
  const per = x.q.length / x.scales.length;
  return Float32Array.from(x.q, (v, i) => v * x.scales[Math.floor(i / per)]!);
}

/**
 * conv3d's packed weights [rows][cout4 * 4] (packConvWeight) -> the int8 GPU buffer: rows · cout4 u32 of
 * four int8 each, then cout f32 words s_o. Quantised exactly as quantizeInt8.
 */
export function packInt8(packed: Float32Array, cout: number, rows: number): Uint32Array<ArrayBuffer> {
  const cout4 = Math.ceil(cout / 4);
  if (packed.length !== rows * cout4 * 4) throw new DecoderError('bad-input', `packInt8: ${packed.length} values for ${rows} rows of ${cout4 * 4}`);
  const out = new Uint32Array(Math.max(4, rows * cout4 + cout));
  const max = new Float32Array(cout);
  for (let r = 0; r < rows; r++) for (let o = 0; o < cout; o++) max[o] = Math.max(max[o]!, Math.abs(packed[r * cout4 * 4 + o]!));
  const s = max.map((m) => Math.fround(m / 127));
  for (let r = 0; r < rows; r++)
    for (let m = 0; m < cout4; m++) {
      let word = 0;
      for (let k = 0; k < 4; k++) {
        const o = 4 * m + k;
        const q = o < cout && s[o] ? Math.max(-127, Math.min(127, Math.round(packed[r * cout4 * 4 + o]! / s[o]!))) : 0;
        word |= (q & 0xff) << (8 * k);
      }
      out[r * cout4 + m] = word >>> 0;
    }
  new Float32Array(out.buffer, 4 * rows * cout4, cout).set(s);
  return out;
}

/** Bytes of one conv's int8 buffer for the tensor-core path (packInt8Blocked): `blocked` int8 weights, then ob * 16 f32 scales. */
export function int8BlockedBytes(blocked: number, cout: number): number {
  return blocked + 4 * Math.ceil(cout / 16) * 16;
}

/**
 * conv3d-mma's blocked weights [tap][ob][cb][16 cout][16 cin] (packConvWeightBlocked; zero padding) -> the
 * int8 buffer shaders/dequant-int8.wgsl reads: the same order, one byte per weight (four consecutive cin in
 * one u32, byte k = element 4m+k), then ob * 16 f32 scales s_o (zero past cout). Quantised exactly as
 * quantizeInt8 (s_o = max|W[o]| / 127 over cin x taps, q = round(W / s_o) clamped to +-127): the padding
 * zeros change no maximum and quantise to 0.
 */
export function packInt8Blocked(blocked: Float32Array, cout: number, cin: number, taps: number): Uint32Array<ArrayBuffer> {
  const ob = Math.ceil(cout / 16),
    cb = Math.ceil(cin / 16);
  if (blocked.length !== taps * ob * cb * 256) throw new DecoderError('bad-input', `packInt8Blocked: ${blocked.length} values for ${taps} taps of [${ob * 16}, ${cb * 16}] blocked`);
  const out = new Uint32Array(int8BlockedBytes(blocked.length, cout) / 4);
  // element i's output channel: tile (t, o >> 4, c >> 4), row o & 15
  const chan = (i: number) => ((Math.floor(i / (cb * 256)) % ob) << 4) + ((i & 255) >> 4);
  const max = new Float32Array(ob * 16);
  for (let i = 0; i < blocked.length; i++) max[chan(i)] = Math.max(max[chan(i)]!, Math.abs(blocked[i]!));
  const s = max.map((m) => Math.fround(m / 127));
  const bytes = new Int8Array(out.buffer, 0, blocked.length);
  for (let i = 0; i < blocked.length; i++) {
    const so = s[chan(i)]!;
    bytes[i] = so ? Math.max(-127, Math.min(127, Math.round(blocked[i]! / so))) : 0;
  }
  new Float32Array(out.buffer, blocked.length, ob * 16).set(s);
  return out;
}

/**
 * packInt8Blocked(packConvWeightBlocked(w)) in one pass from the PyTorch-order weight [cout, cin, taps]
 * (the bytes are the same: each output channel's scale from its contiguous cin x taps values, then every
 * value quantised straight into its blocked byte; the padding stays 0). Why: the two-step path builds the
 * f32 blocked copy first and finds each element's channel by division (Wan2.1's 73 M conv weights: 3.1 s
 * of JS on the 2-core build machine, Wan2.2 has 530 M), and int8 weights are packed in JS at every decoder
 * build (the f16 ones are prepared on the GPU: runtime/exec/weights.ts).
 */
export function packInt8BlockedRows(w: Float32Array, cout: number, cin: number, taps: number): Uint32Array<ArrayBuffer> {
  if (w.length !== cout * cin * taps) throw new DecoderError('bad-input', `packInt8BlockedRows: ${w.length} values for [${cout}, ${cin}, ${taps}]`);
  const ob = Math.ceil(cout / 16),
    cb = Math.ceil(cin / 16);
  const blocked = taps * ob * cb * 256,
    plane = ob * cb * 256;
  const out = new Uint32Array(int8BlockedBytes(blocked, cout) / 4);
  const bytes = new Int8Array(out.buffer, 0, blocked);
  const scales = new Float32Array(out.buffer, blocked, ob * 16);
  for (let o = 0; o < cout; o++) {
    const base = o * cin * taps;
    let max = 0;
    for (let i = base; i < base + cin * taps; i++) max = Math.max(max, Math.abs(w[i]!));
    const so = Math.fround(max / 127);
    scales[o] = so;
    if (!so) continue;
    const row = (o >> 4) * cb * 256 + (o & 15) * 16;
    for (let c = 0, i = base; c < cin; c++) {
      const d0 = row + (c >> 4) * 256 + (c & 15);
      for (let t = 0, d = d0; t < taps; t++, i++, d += plane) bytes[d] = Math.max(-127, Math.min(127, Math.round(w[i]! / so)));
    }
  }
  return out;
}

/** conv3d's packed weights [rows][cout4 * 4] -> f16 pairs: two u32 per vec4 (low half = lower channel), as unpack2x16float reads them. */
export function packF16Pairs(packed: Float32Array): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(Math.max(4, packed.length / 2));
  for (let i = 0; i < packed.length; i += 2) out[i / 2] = (toHalf(packed[i]!) | (toHalf(packed[i + 1]!) << 16)) >>> 0;
  return out;
}

/**
 * CPU reference of a weights precision for a whole model: a copy of `w` whose conv weights (keys ending in
 * `.weight` with >= 4 dimensions: every conv, attention's 1x1 qkv / proj) hold what the GPU holds
 * (int8: q · s_o; f16: rounded to f16). Decoding it in f32 gives the reference of a packed-weight decode.
 */
export function weightsAs(w: Weights, wp: WeightsPrecision): Weights {
  if (wp === 'f32') return w;
  const map = new Map<string, Weight>();
  for (const [k, t] of w.map) {
    const conv = k.endsWith('.weight') && t.shape.length >= 4;
    const data = !conv ? t.data : wp === 'int8' ? dequantizeInt8(quantizeInt8(t.data, t.shape[0]!)) : t.data.map((v) => fromHalf(toHalf(v)));
    map.set(k, { ...t, data });
  }
  return new Weights(map, `${w.source} (${wp} conv weights)`);
}
