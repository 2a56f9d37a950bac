// Key naming: every checkpoint is normalised to the ORIGINAL Wan key names (vae.py state_dict), which are
// also the labels of the plan steps. diffusers (AutoencoderKLWan) names are mapped here (spec §3.3).
// Encoder tensors, `@`-prefixed non-weight tensors and known wrapper prefixes are dropped.

const PREFIXES = ['first_stage_model.', 'vae.', 'model.'];

/** The decoder-relevant original key for `key`, or null when the tensor is not part of the decoder. */
export function toOriginalKey(key: string, diffusersWan22: boolean): string | null {
  if (key.startsWith('@')) return null;
  for (const p of PREFIXES) if (key.startsWith(p)) key = key.slice(p.length);
  if (key.startsWith('post_quant_conv.')) return 'conv2.' + key.slice('post_quant_conv.'.length);
  if (key.startsWith('conv2.')) return key;
  if (!key.startsWith('decoder.')) return null; // encoder, quant_conv (conv1), ...
  let k = key.slice('decoder.'.length);
  k = k
    .replace(/^conv_in\./, 'conv1.')
    .replace(/^norm_out\./, 'head.0.')
    .replace(/^conv_out\./, 'head.2.')
    .replace(/^mid_block\.resnets\.0\./, 'middle.0.')
    .replace(/^mid_block\.attentions\.0\./, 'middle.1.')
    .replace(/^mid_block\.resnets\.1\./, 'middle.2.');
  const up = /^up_blocks\.(\d+)\.(resnets\.(\d+)|upsamplers\.0|upsampler)\.(.*)$/.exec(k);
  if (up) {
    const block = Number(up[1]);
    const sub = up[3] !== undefined ? Number(up[3]) : 3; // the upsampler follows the 3 resnets
    const rest = up[4]!;
    k = diffusersWan22 ? `upsamples.${block}.upsamples.${sub}.${rest}` : `upsamples.${block * 4 + sub}.${rest}`;
  }
  k = k
    .replace(/\.norm1\.gamma$/, '.residual.0.gamma')
    .replace(/\.conv1\.(weight|bias)$/, '.residual.2.$1')
    .replace(/\.norm2\.gamma$/, '.residual.3.gamma')
    .replace(/\.conv2\.(weight|bias)$/, '.residual.6.$1')
    .replace(/\.conv_shortcut\.(weight|bias)$/, '.shortcut.$1');
  return 'decoder.' + k;
}

/** True when the key set uses diffusers names for a Wan2.2 decoder (`up_blocks.N.upsampler`, singular). */
export function isDiffusersWan22(keys: Iterable<string>): boolean {
  for (const k of keys) if (/up_blocks\.\d+\.upsampler\./.test(k)) return true;
  return false;
}
