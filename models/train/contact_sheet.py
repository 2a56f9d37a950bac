#!/usr/bin/env python3
"""Contact sheet of the memory levers on a sample of the trained model, with PSNR against the source clip
and against the exact decode. numpy only (no PIL): the PNG is written by hand.

  python3 models/train/contact_sheet.py --source models/samples/astronaut-128.source.npy \
      --run exact=/tmp/levers/exact.npy --run "cache off=/tmp/levers/cacheoff.npy" ... \
      --frames 0,4,8 --scale 2 --out docs/levers-astronaut-128.png --json docs/levers-astronaut-128.json

Rows: the source clip, then each run in the order given; columns: the chosen source frames. A run with fewer
frames than the source (cache off gives one frame per latent frame) is shown and measured at the frames it
has: its frame k stands for source frame round(k (F - 1) / (F_run - 1)) (latent k's last frame, 4k).
"""
import argparse
import json
import struct
import zlib

import numpy as np


def png(path, img):
    h, w, _ = img.shape
    raw = b''.join(b'\x00' + img[y].tobytes() for y in range(h))

    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def psnr(a, b):
    mse = float(((np.clip(a, -1, 1) - b) ** 2).mean())
    return float('inf') if mse == 0 else 10 * np.log10(4 / mse)


def to_u8(x):
    return ((np.clip(x, -1, 1) + 1) * 127.5).round().astype(np.uint8)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--source', required=True)
    p.add_argument('--run', action='append', default=[], help='LABEL=video.npy (float32 [3, F, H, W]); the first is the reference decode')
    p.add_argument('--frames', default='0,4,8')
    p.add_argument('--scale', type=int, default=2)
    p.add_argument('--out', required=True)
    p.add_argument('--json', default='')
    a = p.parse_args()
    src = np.load(a.source).astype(np.float64) / 127.5 - 1
    F = src.shape[1]
    cols = [int(v) for v in a.frames.split(',')]
    runs = []
    for r in a.run:
        label, path = r.split('=', 1)
        runs.append((label, np.load(path).astype(np.float64)))
    ref = runs[0][1]
    table = []
    rows = [[src[:, f] for f in cols]]
    for label, v in runs:
        n = v.shape[1]
        idx = list(range(F)) if n == F else [round(k * (F - 1) / max(1, n - 1)) for k in range(n)]
        s_at = src[:, idx]
        row = {'lever': label, 'frames': n, 'psnrVsSource': round(psnr(v, s_at), 2)}
        if n == ref.shape[1]:
            e = psnr(v, ref)
            row['psnrVsExact'] = 'inf' if e == float('inf') else round(e, 2)
            row['maxAbsVsExact'] = float(np.abs(np.clip(v, -1, 1) - np.clip(ref, -1, 1)).max())
        else:
            row['sourceFramesCompared'] = idx
        table.append(row)
        pick = []
        for f in cols:
            k = idx.index(f) if f in idx else None
            pick.append(v[:, k] if k is not None else np.zeros_like(src[:, 0]) - 1)
        rows.append(pick)
    gap = 4
    h, w = src.shape[2] * a.scale, src.shape[3] * a.scale
    sheet = np.full((len(rows) * (h + gap) - gap, len(cols) * (w + gap) - gap, 3), 40, np.uint8)
    for i, row in enumerate(rows):
        for j, fr in enumerate(row):
            img = to_u8(fr).transpose(1, 2, 0).repeat(a.scale, 0).repeat(a.scale, 1)
            sheet[i * (h + gap):i * (h + gap) + h, j * (w + gap):j * (w + gap) + w] = img
    png(a.out, sheet)
    print(json.dumps(table, indent=1))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'source': a.source, 'frames': cols, 'rows': ['source'] + [r[0] for r in runs], 'table': table}, f, indent=1)


if __name__ == '__main__':
    main()
