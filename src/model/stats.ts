// Per-channel latent statistics: the decoder input is `latents * std + mean` (vae.py `z / scale[1] + scale[0]`).
import { DecoderError } from '../gpu/errors';

export interface LatentStats {
  mean: Float32Array;
  std: Float32Array;
}

// Wan2.1 VAE (z=16) and Wan2.2 VAE (z=48), from the official code (spec §1).
const WAN21_MEAN = [-0.7571, -0.7089, -0.9113, 0.1075, -0.1745, 0.9653, -0.1517, 1.5508, 0.4134, -0.0715, 0.5517, -0.3632, -0.1922, -0.9497, 0.2503, -0.2921];
const WAN21_STD = [2.8184, 1.4541, 2.3275, 2.6558, 1.2196, 1.7708, 2.6052, 2.0743, 3.2687, 2.1526, 2.8652, 1.5579, 1.6382, 1.1253, 2.8251, 1.916];
const WAN22_MEAN = [
  -0.2289, -0.0052, -0.1323, -0.2339, -0.2799, 0.0174, 0.1838, 0.1557, -0.1382, 0.0542, 0.2813, 0.0891, 0.157, -0.0098, 0.0375, -0.1825, -0.2246, -0.1207, -0.0698, 0.5109, 0.2665, -0.2108, -0.2158,
  0.2502, -0.2055, -0.0322, 0.1109, 0.1567, -0.0729, 0.0899, -0.2799, -0.123, -0.0313, -0.1649, 0.0117, 0.0723, -0.2839, -0.2083, -0.052, 0.3748, 0.0152, 0.1957, 0.1433, -0.2944, 0.3573, -0.0548,
  -0.1681, -0.0667,
];
const WAN22_STD = [
  0.4765, 1.0364, 0.4514, 1.1677, 0.5313, 0.499, 0.4818, 0.5013, 0.8158, 1.0344, 0.5894, 1.0901, 0.6885, 0.6165, 0.8454, 0.4978, 0.5759, 0.3523, 0.7135, 0.6804, 0.5833, 1.4146, 0.8986, 0.5659, 0.7069,
  0.5338, 0.4889, 0.4917, 0.4069, 0.4999, 0.6866, 0.4093, 0.5709, 0.6065, 0.6415, 0.4944, 0.5726, 1.2042, 0.5458, 1.6887, 0.3971, 1.06, 0.3943, 0.5537, 0.5444, 0.4089, 0.7468, 0.7744,
];

/** The official statistics for a latent width of z channels (16: Wan2.1, 48: Wan2.2). */
export function officialStats(z: number): LatentStats {
  if (z === 16) return { mean: Float32Array.from(WAN21_MEAN), std: Float32Array.from(WAN21_STD) };
  if (z === 48) return { mean: Float32Array.from(WAN22_MEAN), std: Float32Array.from(WAN22_STD) };
  throw new DecoderError('bad-input', `no official latent statistics for z=${z} channels (Wan2.1 has 16, Wan2.2 has 48): pass statistics from a file or 'none'`);
}

/** Identity statistics (mean 0, std 1): the latents are already de-normalised. */
export function noStats(z: number): LatentStats {
  return { mean: new Float32Array(z), std: new Float32Array(z).fill(1) };
}

/** latents [z, T, h, w] * std + mean, per channel, into a new array. */
export function denormalize(latents: Float32Array, z: number, stats: LatentStats): Float32Array {
  if (stats.mean.length !== z || stats.std.length !== z)
    throw new DecoderError('bad-input', `latent statistics have ${stats.mean.length} means / ${stats.std.length} stds, latents have ${z} channels`);
  const per = latents.length / z;
  const out = new Float32Array(latents.length);
  for (let c = 0; c < z; c++) for (let i = 0; i < per; i++) out[c * per + i] = latents[c * per + i]! * stats.std[c]! + stats.mean[c]!;
  return out;
}
