#!/usr/bin/env python3
"""Where a training step's time goes, and which settings make it shorter: a probe to run before changing the recipe.

The fine-tuning calls (run-h200-finetune.sh) are bounded by the clock: every millisecond a step saves is more steps in
the same call. This times, on the recipe's own batches (train.py's args, the four 128x128 batch shapes of
--lengths 9,17,25,33 at --frame-budget 96, video.py's clips with --fast-frac 0.45 and --old-frac 0.4):

  data      make_train_batch alone (the clips are made on the device: small kernels and numpy draws)
  step      train_step alone on batches made beforehand (the model's forward, backward, clip and AdamW)
  loop      both, as train.py's loop runs them (no synchronisation between steps)
  cl3d      loop with the model and each batch in torch.channels_last_3d
  bench     loop with cudnn.benchmark on (its algorithm search per batch shape timed apart: `searchSeconds`)
  compile   loop with the model's encode and decode through torch.compile where this PyTorch has it (compile time
            timed apart)
  graphs    the same with mode='reduce-overhead': CUDA graphs per batch shape, for a step bound by
            kernel launches (a small model: many short kernels)

Each variant runs --seconds seconds after --warm steps per batch shape; ms per step is the mean over whole cycles of
the four shapes. The weights move (lr 1e-6) but nothing is saved. Writes one JSON line per variant to --out.

  python3 models/train/probe_speed.py --library .models-data/photos --init models --out /tmp/probe-speed.jsonl
  (this machine, no GPU: add --size 32 --frame-budget 8 --seconds 3 --warm 1 --variants data,step,loop for a check)
"""
import argparse
import contextlib
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train as T  # noqa: E402
from video import load_library  # noqa: E402
from data import load_photos  # noqa: E402

VARIANTS = ['data', 'step', 'loop', 'cl3d', 'bench', 'compile', 'graphs']


def probe_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--library', required=True, help="prep_photos.py's folder (.models-data/photos)")
    p.add_argument('--init', default='models', help='the weights to start from (an export folder)')
    p.add_argument('--size', type=int, default=128)
    p.add_argument('--lengths', default='9,17,25,33')
    p.add_argument('--frame-budget', type=int, default=96)
    p.add_argument('--seconds', type=float, default=12, help='timed seconds per variant')
    p.add_argument('--warm', type=int, default=2, help='untimed steps per batch shape before each variant')
    # default: the variants train.py can take as they are (compile / graphs compile for minutes: ask for them by name)
    p.add_argument('--variants', default='data,step,loop,cl3d,bench')
    p.add_argument('--out', required=True)
    return p.parse_args()


def sync(dev):
    if dev == 'cuda':
        torch.cuda.synchronize()


def main():
    q = probe_args()
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    # train.py's own arguments, as run-h200-finetune.sh passes them (the ones that shape a step)
    sys.argv = ['train.py', '--out', '/tmp/probe-speed-out', '--init', q.init, '--library', q.library, '--size', str(q.size),
                '--lengths', q.lengths, '--frame-budget', str(q.frame_budget), '--old-frac', '0.4', '--fast-frac', '0.45',
                '--photo-frac', '0.5', '--mse', '2', '--edge', '0.5', '--cudnn-benchmark', '0']
    a = T.args()
    torch.backends.cudnn.benchmark = False
    quiet = lambda *x: None  # noqa: E731
    photos = load_photos(dev, quiet)
    lib = load_library(a.library, dev, photos, quiet)
    shapes = [T.shape_at(a, i) for i in range(len(a.lengths.split(',')))]
    head = {'device': torch.cuda.get_device_name(0) if dev == 'cuda' else 'cpu', 'torch': torch.__version__,
            'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), 'shapes': shapes, 'size': a.size}
    print(json.dumps(head), flush=True)
    out = open(q.out, 'w')

    def record(row):
        row = {**head, **row}
        out.write(json.dumps(row) + '\n')
        out.flush()
        print(json.dumps({k: v for k, v in row.items() if k not in head}), flush=True)

    key = [0]

    def batch(i):
        nb, nf = shapes[i % len(shapes)]
        key[0] += 1
        return T.make_train_batch(a, lib, photos, a.seed + 31337, key[0], nb, nf, dev)

    def timed(fn, warm_fn=None):
        """Runs fn(i) for whole cycles of the batch shapes until --seconds pass; ms per step (mean) and steps."""
        for i in range(q.warm * len(shapes)):
            (warm_fn or fn)(i)
        sync(dev)
        t, n = time.time(), 0
        while True:
            for i in range(len(shapes)):
                fn(i)
            n += len(shapes)
            sync(dev)
            if time.time() - t >= q.seconds:
                break
        return {'msPerStep': round((time.time() - t) / n * 1000, 2), 'steps': n}

    for v in q.variants.split(','):
        if v not in VARIANTS:
            raise SystemExit(f'probe_speed: unknown variant {v!r} (known: {", ".join(VARIANTS)})')
        torch.backends.cudnn.benchmark = v == 'bench'
        try:
            m, opt = T.new_model(a, dev)
            extra = {}
            fmt = torch.channels_last_3d if v == 'cl3d' else None
            if fmt is not None:  # the 5-D weights (the conv3d kernels); the optimiser holds the same tensors
                with torch.no_grad():
                    for prm in m.parameters():
                        if prm.dim() == 5:
                            prm.data = prm.data.contiguous(memory_format=fmt)
            run_m = m
            if v in ('compile', 'graphs'):
                if not hasattr(torch, 'compile'):
                    record({'variant': v, 'skipped': f'torch {torch.__version__} has no torch.compile'})
                    continue
                # train_step calls m.encode and m.decode (torch.compile(m) would compile forward alone)
                kw = {'mode': 'reduce-overhead'} if v == 'graphs' else {}
                m.encode, m.decode = torch.compile(m.encode, **kw), torch.compile(m.decode, **kw)
            if v in ('bench', 'compile', 'graphs'):  # the search / compile per batch shape, timed apart from the steps
                t = time.time()
                for i in range(len(shapes)):
                    T.train_step(run_m, opt, batch(i), a, dev, 1e-6)
                sync(dev)
                extra['searchSeconds' if v == 'bench' else 'compileSeconds'] = round(time.time() - t, 1)
            if v == 'data':
                r = timed(batch)
            elif v == 'step':
                fixed = [batch(i) for i in range(len(shapes))]
                r = timed(lambda i: T.train_step(run_m, opt, fixed[i % len(shapes)], a, dev, 1e-6))
            else:
                def one(i):
                    x = batch(i)
                    if fmt is not None:
                        x = x.contiguous(memory_format=fmt)
                    T.train_step(run_m, opt, x, a, dev, 1e-6)
                r = timed(one)
            record({'variant': v, **r, **extra})
            del m, opt, run_m
            if dev == 'cuda':
                torch.cuda.empty_cache()
        except Exception as e:  # one variant failing (an old PyTorch, a compile error) leaves the others
            record({'variant': v, 'error': f'{type(e).__name__}: {str(e)[:300]}'})
    out.close()


if __name__ == '__main__':
    with contextlib.suppress(KeyboardInterrupt):
        main()
