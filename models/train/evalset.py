#!/usr/bin/env python3
"""The reserved evaluation set: clips over the ukui-wallpapers photographs (never trained on), moved the way
generated video moves, encoded by a model's encoder, for the WebGPU table (scripts/heldout-webgpu.mjs).

  python3 models/train/evalset.py --photos .models-data/photos --out /tmp/evalset [--models models] [--torch]
  python3 models/train/evalset.py --photos .models-data/photos --out /tmp/evalset --sources-only
  (--sources-only into a folder that already has an index.json, e.g. latents returned by a GPU machine: the sources
  are checked against its sha1s and that index is kept)

Per photograph of PHOTOS/eval/ (prep_photos.py: short side 384, lossless PNG) four clips of --frames frames at
--size x --size, 1 source pixel per output pixel: a slow pan (1 px / frame), a medium pan (4 px / frame), a
fast pan (8 px / frame), each in a direction drawn from the photograph's index, and a zoom (in for even
indices, out for odd; 0.70 <-> 1.0 source pixels per output pixel over the clip, ~2.2 % / frame). Pixels are
bilinear samples of the PNG's uint8 values in float64 numpy, rounded to uint8: the same bytes on every machine
(no GPU, no torch in the making), so the sources can be made here and the latents there.

Writes NAME.source.npy (uint8 [3, F, S, S]), NAME.latents.npy (float32 [16, 1 + (F-1)/4, S/8, S/8], official
Wan2.1 normalisation) and index.json ({clips: [{name, set, source, speed, psnrTorch?, ssimTorch?, sha1}], sets}).
--torch adds PyTorch's float32 decode PSNR of each clip (the f16-rounded weights, no TF32); --compare MODELS2
also that of a second model folder (its own encoder and decoder) as psnrTorchOther.
"""
import argparse
import hashlib
import json
import math
import os
import sys

import numpy as np

SPEEDS = (('slow', 1.0), ('medium', 4.0), ('fast', 8.0))
SETS = [['slow pans (1 px / frame)', 'slow'], ['medium pans (4 px / frame)', 'medium'],
        ['fast pans (8 px / frame)', 'fast'], ['zooms (~2.2 % / frame)', 'zoom'], ['all clips', '*']]


def bilinear(img, xs, ys):
    """img float64 [H, W, 3]; xs, ys float64 [h, w] source coordinates (pixel centres at i + 0.5), edges clamped."""
    H, W = img.shape[:2]
    x = np.clip(xs - 0.5, 0, W - 1)
    y = np.clip(ys - 0.5, 0, H - 1)
    x0 = np.minimum(np.floor(x).astype(np.int64), W - 2)
    y0 = np.minimum(np.floor(y).astype(np.int64), H - 2)
    fx = (x - x0)[..., None]
    fy = (y - y0)[..., None]
    a, b = img[y0, x0], img[y0, x0 + 1]
    c, d = img[y0 + 1, x0], img[y0 + 1, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def clip_of(img, kind, speed, idx, frames, size):
    """uint8 [3, F, S, S]."""
    H, W = img.shape[:2]
    o = np.arange(size, dtype=np.float64) + 0.5 - size / 2
    ox, oy = np.meshgrid(o, o)
    out = np.empty((3, frames, size, size), np.uint8)
    ang = (idx * 2.399963229728653) % (2 * math.pi)  # golden-angle directions, one per photograph
    for f in range(frames):
        u = f / (frames - 1)
        if kind == 'zoom':
            s0, s1 = (1.0, 0.7) if idx % 2 == 0 else (0.7, 1.0)
            s = s0 * (s1 / s0) ** u
            cx, cy = W / 2, H / 2
        else:
            s = 1.0
            travel = speed * (frames - 1)
            t = (u - 0.5) * travel
            cx, cy = W / 2 + math.cos(ang) * t, H / 2 + math.sin(ang) * t
        v = bilinear(img, cx + ox * s, cy + oy * s)
        out[:, f] = np.clip(np.round(v), 0, 255).astype(np.uint8).transpose(2, 0, 1)
    return out


def make_sources(photos, frames, size):
    from PIL import Image
    with open(os.path.join(photos, 'manifest.json')) as f:
        man = json.load(f)
    rows = [r for r in man['images'] if r['set'] == 'eval']
    clips = []
    for idx, r in enumerate(rows):
        img = np.asarray(Image.open(os.path.join(photos, r['file'])).convert('RGB'), dtype=np.float64)
        H, W = img.shape[:2]
        if min(H, W) < size + 8 * (frames - 1) * 0.71 + 2:
            raise SystemExit(f"evalset.py: {r['file']} {W}x{H} is too small for a {size} px clip with 8 px/frame pans")
        base = os.path.splitext(os.path.basename(r['file']))[0]
        for kind, speed in SPEEDS + (('zoom', 0.0),):
            u8 = clip_of(img, kind, speed, idx, frames, size)
            clips.append({'name': f'ukui-{idx:02d}-{kind}', 'set': kind, 'source': base, 'speed': speed,
                          'sha1': hashlib.sha1(u8.tobytes()).hexdigest()[:16]}, )
            clips[-1]['_u8'] = u8
    return clips


def load_model(models, name, dev):
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from wan_vae import model_from_state, read_safetensors
    sd = {}
    for part in ('decoder', 'encoder'):
        t, _ = read_safetensors(os.path.join(models, f'{name}-{part}.safetensors'))
        sd.update(t)
    return model_from_state(sd).to(dev).float().eval()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--photos', required=True, help="prep_photos.py's folder")
    p.add_argument('--out', required=True)
    p.add_argument('--models', default=os.path.join(here, '..'))
    p.add_argument('--compare', default='', help='a second model folder: its PyTorch PSNR too (psnrTorchOther)')
    p.add_argument('--name', default='wan21-d32')
    p.add_argument('--frames', type=int, default=17)
    p.add_argument('--size', type=int, default=128)
    p.add_argument('--torch', action='store_true')
    p.add_argument('--sources-only', action='store_true')
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    clips = make_sources(a.photos, a.frames, a.size)
    for c in clips:
        np.save(os.path.join(a.out, f"{c['name']}.source.npy"), c['_u8'])
    made = {}  # where the latents were made (scripts/heldout-webgpu.mjs reports it as `encoder`)
    if not a.sources_only:
        import torch
        sys.path.insert(0, here)
        from train import psnr
        from wan_vae import latent_stats
        dev = 'cuda' if torch.cuda.is_available() else 'cpu'
        made = {'device': torch.cuda.get_device_name() if dev == 'cuda' else 'cpu', 'torch': torch.__version__}
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        mean, std = latent_stats(dev)
        models = [('', load_model(a.models, a.name, dev))]
        if a.compare:
            models.append(('Other', load_model(a.compare, a.name, dev)))
        for c in clips:
            x = torch.from_numpy(c['_u8']).to(dev).float()[None] / 127.5 - 1
            for tag, m in models:
                with torch.no_grad():
                    lat = ((m.encode(x)[0] - mean) / std)[0].float()
                    if tag == '':
                        np.save(os.path.join(a.out, f"{c['name']}.latents.npy"), lat.cpu().numpy().astype(np.float32))
                    if a.torch:
                        y = m.decode(lat[None] * std + mean)[0].clamp(-1, 1)
                        c['psnrTorch' + tag] = round(psnr(y, x[0])[0], 3)
            print(c['name'], {k: v for k, v in c.items() if k.startswith('psnr')}, flush=True)
    for c in clips:
        del c['_u8']
    idx = os.path.join(a.out, 'index.json')
    if a.sources_only and os.path.exists(idx):
        # the sources next to latents made elsewhere (a GPU machine): that index (with its PyTorch PSNR) stays
        with open(idx) as f:
            old = {c['name']: c.get('sha1') for c in json.load(f)['clips']}
        new = {c['name']: c['sha1'] for c in clips}
        if old != new:
            bad = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
            raise SystemExit(f'evalset.py: {idx}: {len(bad)} clips differ from the sources made here (first: {bad[0]}, '
                             f'sha1 {old.get(bad[0])} vs {new.get(bad[0])})')
        print(f'{len(clips)} sources -> {a.out}, equal to its index.json (sha1), which is kept')
        return
    with open(idx, 'w') as f:
        json.dump({'frames': a.frames, 'size': [a.size, a.size], 'photos': 'ukui-wallpapers (prep_photos.py eval/)',
                   **made, 'sets': SETS, 'clips': clips}, f, indent=1)
    print(f'{len(clips)} clips -> {a.out}')


if __name__ == '__main__':
    main()
