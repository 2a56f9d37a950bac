// The conv weights' and operands' layouts, shader-free: the portable conv's packed weight order
// (conv3d.ts, shaders/conv3d.wgsl) and the tensor-core conv's blocks (conv3d-mma.ts): what the planner
// counts and what the executor uploads, without the kernels' WGSL (conv3d.ts and conv3d-mma.ts re-export).
import { DecoderError } from '../gpu/errors';

/** Number of elements `packConvWeight` returns. */
export function packedConvWeightLength(cout: number, cin: number, kt: number, ks: number): number {
  return kt * ks * ks * cin * Math.ceil(cout / 4) * 4;
}

/**
 * PyTorch weight [cout, cin, kt, ks, ks] -> the shader's [kt*ks*ks taps][cin][cout4*4] (cout padded
 * with zeros to a multiple of 4; the shader reads it as vec4 along cout). Tap order (dt, dy, dx).
 */
export function packConvWeight(w: Float32Array, cout: number, cin: number, kt: number, ks: number): Float32Array {
  const taps = kt * ks * ks;
  if (w.length !== cout * cin * taps) throw new DecoderError('bad-input', `packConvWeight: ${w.length} values for [${cout}, ${cin}, ${kt}, ${ks}, ${ks}]`);
  const co4 = Math.ceil(cout / 4) * 4;
  const out = new Float32Array(taps * cin * co4);
  for (let o = 0; o < cout; o++) for (let c = 0; c < cin; c++) for (let t = 0; t < taps; t++) out[(t * cin + c) * co4 + o] = w[(o * cin + c) * taps + t]!;
  return out;
}

/** Block counts of one conv call: 16-channel input / output blocks, 16-pixel blocks per row, operand rows, pixel blocks. */
export function mmaGeometry(p: { cin: number; cout: number; h: number; w: number }, ks: number) {
  const cb = Math.ceil(p.cin / 16);
  const xb = Math.ceil(p.w / 16);
  return { cb, xb, ob: Math.ceil(p.cout / 16), rows: p.h + ks - 1, tiles: p.h * xb };
}

/** Padded columns of one operand row (the row's 16-pixel blocks plus the KS - 1 padding columns). */
export function mmaPaddedWidth(w: number, ks: number): number {
  return Math.ceil(w / 16) * 16 + ks - 1;
}

/**
 * Elements of the operand copy `s` one conv call needs (every temporal tap, tap0 = 0): one copy of each
 * of the KT input frames, channels innermost padded to 16, width padded to 16 plus KS - 1 columns, plus
 * the padding rows. At 96 channels 480x832 (3x3x3): 3 x 96 x 482 x 834 = 116 M elements (232 MB in f16;
 * the three x-shifted copies before 2026-12-01 (e96e7c0) took 3x that).
 */
export function mmaScratchElems(p: { cin: number; cout: number; h: number; w: number }, kt: number, ks: number): number {
  const g = mmaGeometry(p, ks);
  return kt * g.cb * g.rows * mmaPaddedWidth(p.w, ks) * 16;
}

/** Elements of one packed operand frame (one temporal tap of the operand copy; one frame of a packed cache ring): cb * 16 channels x (h + KS - 1) rows x mmaPaddedWidth. */
export function mmaFrameElems(p: { cin: number; cout: number; h: number; w: number }, ks: number): number {
  return mmaScratchElems(p, 1, ks);
}

/** Number of elements `packConvWeightBlocked` returns. */
export function blockedConvWeightLength(cout: number, cin: number, kt: number, ks: number): number {
  const g = mmaGeometry({ cin, cout, h: 1, w: 1 }, ks);
  return kt * ks * ks * g.ob * g.cb * 256;
}

/**
 * PyTorch weight [cout, cin, kt, ks, ks] -> conv3d-mma's [tap][ob][cb][16 cout][16 cin] (each 16x16
 * tile contiguous; zeros pad cout and cin to multiples of 16). Tap order (dt, dy, dx) as conv3d's.
 */
export function packConvWeightBlocked(w: Float32Array, cout: number, cin: number, kt: number, ks: number): Float32Array {
  const taps = kt * ks * ks;
  if (w.length !== cout * cin * taps) throw new DecoderError('bad-input', `packConvWeightBlocked: ${w.length} values for [${cout}, ${cin}, ${kt}, ${ks}, ${ks}]`);
  const { ob, cb } = mmaGeometry({ cin, cout, h: 1, w: 1 }, ks);
  const out = new Float32Array(taps * ob * cb * 256);
  const plane = ob * cb * 256; // one tap's tiles
  for (let o = 0; o < cout; o++) {
    const row = (o >> 4) * cb * 256 + (o & 15) * 16;
    let src = o * cin * taps;
    for (let c = 0; c < cin; c++, src += taps) {
      const dst = row + (c >> 4) * 256 + (c & 15);
      for (let t = 0, d = dst; t < taps; t++, d += plane) out[d] = w[src + t]!;
    }
  }
  return out;
}

/**
 * The upsample Conv2d's weight [cout, cin, 3, 3] (applied after a nearest-2x upsample) -> its four output
 * phases' 2x2 kernels over the low-resolution input, [cout, cin, 16] with tap 4 * (2 py + px) + 2 ty + tx
 * (summed in float64): output pixel (2y + py, 2x + px) = sum over ty, tx of tap (py, px, ty, tx) times input
 * pixel (y + py + ty - 1, x + px + tx - 1), zero outside, exactly the upsampled 3x3 conv
 * (kernels/conv3d-mma-flat.ts `phases`). Blocked like a 16-tap conv: packConvWeightBlocked(.., 16, 1).
 * Which 3x3 taps fall on which low-resolution tap: along each axis, even outputs (phase 0) give low-resolution
 * tap 0 the kernel's tap 0 and tap 1 its taps 1 and 2; odd outputs (phase 1) give tap 0 the kernel's taps 0 and 1
 * and tap 1 its tap 2. The 16 sums over w0..w8 (w[dy * 3 + dx]) are written out, dy-major then dx: this runs on
 * the JS thread while the decoder is built, where loops over those tap lists took 189 ms (32 ms written out) for
 * one of Wan2.2's 1024-channel convs (9.4 M weights) on a 2-core build machine, 2026-12-07.
 */
export function upPhaseWeight(w: Float32Array, cout: number, cin: number): Float32Array {
  if (w.length !== cout * cin * 9) throw new DecoderError('bad-input', `upPhaseWeight: ${w.length} values for [${cout}, ${cin}, 3, 3]`);
  const out = new Float32Array(cout * cin * 16);
  for (let s = 0, d = 0; d < out.length; s += 9, d += 16) {
    const w0 = w[s]!,
      w1 = w[s + 1]!,
      w2 = w[s + 2]!,
      w3 = w[s + 3]!,
      w4 = w[s + 4]!,
      w5 = w[s + 5]!,
      w6 = w[s + 6]!,
      w7 = w[s + 7]!,
      w8 = w[s + 8]!;
    out[d] = w0;
    out[d + 1] = w1 + w2;
    out[d + 2] = w3 + w6;
    out[d + 3] = w4 + w5 + w7 + w8;
    out[d + 4] = w0 + w1;
    out[d + 5] = w2;
    out[d + 6] = w3 + w4 + w6 + w7;
    out[d + 7] = w5 + w8;
    out[d + 8] = w0 + w3;
    out[d + 9] = w1 + w2 + w4 + w5;
    out[d + 10] = w6;
    out[d + 11] = w7 + w8;
    out[d + 12] = w0 + w1 + w3 + w4;
    out[d + 13] = w2 + w5;
    out[d + 14] = w6 + w7;
    out[d + 15] = w8;
  }
  return out;
}

/** Elements of upPhaseWeight's result blocked for conv3d-mma (16 taps). */
export function upPhaseBlockedLength(cout: number, cin: number): number {
  return blockedConvWeightLength(cout, cin, 16, 1);
}
