#!/usr/bin/env python3
"""A contact sheet of several clips, one row each: source frame, decoded frame, |difference| heat map (the same
scale on every row), with PSNR/SSIM of the whole clip in the JSON.

  python3 models/train/clip_sheet.py --dir /tmp/ev128 --decodes /tmp/ev128dec --names ukui-00-fast,ukui-01-fast \
      --frame 8 --out docs/evalset-fast-pans.png --json docs/evalset-fast-pans.json

DIR/NAME.source.npy: uint8 [3, F, H, W]; DECODES/NAME.decode.npy: float32 [3, F, H, W] in [-1, 1] (the CLI's
`--out X.npy`, scripts/heldout-webgpu.mjs --keep).
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contact_sheet import heat, png, psnr, ssim, to_u8  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--dir', required=True)
    p.add_argument('--decodes', required=True)
    p.add_argument('--names', required=True)
    p.add_argument('--frame', type=int, default=8)
    p.add_argument('--diff-scale', type=float, default=0.5, help='|difference| (over [-1, 1]) shown as the hottest colour')
    p.add_argument('--scale', type=int, default=1)
    p.add_argument('--out', required=True)
    p.add_argument('--json', default='')
    a = p.parse_args()
    rows, table = [], []
    for name in a.names.split(','):
        src = np.load(os.path.join(a.dir, f'{name}.source.npy')).astype(np.float64) / 127.5 - 1
        dec = np.load(os.path.join(a.decodes, f'{name}.decode.npy')).astype(np.float64)
        if dec.shape != src.shape:
            raise SystemExit(f'clip_sheet.py: {name}: decode {list(dec.shape)} vs source {list(src.shape)}')
        f = min(a.frame, src.shape[1] - 1)
        d = np.abs(np.clip(dec[:, f], -1, 1) - src[:, f]).mean(0)
        rows.append([src[:, f], dec[:, f], heat(d, a.diff_scale)])
        table.append({'clip': name, 'frame': f, 'psnrVsSource': round(psnr(dec, src), 2), 'ssimVsSource': round(ssim(dec, src), 4)})
        print(table[-1])
    gap = 4
    h, w = rows[0][0].shape[1] * a.scale, rows[0][0].shape[2] * a.scale
    sheet = np.full((len(rows) * (h + gap) - gap, 3 * (w + gap) - gap, 3), 40, np.uint8)
    for i, row in enumerate(rows):
        for j, fr in enumerate(row):
            img = to_u8(fr).transpose(1, 2, 0).repeat(a.scale, 0).repeat(a.scale, 1)
            sheet[i * (h + gap):i * (h + gap) + h, j * (w + gap):j * (w + gap) + w] = img
    png(a.out, sheet)
    if a.json:
        with open(a.json, 'w') as fh:
            json.dump({'columns': ['source', 'decode', f'|decode - source| (hottest = {a.diff_scale})'], 'rows': table}, fh, indent=1)


if __name__ == '__main__':
    main()
