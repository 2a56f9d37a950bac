// Weight naming: diffusers (AutoencoderKLWan) and prefixed (ComfyUI-style) checkpoints load to the same
// original keys; config inference on the official shapes; safetensors F16 / BF16 decoding.
import { describe, expect, it } from 'vitest';
import { inferConfig } from '../../src/model/config';
import { parseSafetensors, toFloat32, writeSafetensors } from '../../src/model/safetensors';
import { decoderShapes, OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { loadWeights } from '../../src/model/weights';
import { DecoderError } from '../../src/gpu/errors';

/** original -> diffusers key (the inverse of src/model/keys.ts, written independently from spec §3.3) */
function toDiffusers(key: string, v22: boolean): string {
  if (key.startsWith('conv2.')) return key.replace('conv2.', 'post_quant_conv.');
  let k = key
    .replace('decoder.conv1.', 'decoder.conv_in.')
    .replace('decoder.head.0.', 'decoder.norm_out.')
    .replace('decoder.head.2.', 'decoder.conv_out.')
    .replace('decoder.middle.0.', 'decoder.mid_block.resnets.0.')
    .replace('decoder.middle.1.', 'decoder.mid_block.attentions.0.')
    .replace('decoder.middle.2.', 'decoder.mid_block.resnets.1.');
  if (v22) k = k.replace(/decoder\.upsamples\.(\d+)\.upsamples\.(\d+)\./, (_, b, j) => (j === '3' ? `decoder.up_blocks.${b}.upsampler.` : `decoder.up_blocks.${b}.resnets.${j}.`));
  else
    k = k.replace(/decoder\.upsamples\.(\d+)\./, (_, i) => {
      const n = Number(i),
        b = Math.floor(n / 4),
        j = n % 4;
      return j === 3 ? `decoder.up_blocks.${b}.upsamplers.0.` : `decoder.up_blocks.${b}.resnets.${j}.`;
    });
  return k
    .replace('.residual.0.gamma', '.norm1.gamma')
    .replace('.residual.2.', '.conv1.')
    .replace('.residual.3.gamma', '.norm2.gamma')
    .replace('.residual.6.', '.conv2.')
    .replace('.shortcut.', '.conv_shortcut.');
}

describe.each(['2.1', '2.2'] as const)('Wan%s naming', (v) => {
  const spec = { version: v, dim: 4, zDim: v === '2.1' ? 4 : 8, seed: 3 } as const;
  const w = syntheticWeights(spec);
  const tensors = Object.fromEntries([...w.map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]));

  it('diffusers names map back to the original keys, values intact', () => {
    const diff = Object.fromEntries(Object.entries(tensors).map(([k, t]) => [toDiffusers(k, v === '2.2'), t]));
    // an encoder tensor and a non-weight tensor are ignored
    diff['encoder.conv_in.weight'] = { shape: [1], data: new Float32Array(1) };
    const loaded = loadWeights(writeSafetensors(diff), 'diffusers.safetensors');
    expect([...loaded.map.keys()].sort()).toEqual(Object.keys(tensors).sort());
    for (const [k, t] of loaded.map) expect(t.data).toEqual(tensors[k]!.data);
    expect(inferConfig(loaded)).toEqual(inferConfig(w));
  });

  it('ComfyUI-style prefixed keys load', () => {
    const pre = Object.fromEntries(Object.entries(tensors).map(([k, t]) => [`first_stage_model.${k}`, t]));
    expect(inferConfig(loadWeights(writeSafetensors(pre), 'comfy.safetensors')).version).toBe(v);
  });
});

describe('config inference on the official shapes', () => {
  it.each([
    ['2.1', 73_295_603, 16, 96, 8, [384, 384, 192, 96]],
    ['2.2', 555_051_580, 48, 256, 16, [1024, 1024, 512, 256]],
  ] as const)('Wan%s: %i parameters, z=%i, dim=%i, x%i', (v, params, z, dim, scale, outs) => {
    const shapes = decoderShapes(OFFICIAL[v]);
    expect(shapes.reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 1), 0)).toBe(params);
    const cfg = inferConfig(syntheticWeights(OFFICIAL[v], { values: false }));
    expect([cfg.zDim, cfg.dim, cfg.scale, cfg.numSlots]).toEqual([z, dim, scale, 32]);
    expect(cfg.upBlocks.map((b) => b.resblocks.at(-1)!.cout)).toEqual(outs);
  });
});

describe('safetensors', () => {
  it('decodes F16 and BF16 and rejects truncated files with the tensor named', () => {
    // 1.5 = 0x3e00 (f16) = 0x3fc0 (bf16); -2 = 0xc000 (f16) = 0xc000 (bf16)
    const header = JSON.stringify({ a: { dtype: 'F16', shape: [2], data_offsets: [0, 4] }, b: { dtype: 'BF16', shape: [2], data_offsets: [4, 8] } });
    const hb = new TextEncoder().encode(header);
    const buf = new Uint8Array(8 + hb.length + 8);
    new DataView(buf.buffer).setBigUint64(0, BigInt(hb.length), true);
    buf.set(hb, 8);
    const dv = new DataView(buf.buffer, 8 + hb.length);
    dv.setUint16(0, 0x3e00, true);
    dv.setUint16(2, 0xc000, true);
    dv.setUint16(4, 0x3fc0, true);
    dv.setUint16(6, 0xc000, true);
    const f = parseSafetensors(buf, 't.safetensors');
    expect(Array.from(toFloat32(f.tensors.get('a')!))).toEqual([1.5, -2]);
    expect(Array.from(toFloat32(f.tensors.get('b')!))).toEqual([1.5, -2]);
    expect(() => parseSafetensors(buf.subarray(0, buf.length - 2), 't.safetensors')).toThrow(/tensor b .*truncated/);
    expect(() => parseSafetensors(new Uint8Array(16), 'zeros.bin')).toThrow(DecoderError);
  });
});
