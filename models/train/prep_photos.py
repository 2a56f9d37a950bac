#!/usr/bin/env python3
"""Training and evaluation photographs from Debian's wallpaper packages, downscaled into one compact folder.

  apt-get install plasma-workspace-wallpapers gnome-backgrounds lomiri-wallpapers lomiri-wallpapers-16.04 \
      lomiri-wallpapers-20.04 mate-backgrounds sway-backgrounds ukui-wallpapers python3-pil python3-numpy
  /usr/bin/python3 models/train/prep_photos.py --out .models-data/photos

Each package's image files are found with `dpkg -L` (so files of two packages in one folder, such as
/usr/share/backgrounds, are told apart). One image is kept per picture: a wallpaper shipped at several sizes
(plasma's NAME/contents/images/WxH.*, mate's NAME_WxH.jpg, sway's one picture at seven sizes) keeps its largest
file. Every kept image is converted to RGB (an alpha channel is composited over mid grey) and downscaled with
Lanczos so that its short side is --short (never upscaled; images with a short side under 256 px are left out).

Writes into --out:
  train/NNN.jpg      the training images (JPEG quality --quality), every package but EVAL_PACKAGE
  eval/NAME.png      the evaluation images of EVAL_PACKAGE (ukui-wallpapers), lossless, short side --eval-short:
                     never used in training (data.py refuses this folder's names)
  manifest.json      per image: file, package, package version, original path and size, and the licence of the
                     package as its Debian copyright file states it (see models/README.md)
  .gitignore         `*`: git ignores the folder (it is carried to the GPU machine only where a call names it)
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
from PIL import Image

TRAIN_PACKAGES = ['plasma-workspace-wallpapers', 'gnome-backgrounds', 'lomiri-wallpapers', 'lomiri-wallpapers-16.04',
                  'lomiri-wallpapers-20.04', 'mate-backgrounds', 'sway-backgrounds']
EVAL_PACKAGE = 'ukui-wallpapers'
IMAGE = re.compile(r'\.(jpe?g|png|webp)$', re.I)

# The licences as each package's /usr/share/doc/PACKAGE/copyright states them for its images (Debian bookworm).
LICENCES = {
    'plasma-workspace-wallpapers': 'GPL-2+ (KDE Visual Design Group and the named artists; debian copyright file)',
    'gnome-backgrounds': 'CC-BY-SA-3.0 (per image authors in the copyright file: Jakub Steiner, Garrett LeSage, '
                         'Quinn Dombrowski, Felix Leupold, Helena Bartosova)',
    'lomiri-wallpapers': 'per image: CC-BY-4.0, CC-BY-SA-3.0/4.0, CC0-1.0, Expat (copyright file)',
    'lomiri-wallpapers-16.04': 'per image: CC-BY-4.0, CC-BY-SA-3.0/4.0, CC0-1.0, Expat (copyright file)',
    'lomiri-wallpapers-20.04': 'per image: CC-BY-4.0, CC-BY-SA-3.0/4.0, CC0-1.0, Expat (copyright file)',
    'mate-backgrounds': 'GPL-2+, two images CC-BY-SA-4.0 (copyright file)',
    'sway-backgrounds': 'MIT-like / Expat (sway copyright file)',
    'ukui-wallpapers': 'CC-BY-SA-3.0 (Ubuntu Kylin community contributors)',
}


def fail(msg):
    print(f'prep_photos.py: {msg}', file=sys.stderr)
    sys.exit(2)


def package_files(pkg):
    try:
        out = subprocess.run(['dpkg', '-L', pkg], check=True, capture_output=True, text=True).stdout
        ver = subprocess.run(['dpkg-query', '-W', '-f=${Version}', pkg], check=True, capture_output=True,
                             text=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        fail(f'package {pkg} is not installed (apt-get install {pkg})')
    return sorted(p for p in out.splitlines() if IMAGE.search(p) and os.path.isfile(p)), ver


def picture_key(path):
    """Files that hold one picture at several sizes share a key."""
    m = re.search(r'/wallpapers/([^/]+)/contents/images', path)
    if m:
        return 'plasma:' + m.group(1)
    base = os.path.splitext(os.path.basename(path))[0]
    if '/backgrounds/sway/' in path:
        return 'sway:' + re.sub(r'_\d+x\d+(_Portrait)?$', '', base)
    return os.path.dirname(path) + '/' + re.sub(r'_\d+x\d+$', '', base)


def load_rgb(path):
    im = Image.open(path)
    im.load()
    if im.mode in ('RGBA', 'LA', 'P'):
        im = im.convert('RGBA')
        bg = Image.new('RGBA', im.size, (128, 128, 128, 255))
        im = Image.alpha_composite(bg, im)
    return im.convert('RGB')


def downscale(im, short):
    w, h = im.size
    s = short / min(w, h)
    if s >= 1:
        return im
    return im.resize((max(1, round(w * s)), max(1, round(h * s))), Image.LANCZOS)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--out', required=True)
    p.add_argument('--short', type=int, default=448, help='short side of the training images')
    p.add_argument('--eval-short', type=int, default=384, help='short side of the evaluation images')
    p.add_argument('--quality', type=int, default=90)
    a = p.parse_args()
    os.makedirs(os.path.join(a.out, 'train'), exist_ok=True)
    os.makedirs(os.path.join(a.out, 'eval'), exist_ok=True)
    with open(os.path.join(a.out, '.gitignore'), 'w') as fh:
        fh.write('*\n')
    rows = []
    for pkg in TRAIN_PACKAGES + [EVAL_PACKAGE]:
        files, ver = package_files(pkg)
        best = {}
        for f in files:
            try:
                with Image.open(f) as im:
                    size = im.size
            except Exception as e:
                print(f'{pkg}: {f} skipped ({type(e).__name__})')
                continue
            k = picture_key(f)
            if k not in best or size[0] * size[1] > best[k][1][0] * best[k][1][1]:
                best[k] = (f, size)
        kept = 0
        for k in sorted(best):
            f, size = best[k]
            if min(size) < 256:
                print(f'{pkg}: {f} {size[0]}x{size[1]} skipped (short side < 256)')
                continue
            ev = pkg == EVAL_PACKAGE
            im = downscale(load_rgb(f), a.eval_short if ev else a.short)
            if ev:
                name = re.sub(r'[^A-Za-z0-9_-]', '_', os.path.splitext(os.path.basename(f))[0])
                rel = f'eval/{name}.png'
                im.save(os.path.join(a.out, rel), optimize=True)
            else:
                rel = f'train/{sum(1 for r in rows if r["set"] == "train"):03d}.jpg'
                im.save(os.path.join(a.out, rel), quality=a.quality)
            rows.append({'file': rel, 'set': 'eval' if ev else 'train', 'package': pkg, 'version': ver,
                         'original': f, 'originalSize': list(size), 'size': list(im.size),
                         'licence': LICENCES[pkg]})
            kept += 1
        print(f'{pkg} {ver}: {len(files)} image files, {len(best)} pictures, {kept} kept')
    with open(os.path.join(a.out, 'manifest.json'), 'w') as fh:
        json.dump({'short': a.short, 'evalShort': a.eval_short, 'quality': a.quality,
                   'evalPackage': EVAL_PACKAGE, 'images': rows}, fh, indent=1)
    tr = [r for r in rows if r['set'] == 'train']
    print(f'{len(tr)} training images, {len(rows) - len(tr)} evaluation images -> {a.out}')


if __name__ == '__main__':
    np.seterr(all='raise')
    main()
