#!/usr/bin/env python3
"""A wider Wan2.1 decoder that computes the same function as a trained narrower one (Net2Net-style widening).

  python3 models/train/widen.py --init models --name wan21-d32 --dims 128,128,128,64,64 --out DIR --out-name wan21-hr64

Every channel of a widened activation is repeated r times (new channel j holds old channel j // r within its group):
- a conv's output rows are copied (its bias too); `to_qkv`'s output has 3 groups (q, k, v), `time_conv`'s 2 (the two
  sub-frames), each widened on its own, so the reshapes of attention and upsample3d see the same layout;
- a conv's input columns are split over the r copies with weights that sum to 1 (1 / r plus zero-sum noise of
  +-`--split` / r, drawn per output row and input channel): with equal copies in, the sum is the old sum, and the
  unequal shares let the copies' gradients differ, so training can make them different channels;
- RMS_norm's gamma is copied: the norm of r equal copies is sqrt(r) x the old norm and its scale sqrt(r C) grows by
  the same factor, so each normalised channel is unchanged;
- attention's q rows are scaled by 1 / sqrt(r): q.k over r copies is r x the old dot product and the softmax's
  1 / sqrt(C) shrinks by sqrt(r), so the logits are unchanged;
- a shortcut the narrow decoder did not have (its level kept its width, the wider one's first block widens it) starts
  as the identity widened: the copies of its input.
The encoder and conv2 are copied unchanged. The result is written in float32 (f16 rounding of the split shares would
change the function by ~1e-3) with `--check`'s figure: max |wide - narrow| of a float64 decode of random latents.
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wan_vae import WanVAE, decoder_dims, encoder_shape, read_safetensors, write_safetensors  # noqa: E402


def _groups(name):
    if name.endswith('to_qkv.weight') or name.endswith('to_qkv.bias'):
        return 3
    if name.endswith('time_conv.weight') or name.endswith('time_conv.bias'):
        return 2
    return 1


def _row_map(new, old, groups):
    """new output index -> old output index, channels repeated within each of `groups` groups."""
    gn, go = new // groups, old // groups
    if gn * groups != new or go * groups != old or gn % go:
        raise ValueError(f'cannot widen {old} -> {new} channels in {groups} groups')
    j = np.arange(new)
    return (j // gn) * go + (j % gn) // (gn // go)


def widen_tensor(name, old, shape, rng, split):
    """The tensor `name` of the wider decoder (shape `shape`) from the narrow one's `old`."""
    if tuple(old.shape) == tuple(shape):
        return old.astype(np.float64)
    if old.ndim != len(shape) or any(a != b for a, b in zip(old.shape[2:], shape[2:])):
        raise ValueError(f'{name}: shape {list(old.shape)} cannot widen to {list(shape)}')
    w = old.astype(np.float64)[_row_map(shape[0], old.shape[0], _groups(name))]
    if name.endswith('.gamma') or w.ndim == 1:
        return w
    cin_o, cin_n = old.shape[1], shape[1]
    if cin_n != cin_o:
        r = cin_n // cin_o
        if r * cin_o != cin_n:
            raise ValueError(f'{name}: input {cin_o} -> {cin_n} channels is not a whole factor')
        # shares [cout_new, cin_old, r] summing to 1 over r
        noise = rng.uniform(-split, split, size=(shape[0], cin_o, r)) / r
        noise -= noise.mean(axis=2, keepdims=True)
        share = 1.0 / r + noise
        w = w[:, np.arange(cin_n) // r] * share.reshape(shape[0], cin_n)[(...,) + (None,) * (w.ndim - 2)]
    return w


def widen(old, new_shapes, seed=0, split=0.2):
    """old: an export's tensors (decoder + encoder); new_shapes: name -> shape of the wider model. -> name -> float64."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in new_shapes.items():
        if name in old:
            t = widen_tensor(name, old[name], shape, rng, split)
        elif name.endswith('.shortcut.weight'):  # the identity of the narrow block, widened
            cin = shape[1]
            t = widen_tensor(name, np.eye(cin).reshape(cin, cin, 1, 1, 1), shape, rng, split)
        elif name.endswith('.shortcut.bias'):
            t = np.zeros(shape)
        else:
            raise ValueError(f'{name}: no tensor of the narrow model to widen it from')
        if name.endswith('to_qkv.weight') or name.endswith('to_qkv.bias'):
            r = shape[0] // old[name].shape[0]
            if r > 1:
                t[:shape[0] // 3] /= np.sqrt(r)
        out[name] = t
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--init', required=True, help='folder with NAME-decoder/encoder.safetensors')
    p.add_argument('--name', default='wan21-d32')
    p.add_argument('--dims', required=True, help='the wider decoder: 5 widths (conv1, then each up level), e.g. 128,128,128,64,64')
    p.add_argument('--out', required=True)
    p.add_argument('--out-name', required=True)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--split', type=float, default=0.2, help='the input shares are 1/r +- split/r')
    p.add_argument('--check', type=int, default=1, help='1: decode random latents [16, 3, 8, 8] with both (float64)')
    a = p.parse_args()
    old = {}
    for part in ('decoder', 'encoder'):
        t, meta = read_safetensors(os.path.join(a.init, f'{a.name}-{part}.safetensors'))
        old.update(t)
    dims = [int(v) for v in a.dims.split(',')]
    enc_dim, nrb = encoder_shape(old)
    wide = WanVAE(dim=enc_dim, z_dim=16, enc_dim=enc_dim, enc_res_blocks=nrb, dec_dims=dims)
    shapes = {k: tuple(v.shape) for k, v in wide.state_dict().items()}
    new = widen(old, shapes, a.seed, a.split)
    os.makedirs(a.out, exist_ok=True)
    meta = {'format': 'wan-vae-webgpu widened start', 'from': f'{a.init}/{a.name}', 'decoder_dims': a.dims,
            'narrow_dims': ','.join(map(str, decoder_dims(old))), 'seed': a.seed, 'split': a.split}
    for part, keep in (('decoder', lambda k: k.startswith(('conv2.', 'decoder.'))), ('encoder', lambda k: k.startswith(('conv1.', 'encoder.')))):
        write_safetensors(os.path.join(a.out, f'{a.out_name}-{part}.safetensors'),
                          {k: v.astype(np.float32) for k, v in new.items() if keep(k)}, meta)
    n_old = sum(v.size for k, v in old.items() if k.startswith(('conv2.', 'decoder.')))
    n_new = sum(int(np.prod(s)) for k, s in shapes.items() if k.startswith(('conv2.', 'decoder.')))
    print(f'widened {a.name} decoder {decoder_dims(old)} -> {dims}: {n_old} -> {n_new} parameters -> {a.out}/{a.out_name}-*.safetensors')
    if a.check:
        dev = 'cuda' if torch.cuda.is_available() else 'cpu'
        narrow = WanVAE(dim=enc_dim, z_dim=16, enc_dim=enc_dim, enc_res_blocks=nrb, dec_dims=decoder_dims(old)).double()
        narrow.load_state_dict({k: torch.from_numpy(v.astype(np.float64)) for k, v in old.items()}, strict=True)
        wide = wide.double()
        wide.load_state_dict({k: torch.from_numpy(v.astype(np.float32).astype(np.float64)) for k, v in new.items()}, strict=True)
        narrow, wide = narrow.to(dev), wide.to(dev)
        z = torch.from_numpy(np.random.default_rng(1).standard_normal((1, 16, 3, 8, 8)) * 2).to(dev)
        with torch.no_grad():
            y0, y1 = narrow.decode(z), wide.decode(z)
        err = float((y0 - y1).abs().max())
        print(f'check: float64 decode of random latents [16, 3, 8, 8] -> {list(y0.shape[1:])}: max |wide - narrow| {err:.3e} '
              f'(output range {float(y0.abs().max()):.2f})')
        if err > 1e-4:
            print('widen: the wider decoder does not compute the narrow one\'s function', file=sys.stderr)
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
