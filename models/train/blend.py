#!/usr/bin/env python3
"""Weight interpolation between two exports of the same architecture (base + alpha * (other - base)), each blend
scored on the validation sets, the best kept by a rule fixed before the run.

Two fine-tunings from one start lie close together: blends between the start and a fine-tuned model often keep
most of the fine-tuning's gain on the new data while losing less on the old (Wortsman et al. 2022, WiSE-FT).

  # here (numpy only): the difference of two exports, int8 per tensor, xz (the GPU machine's 64 MiB per call
  # holds the tree with one model but not a second one at full size)
  python3 models/train/blend.py delta --base models --other DIR --out .models-data/blend/delta.xz
  # there (PyTorch): blends at the given alphas, each exported (train.py's export: weights, samples, held-out
  # validation, video.py's validation split) and scored on the ukui evaluation set; the chosen one in OUT/chosen
  python3 models/train/blend.py eval --base models --delta stage5=.models-data/blend/delta.xz --other stage6=/tmp/wv6/out \
      --alphas 0.25,0.5,0.75,1 --library .models-data/photos --out /tmp/blend
  # here or there (numpy only): one blend's f16 weights, the same tensors bit for bit as `eval` scores (e.g. the one
  # it chose, from the trained weights a device call returned, without a GPU)
  python3 models/train/blend.py make --base models --other /tmp/wv8/ema --alpha 0.5 --out /tmp/chosen

The delta file: xz of a JSON header line ({name: [shape, scale]}) and the int8 values in header order; a blend's
weight is f16(base + alpha * scale * q), computed in float32. alpha = 1 is `other` up to the int8 rounding of
the difference (max |error| printed by `delta`). With --other LABEL=DIR the difference is exact (alpha 1 = DIR).

The rule (`eval`): among the blends whose held-out validation mean (train.py's 24 clips) and default-sample PSNR
are not below the base's, the highest mean on video.py's validation split; the base itself when none is.
`--sample-slack DB` (default 0) lets the default sample be up to DB below the base's (the held-out mean still not
below): set before a run, never after seeing its rows.
The ukui evaluation set is scored for the report only (it never chooses).
"""
import argparse
import json
import lzma
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from safetensors_np import read_safetensors  # noqa: E402

PARTS = ('decoder', 'encoder')


def read_export(folder, name):
    out = {}
    for part in PARTS:
        t, _ = read_safetensors(os.path.join(folder, f'{name}-{part}.safetensors'))
        out.update(t)
    return out


def write_delta(base, other, path):
    """int8 per tensor (scale = max |d| / 127) of other - base, xz. Returns (bytes, max |f16(base + d') - other|)."""
    header, blobs, worst = {}, [], 0.0
    for k, v in base.items():
        if k not in other or other[k].shape != v.shape:
            raise SystemExit(f'blend.py: {k}: shapes {list(v.shape)} vs {list(other[k].shape) if k in other else "missing"}')
        d = other[k].astype(np.float32) - v.astype(np.float32)
        s = float(np.abs(d).max()) / 127 or 1.0
        q = np.round(d / s).astype(np.int8)
        header[k] = [list(v.shape), s]
        blobs.append(q.tobytes())
        rec = (v.astype(np.float32) + q.astype(np.float32) * s).astype(np.float16).astype(np.float32)
        worst = max(worst, float(np.abs(rec - other[k].astype(np.float32)).max()))
    raw = json.dumps(header).encode() + b'\n' + b''.join(blobs)
    data = lzma.compress(raw, preset=6)
    with open(path, 'wb') as f:
        f.write(data)
    return len(data), worst


def read_delta(path):
    raw = lzma.decompress(open(path, 'rb').read())
    nl = raw.index(b'\n')
    header = json.loads(raw[:nl])
    out, off = {}, nl + 1
    for k, (shape, s) in header.items():
        n = int(np.prod(shape))
        out[k] = np.frombuffer(raw[off:off + n], dtype=np.int8).reshape(shape).astype(np.float32) * s
        off += n
    return out


def blend_tensors(base, diff, alpha):
    """{name: f16 array}: base + alpha x diff in float32, rounded to f16, as `eval` builds each candidate."""
    return {k: (v.astype(np.float32) + alpha * diff[k] if diff is not None else v.astype(np.float32)).astype(np.float16)
            for k, v in base.items()}


def make_blend(a):
    """`make`: the blend's decoder and encoder files (f16, the base files' key order and metadata, plus the blend's)."""
    from safetensors_np import write_safetensors
    if bool(a.other) == bool(a.delta):
        raise SystemExit('blend.py make: give one of --other DIR and --delta FILE')
    os.makedirs(a.out, exist_ok=True)
    parts = {}
    for part in PARTS:
        t, meta = read_safetensors(os.path.join(a.base, f'{a.name}-{part}.safetensors'))
        parts[part] = (t, meta)
    base = {k: v.astype(np.float32) for t, _ in parts.values() for k, v in t.items()}
    if a.delta:
        diff = read_delta(a.delta)
    else:
        o = read_export(a.other, a.name)
        diff = {k: o[k].astype(np.float32) - v for k, v in base.items()}
    missing = sorted(set(base) - set(diff))
    if missing:
        raise SystemExit(f'blend.py make: {a.other or a.delta} lacks {len(missing)} tensors of the base (first: {missing[0]})')
    out = blend_tensors(base, diff, a.alpha)
    for part, (t, meta) in parts.items():
        m = {**meta, 'blend': json.dumps({'base': a.base, 'other': a.other or a.delta, 'alpha': a.alpha})}
        path = os.path.join(a.out, f'{a.name}-{part}.safetensors')
        write_safetensors(path + '.tmp', {k: out[k] for k in t}, m)
        os.replace(path + '.tmp', path)
    print(f'{a.out}: f16({a.base} + {a.alpha:g} x ({a.other or a.delta} - {a.base})), {len(out)} tensors')
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    d = sub.add_parser('delta')
    d.add_argument('--base', required=True)
    d.add_argument('--other', required=True)
    d.add_argument('--out', required=True)
    d.add_argument('--name', default='wan21-d32')
    mk = sub.add_parser('make')
    mk.add_argument('--base', required=True)
    mk.add_argument('--other', default='', help='DIR: a second export')
    mk.add_argument('--delta', default='', help='FILE: a difference written by `delta`')
    mk.add_argument('--alpha', type=float, required=True)
    mk.add_argument('--out', required=True)
    mk.add_argument('--name', default='wan21-d32')
    e = sub.add_parser('eval')
    e.add_argument('--base', required=True)
    e.add_argument('--delta', action='append', default=[], help="LABEL=FILE: a difference written by `delta`")
    e.add_argument('--other', action='append', default=[], help='LABEL=DIR: a second export (the difference in float32)')
    e.add_argument('--alphas', default='0.25,0.5,0.75,1', help='blends of each difference (alpha 0, the base, always)')
    e.add_argument('--library', required=True, help="prep_photos.py's folder (eval/ and the validation split's train/ images)")
    e.add_argument('--out', required=True)
    e.add_argument('--name', default='wan21-d32')
    e.add_argument('--seed', type=int, default=12)
    e.add_argument('--val-clips', type=int, default=24, help="train.py's --val-clips (the old held-out table)")
    e.add_argument('--video-val-clips', type=int, default=12)
    e.add_argument('--sample-slack', type=float, default=0.0, help='dB the default sample astronaut-128 may lose against the base (the rule)')
    a = p.parse_args()
    if a.cmd == 'delta':
        n, worst = write_delta(read_export(a.base, a.name), read_export(a.other, a.name), a.out)
        print(f'{a.out}: {n} bytes, max |f16(base + int8 delta) - other| {worst:.3g}')
        return 0
    if a.cmd == 'make':
        return make_blend(a)

    import torch
    from data import load_photos
    from evalset import make_sources
    from train import export, log, psnr
    from video import load_library
    from wan_vae import latent_stats, model_from_state
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    ns = argparse.Namespace(name=a.name, dim=32, enc_dim=32, enc_res_blocks=1, seed=a.seed, video_val_clips=a.video_val_clips)
    base = {k: v.astype(np.float32) for k, v in read_export(a.base, a.name).items()}
    diffs = [(s.split('=', 1)[0], read_delta(s.split('=', 1)[1])) for s in a.delta]
    for s in a.other:
        label, folder = s.split('=', 1)
        o = read_export(folder, a.name)
        diffs.append((label, {k: o[k].astype(np.float32) - v for k, v in base.items()}))
    cands = [('base', 0.0, None)] + [(label, float(al), d) for label, d in diffs for al in a.alphas.split(',')]
    photos = load_photos(dev, log)
    lib = load_library(a.library, dev, photos, log, parts=('val',))
    ev_clips = [(c, torch.from_numpy(c.pop('_u8')).to(dev).float()[None] / 127.5 - 1) for c in make_sources(a.library, 17, 128)]
    mean, std = latent_stats(dev)
    rows = []
    for label, alpha, delta in cands:
        t = time.time()
        sd = {k: torch.from_numpy(v.astype(np.float32)) for k, v in blend_tensors(base, delta, alpha).items()}
        m = model_from_state(sd).to(dev).float().eval()
        rep = {}
        folder = os.path.join(a.out, f'{label}-{alpha:g}')
        samples = export(m, ns, photos, folder, dev, rep, val_clips=a.val_clips, lib=lib)
        ukui = {}
        for c, x in ev_clips:
            with torch.no_grad():
                lat = ((m.encode(x)[0] - mean) / std)[0].float()
                y = m.decode(lat[None] * std + mean)[0].clamp(-1, 1)
            ukui.setdefault(c['set'], []).append(psnr(y, x[0])[0])
        ukui = {k: round(float(np.mean(v)), 3) for k, v in ukui.items()}
        ukui['all'] = round(float(np.mean([v for k, v in ukui.items()])), 3)
        v = rep['validation']
        row = {'name': f'{label}-{alpha:g}', 'other': label, 'alpha': alpha, 'heldOut': v['heldOutClips']['mean'], 'heldOutPhotos': v['heldOutClipsPhotos']['mean'],
               'heldOutShapes': v['heldOutClipsShapes']['mean'], 'unseenPhoto': v['heldOutPhoto']['mean'],
               'videoVal': rep['videoValidation']['mean'], 'videoValKinds': rep['videoValidation']['perKind'],
               'samples': {s['name']: s['psnrTorch'] for s in samples}, 'ukui128': ukui, 'seconds': round(time.time() - t, 1)}
        rows.append(row)
        log(f'{label} alpha {alpha:g}: {json.dumps({k: v for k, v in row.items() if k != "videoValKinds"})}')
        with open(os.path.join(folder, 'training.json'), 'w') as f:
            json.dump({'blend': {'base': a.base, 'other': label, 'alpha': alpha}, **rep, 'samples': samples}, f, indent=1)
    b0 = rows[0]
    slack = a.sample_slack
    ok = [r for r in rows if r['heldOut'] >= b0['heldOut'] and r['samples']['astronaut-128'] >= b0['samples']['astronaut-128'] - slack]
    best = max(ok, key=lambda r: r['videoVal']) if ok else b0
    log(f"chosen {best['name']} (held-out {best['heldOut']} vs {b0['heldOut']}, video validation {best['videoVal']} vs {b0['videoVal']})")
    os.replace(os.path.join(a.out, best['name']), os.path.join(a.out, 'chosen'))
    with open(os.path.join(a.out, 'blend.json'), 'w') as f:
        rule = 'max video validation mean s.t. held-out mean and astronaut-128 PSNR >= alpha 0' + (f' - {slack:g} dB for astronaut-128' if slack else '')
        json.dump({'rule': rule, 'sampleSlack': slack, 'rows': rows,
                   'chosen': best['name'], 'torch': torch.__version__,
                   'device': torch.cuda.get_device_name(0) if dev == 'cuda' else 'cpu'}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
