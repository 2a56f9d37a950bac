// Latent files people have, recognised without flags: ComfyUI SaveLatent `.latent` (safetensors with
// `latent_tensor` [1, z, T, h, w] and an empty `latent_format_version_0`), diffusers latents saved with
// safetensors ([1, z, T, h, w] under `latents` or alone), .npy; statistics stored beside them; errors.
import { describe, expect, it } from 'vitest';
import { parseLatents } from '../../src/model/latents';
import { writeSafetensors } from '../../src/model/safetensors';
import { writeNpy } from '../../src/model/npy';

const values = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 2);

describe('parseLatents', () => {
  const shape5 = [1, 16, 2, 3, 4];
  const n = 16 * 2 * 3 * 4;

  it('ComfyUI SaveLatent .latent: latent_tensor [1, 16, T, h, w] + latent_format_version_0', () => {
    const f = writeSafetensors({ latent_tensor: { shape: shape5, data: values(n) }, latent_format_version_0: { shape: [0], data: new Float32Array(0) } }, { prompt: '{}' });
    const l = parseLatents(f, 'ComfyUI_00001_.latent');
    expect(l.shape).toEqual([16, 2, 3, 4]);
    expect(l.format).toBe('comfyui-latent');
    expect(l.source).toBe('ComfyUI_00001_.latent:latent_tensor');
    expect(l.data[5]).toBeCloseTo(Math.sin(5) * 2, 6);
    expect(l.stats).toBeUndefined();
  });

  it('diffusers output_type="latent" saved with safetensors: the only tensor, or `latents`', () => {
    expect(parseLatents(writeSafetensors({ video_latents: { shape: shape5, data: values(n) } }), 'd.safetensors')).toMatchObject({ shape: [16, 2, 3, 4], format: 'safetensors' });
    const two = writeSafetensors({ latents: { shape: shape5, data: values(n) }, timesteps: { shape: [3], data: new Float32Array(3) } });
    expect(parseLatents(two, 'd.safetensors').source).toBe('d.safetensors:latents');
  });

  it('statistics stored beside the latents (@mean / @std) come with them', () => {
    const f = writeSafetensors({
      '@latents': { shape: [16, 2, 3, 4], data: values(n) },
      '@mean': { shape: [16], data: new Float32Array(16).fill(0.5) },
      '@std': { shape: [16], data: new Float32Array(16).fill(2) },
    });
    const l = parseLatents(f, 'g.safetensors');
    expect(l.stats?.mean[3]).toBe(0.5);
    expect(l.stats?.std[15]).toBe(2);
    const bad = writeSafetensors({ '@latents': { shape: [16, 2, 3, 4], data: values(n) }, '@mean': { shape: [16], data: new Float32Array(16) } });
    expect(() => parseLatents(bad, 'g.safetensors')).toThrow(/g\.safetensors: latent statistics need tensors '@mean' and '@std'/);
  });

  it('.npy with a batch of one', () => {
    expect(parseLatents(writeNpy(shape5, values(n)), 'l.npy')).toMatchObject({ shape: [16, 2, 3, 4], format: 'npy' });
  });

  it('one-line errors: a batch of 2, a 4-D image latent, several unnamed tensors', () => {
    expect(() => parseLatents(writeNpy([2, 16, 1, 3, 4], values(2 * 16 * 12)), 'b.npy')).toThrow(/b\.npy: latents have shape \[2,16,1,3,4\], a batch of 2: save one video's latents/);
    expect(() => parseLatents(writeNpy([1, 16, 3], values(48)), 'i.npy')).toThrow(/i\.npy: latents have shape \[1,16,3\], expected \[z, T, h, w\]/);
    const many = writeSafetensors({ a: { shape: [1], data: new Float32Array(1) }, b: { shape: [1], data: new Float32Array(1) } });
    expect(() => parseLatents(many, 'm.safetensors')).toThrow(/m\.safetensors: 2 tensors and none named '@latents', 'latents', 'latent_tensor'.*--latents-key; has: a, b\)/);
  });
});
