#!/usr/bin/env python3
"""Contact sheet of the memory levers on a sample of the trained model, with PSNR and SSIM against the source
clip and against the exact decode. numpy only (no PIL): the PNG is written by hand.

  python3 models/train/contact_sheet.py --source models/samples/astronaut-128.source.npy \
      --run exact=/tmp/levers/exact.npy --run "cache off=/tmp/levers/cacheoff.npy" ... \
      --frames 0,4,8 --scale 2 --out docs/levers-astronaut-128.png --json docs/levers-astronaut-128.json

Rows: the source clip, then each run in the order given; columns: the chosen source frames. A run with fewer
frames than the source (cache off gives one frame per latent frame) is shown and measured at the frames it
has: its frame k stands for source frame round(k (F - 1) / (F_run - 1)) (latent k's last frame, 4k).

--diff adds, under each run but the first, a heat map of |run - exact| (mean over RGB; black -> red -> yellow
-> white, white = the run's largest difference, written to the JSON as diffScale); a run with other frames
than the exact decode (cache off) is compared with the source frames it stands for instead.
SSIM: as src/model/quality.ts (Wang et al. 2004: luma Y = 0.299 R + 0.587 G + 0.114 B in [0, 1], 11x11
Gaussian window sigma 1.5, K1 0.01, K2 0.03, valid positions, mean over frames).
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


def _gauss():
    g = np.exp(-((np.arange(11) - 5) ** 2) / (2 * 1.5 ** 2))
    return g / g.sum()


def _filt(x):
    """valid-mode separable 11x11 Gaussian filtering of [H, W]"""
    g = _gauss()
    h, w = x.shape
    rows = sum(g[j] * x[:, j:w - 10 + j] for j in range(11))
    return sum(g[j] * rows[j:h - 10 + j, :] for j in range(11))


def ssim(a, b):
    """mean SSIM of clips [3, F, H, W] in [-1, 1] (a clamped), luma per frame"""
    def luma(x):
        x = np.clip(x, -1, 1)
        return (0.299 * x[0] + 0.587 * x[1] + 0.114 * x[2] + 1) / 2
    ya, yb = luma(a), luma(b)
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    out = []
    for f in range(ya.shape[0]):
        x, y = ya[f], yb[f]
        mx, my = _filt(x), _filt(y)
        vx, vy, cxy = _filt(x * x) - mx * mx, _filt(y * y) - my * my, _filt(x * y) - mx * my
        out.append((((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))).mean())
    return float(np.mean(out))


def heat(d, scale):
    """[H, W] differences -> [3, H, W] in [-1, 1]: black -> red -> yellow -> white at `scale`"""
    v = np.clip(d / max(scale, 1e-12), 0, 1) * 3
    rgb = np.stack([np.clip(v, 0, 1), np.clip(v - 1, 0, 1), np.clip(v - 2, 0, 1)])
    return rgb * 2 - 1


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
    p.add_argument('--diff', action='store_true', help='a heat map row of |run - exact| under each run but the first')
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
        row = {'lever': label, 'frames': n, 'psnrVsSource': round(psnr(v, s_at), 2), 'ssimVsSource': round(ssim(v, s_at), 4)}
        if n == ref.shape[1]:
            e = psnr(v, ref)
            row['psnrVsExact'] = 'inf' if e == float('inf') else round(e, 2)
            row['ssimVsExact'] = round(ssim(v, ref), 6)
            row['maxAbsVsExact'] = float(np.abs(np.clip(v, -1, 1) - np.clip(ref, -1, 1)).max())
        else:
            row['sourceFramesCompared'] = idx
        table.append(row)
        pick = []
        for f in cols:
            k = idx.index(f) if f in idx else None
            pick.append(v[:, k] if k is not None else np.zeros_like(src[:, 0]) - 1)
        rows.append(pick)
        if a.diff and v is not ref:
            against = ref if n == ref.shape[1] else s_at
            d = np.abs(np.clip(v, -1, 1) - np.clip(against, -1, 1)).mean(0)  # [n, H, W]
            scale = float(d.max())
            row['diffAgainst'] = 'exact decode' if n == ref.shape[1] else 'source frames'
            row['diffScale'] = scale
            rows.append([heat(d[idx.index(f)], scale) if f in idx else np.zeros_like(src[:, 0]) - 1 for f in cols])
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
            names = ['source'] + [x for r in runs for x in ([r[0]] if (not a.diff or r is runs[0]) else [r[0], f'|{r[0]} - exact|'])]
            json.dump({'source': a.source, 'frames': cols, 'rows': names, 'table': table}, f, indent=1)


if __name__ == '__main__':
    main()
