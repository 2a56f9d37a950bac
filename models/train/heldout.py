#!/usr/bin/env python3
"""Export the held-out validation clips of train.py's `validate` so they can be decoded by the project's
WebGPU decoder (scripts/heldout-webgpu.mjs), with their latents from the shipped encoder.

  python3 models/train/heldout.py --out /tmp/heldout [--torch]

Writes into --out, for each clip NAME:
  NAME.source.npy   uint8 [3, 17, 128, 128]  the clip exactly as the encoder saw it (x = u8 / 127.5 - 1)
  NAME.latents.npy  float32 [16, 5, 16, 16]  posterior mean, normalised with the official Wan2.1 mean/std
and index.json: [{name, set, source, key, psnrTorch?}]. The clips are train.py's validation set, a pure function
of the seed (data.py): 24 clips of the held-out stream (seed, 1 000 000 + i) (photograph moves and procedural
scenes, photo_frac 0.75) and 8 clips over the photograph never trained on (`chelsea`, keys 1 000 500 + i).
--torch also decodes each clip with PyTorch (float32, no TF32, the f16-rounded weights) and stores its PSNR
against the source (the figure train.py's validation reports), for the table beside the WebGPU figure.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data import HELD_OUT_PHOTO, HELD_OUT_STREAM, _rng, load_photos, make_clip, photo_clip, quantize  # noqa: E402
from train import psnr, roundtrip  # noqa: E402
from wan_vae import WanVAE, latent_stats, read_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--out', required=True)
    p.add_argument('--models', default=os.path.join(HERE, '..'), help='folder with NAME-decoder/encoder.safetensors')
    p.add_argument('--name', default='wan21-d32')
    p.add_argument('--seed', type=int, default=12)
    p.add_argument('--clips', type=int, default=24, help="train.py's --val-clips")
    p.add_argument('--frames', type=int, default=17)
    p.add_argument('--size', type=int, default=128)
    p.add_argument('--torch', action='store_true', help='also the PyTorch float32 decode PSNR of each clip')
    p.add_argument('--only', default='', help='comma-separated clip names (default: all)')
    a = p.parse_args()
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    sd = {}
    for part in ('decoder', 'encoder'):
        t, _ = read_safetensors(os.path.join(a.models, f'{a.name}-{part}.safetensors'))
        sd.update({k: torch.from_numpy(v.astype(np.float32)) for k, v in t.items()})  # f16 -> f32 exactly
    ev = WanVAE(dim=32, z_dim=16, enc_dim=32, enc_res_blocks=1)
    ev.load_state_dict(sd, strict=True)
    ev = ev.to(dev).float().eval()
    photos = load_photos(dev, lambda *m: None)
    # the clip list of train.py `validate`, in its order
    clips = []
    for i in range(a.clips):
        key = (a.seed, HELD_OUT_STREAM + i)
        clips.append((f'val-{i:02d}', key, lambda k=key: make_clip(k, photos, a.frames, a.size, dev)))
    for i in range(max(2, a.clips // 3)):
        key = (a.seed, HELD_OUT_STREAM + 500 + i)
        clips.append((f'{HELD_OUT_PHOTO}-{i}', key,
                      lambda k=key: (photo_clip(_rng(*k), photos, HELD_OUT_PHOTO, a.frames, a.size, dev), HELD_OUT_PHOTO)))
    only = set(a.only.split(',')) if a.only else None
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name, key, make in clips:
        if only and name not in only:
            continue
        t = time.time()
        clip, src = make()
        if a.torch:  # encode, then decode `latents * std + mean` in float32 (as the TypeScript decoder's input)
            u8, xq, lat, y = roundtrip(ev, clip, dev)
        else:  # encode only
            u8, xq = quantize(clip)
            mean, std = latent_stats(dev)
            with torch.no_grad():
                lat = ((ev.encode(xq[None])[0] - mean) / std)[0].float()
        np.save(os.path.join(a.out, f'{name}.source.npy'), u8.cpu().numpy())
        np.save(os.path.join(a.out, f'{name}.latents.npy'), lat.cpu().numpy().astype(np.float32))
        st = 'unseen-photo' if src == HELD_OUT_PHOTO else 'procedural' if src == 'shapes' else 'photo-clip'
        row = {'name': name, 'set': st, 'source': src, 'key': list(key)}
        if a.torch:
            row['psnrTorch'] = round(psnr(y, xq)[0], 3)
        rows.append(row)
        print(f'{name} ({st}, {src}): latents {list(lat.shape)}' + (f", PyTorch {row['psnrTorch']:.2f} dB" if a.torch else '')
              + f' ({time.time() - t:.1f} s)', flush=True)
    with open(os.path.join(a.out, 'index.json'), 'w') as f:
        json.dump({'seed': a.seed, 'frames': a.frames, 'size': [a.size, a.size], 'device': dev,
                   'torch': torch.__version__, 'clips': rows}, f, indent=1)


if __name__ == '__main__':
    main()
