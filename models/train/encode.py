#!/usr/bin/env python3
"""Encode a clip into latents the project's decoder (and `wan-vae decode`) reads.

  python3 models/train/encode.py --clip clip.npy --out latents.npy [--encoder models/wan21-d32-encoder.safetensors]

clip.npy: [3, F, H, W] with F = 1 + 4k and H, W multiples of 8; float in [-1, 1], or uint8 (x = u8 / 127.5 - 1).
latents.npy: float32 [16, 1 + k, H/8, W/8], the posterior mean normalised with the official Wan2.1 statistics, so
`wan-vae decode --weights models/wan21-d32-decoder.safetensors --latents latents.npy` decodes it (default
`--latent-stats official`). Needs PyTorch and numpy; runs on CUDA when available, else on the CPU (float32).
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wan_vae import build_from_state, latent_stats, read_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print(f'encode.py: {msg}', file=sys.stderr)
    sys.exit(2)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--clip', required=True)
    p.add_argument('--out', required=True)
    p.add_argument('--encoder', default=os.path.join(HERE, '..', 'wan21-d32-encoder.safetensors'))
    p.add_argument('--device', default='cuda' if torch.cuda.is_available() else 'cpu')
    p.add_argument('--check', default='', help='latents .npy to compare with (prints max |diff|)')
    a = p.parse_args()
    try:
        x = np.load(a.clip)
    except Exception as e:
        fail(f'{a.clip}: cannot read ({e})')
    if x.ndim != 4 or x.shape[0] != 3:
        fail(f'{a.clip}: clip has shape {list(x.shape)}, expected [3, F, H, W]')
    f, h, w = x.shape[1:]
    if (f - 1) % 4 or h % 8 or w % 8:
        fail(f'{a.clip}: clip [3, {f}, {h}, {w}] needs F = 1 + 4k frames and H, W multiples of 8')
    if x.dtype == np.uint8:
        x = x.astype(np.float32) / 127.5 - 1
    elif x.dtype.kind == 'f':
        x = x.astype(np.float32)
        if not np.isfinite(x).all() or x.min() < -1.001 or x.max() > 1.001:
            fail(f'{a.clip}: values must be finite and in [-1, 1] (got {x.min():.3f} .. {x.max():.3f})')
    else:
        fail(f'{a.clip}: dtype {x.dtype} not supported (float or uint8)')
    t, _ = read_safetensors(a.encoder)
    m = build_from_state(t, 'encoder').to(a.device).float().eval()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    mean, std = latent_stats(a.device)
    with torch.no_grad():
        xt = torch.from_numpy(x).to(a.device)[None]
        mu = m.conv1(m.encoder(xt)).chunk(2, dim=1)[0]
        lat = ((mu - mean) / std)[0].float().cpu().numpy()
    np.save(a.out, lat.astype(np.float32))
    print(f'{a.clip} [3, {f}, {h}, {w}] -> {a.out} {list(lat.shape)}')
    if a.check:
        ref = np.load(a.check)
        print(f'max |latents - {os.path.basename(a.check)}| = {float(np.abs(ref - lat).max()):.3e}')


if __name__ == '__main__':
    main()
