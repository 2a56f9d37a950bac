#!/usr/bin/env python3
"""Train the project's default model: a Wan2.1-architecture VAE at base width 32, and export it.

One run, in order, each stage guarded (a failure still writes what was made, and report.json says why):
  (a) golden: this decoder against the float64 decodes of the official code (../shared/golden), max |err| < 1e-5
  (b) smoke: a few training steps (finite loss) and a full export into a scratch folder (times the export)
  (c) training: seeded data and init, bf16 autocast, AdamW, warmup + cosine; stops on its own wall clock
      (--train-seconds, --deadline) or after --steps; a checkpoint every --ckpt-every seconds (--resume PATH);
      optionally --moment-steps at learning rate 0 first (AdamW's moments filled, the weights checked unchanged)
      and the held-out figures at the steps of --val-at
  (d) export into --out: f16 decoder (official keys), f16 encoder, samples (latents .npy, uint8 source clip,
      PyTorch decode), training.json (loss curve, held-out PSNR)

Run: python3 models/train/train.py --out OUTDIR --golden ../shared/golden/wan21-tiny.safetensors ...
"""
import argparse
import contextlib
import copy
import json
import math
import os
import sys
import time
import traceback

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data import HELD_OUT_PHOTO, HELD_OUT_STREAM, load_photos, make_batch, make_clip, photo_clip, quantize, shapes_clip, _rng  # noqa: E402
from video import load_library, validation_clips, video_clip  # noqa: E402
from wan_vae import WanVAE, golden_check, latent_stats, write_safetensors  # noqa: E402

T0 = time.time()


def log(*a):
    print(f'[{time.time() - T0:7.1f}s]', *a, flush=True)


def args():
    p = argparse.ArgumentParser()
    p.add_argument('--out', required=True, help='export folder (the layout of models/)')
    p.add_argument('--work', default='/tmp/wanvae-work', help='checkpoints and the smoke export')
    p.add_argument('--golden', nargs='*', default=[])
    p.add_argument('--seed', type=int, default=12)
    p.add_argument('--dim', type=int, default=32)
    p.add_argument('--enc-dim', type=int, default=32)
    p.add_argument('--enc-res-blocks', type=int, default=1)
    p.add_argument('--batch', type=int, default=32, help='clips per step when --lengths has one value')
    p.add_argument('--frames', type=int, default=9)
    p.add_argument('--lengths', default='', help='clip lengths cycled step by step, e.g. 9,17,25,33 (overrides --frames); '
                   'clips per step = round(--frame-budget / length)')
    p.add_argument('--frame-budget', type=int, default=288)
    p.add_argument('--data-offset', type=int, default=0, help='training clip keys are (seed, data-offset + step)')
    p.add_argument('--init', default='', help='folder with INIT-NAME-decoder/encoder.safetensors to start from (an export, '
                   'or widen.py\'s float32 start); the architecture is read from its tensors (--dim, --enc-dim, '
                   '--enc-res-blocks are then not used)')
    p.add_argument('--init-name', default='', help="the name of --init's files (default: --name)")
    p.add_argument('--freeze-encoder', type=int, default=0, help='1: train the decoder alone (encoder and conv1 fixed): '
                   'the latents of every clip stay those of --init\'s encoder, so latents made with it stay valid')
    p.add_argument('--size', type=int, default=64)
    p.add_argument('--lr', type=float, default=8e-4)
    p.add_argument('--warmup', type=int, default=100)
    p.add_argument('--kl', type=float, default=1e-5)
    p.add_argument('--mse', type=float, default=1.0, help='weight of the MSE term (loss = L1 + mse * MSE + kl * KL)')
    p.add_argument('--photo-frac', type=float, default=0.75, help='share of training clips over photographs '
                   '(the rest: procedural scenes)')
    p.add_argument('--train-seconds', type=float, default=360)
    p.add_argument('--deadline', type=float, default=540, help='seconds after start by which the export must be done')
    p.add_argument('--steps', type=int, default=0, help='a fixed number of steps (0: as many as the clock allows)')
    p.add_argument('--stop-step', type=int, default=0, help='stop at this step while the schedule runs over --steps '
                   '(reproduces a run its wall clock stopped early)')
    p.add_argument('--resume', default='')
    p.add_argument('--ckpt-every', type=float, default=60)
    p.add_argument('--snapshot', default='', help='folder: every --ckpt-every seconds the f16 decoder/encoder and '
                   'progress.json are written there (a run cut short still leaves usable weights)')
    p.add_argument('--smoke-steps', type=int, default=20)
    p.add_argument('--val-clips', type=int, default=24)
    p.add_argument('--name', default='wan21-d32')
    p.add_argument('--library', default='', help="prep_photos.py's folder: train on video.py's clips over its "
                   'photographs (and scikit-image\'s), mixed with data.py\'s clips (--old-frac)')
    p.add_argument('--old-frac', type=float, default=0.15, help="with --library: share of clips from data.py's generator")
    p.add_argument('--edge', type=float, default=0.0, help='weight of the edge term: L1 of the difference of the '
                   'horizontal and vertical pixel gradients')
    p.add_argument('--probe', default='', help='LR:EDGE,LR:EDGE,...: before training, each setting trains '
                   '--probe-seconds from the same start and is scored on the validation split (video.py, '
                   'photographs never trained on); the best sets --lr and --edge')
    p.add_argument('--probe-seconds', type=float, default=25)
    p.add_argument('--video-val-clips', type=int, default=12)
    p.add_argument('--ema', type=float, default=0.0, help='decay of an exponential moving average of the weights '
                   '(updated every step from the start weights); exported as well into OUT/ema (weights only)')
    p.add_argument('--cudnn-benchmark', type=int, default=1, help="0: cuDNN's heuristics instead of its timed "
                   'algorithm search (which took 74 s for the four 128x128 batch shapes)')
    p.add_argument('--moment-steps', type=int, default=0, help="steps at learning rate 0 (weight decay 0) before the "
                   "schedule: they only fill AdamW's moment estimates (exp_avg, exp_avg_sq) from training batches of "
                   'their own keys; the weights are checked bit for bit unchanged. With --smoke-steps the smoke runs '
                   'twice: a fresh optimiser, then one filled first (the held-out figures of both in the report)')
    p.add_argument('--val-at', default='', help='steps (e.g. 0,50,100,250,500) at which the held-out validation and '
                   "video.py's validation split are scored during training (f16-rounded weights, float32, no TF32)")
    p.add_argument('--val-ema', type=int, default=0, help='1: at the --val-at steps the moving average (--ema) is scored too')
    p.add_argument('--schedule', default='cosine', choices=['cosine', 'wsd'], help='cosine: linear warmup, cosine to '
                   '5 %% of the peak over the run; wsd: linear warmup, the peak held, then a cosine to 5 %% over the last '
                   '--decay-frac of the steps')
    p.add_argument('--decay-frac', type=float, default=0.3, help='with --schedule wsd: the share of the steps that decays')
    p.add_argument('--fast-frac', type=float, default=0.0, help="with --library: share of video.py's clips that are its "
                   "'fast' pans (4-12 px / frame, inside the photograph; video.kinds_for); 0 keeps video.py's kinds")
    return p.parse_args()


# The shipped samples. Keys use the held-out stream: no sample clip was seen in training; chelsea never was.
SAMPLES = [
    dict(name='astronaut-128', title='Astronaut portrait, pan and zoom', photo='astronaut', motion='pan+zoom',
         frames=9, size=(128, 128), scale=2.0, ref=True, default=True),
    dict(name='rocket-64', title='Rocket launch, small pan (the test sample)', photo='rocket', motion='pan',
         frames=5, size=(64, 64), scale=2.0, ref=True),
    dict(name='chelsea-256', title='Chelsea the cat, pan and rotation (photograph never seen in training)',
         photo='chelsea', motion='pan+rotate', frames=17, size=(256, 256), scale=0.75),
    dict(name='shapes-256', title='Procedural scene: shapes moving over a moving gradient', photo=None,
         frames=17, size=(256, 256)),
    dict(name='coffee-480x832', title='Coffee cup, slow pan at 480x832', photo='coffee', motion='pan',
         frames=5, size=(480, 832), scale=0.68),
]


def lr_at(step, total, peak, warm, schedule='cosine', decay_frac=0.3):
    """The learning rate of `step` of `total`: linear warmup over `warm` steps, then cosine: a cosine to 5 % of the
    peak at `total`; wsd (warmup, stable, decay): the peak until (1 - decay_frac) x total, then a cosine to 5 %."""
    if step < warm:
        return peak * (step + 1) / warm
    if schedule == 'wsd':
        start = max(warm, int(round((1 - decay_frac) * total)))
        if step < start:
            return peak
        p = min(1.0, (step - start) / max(1, total - start))
    else:
        p = min(1.0, (step - warm) / max(1, total - warm))
    return peak * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * p)))


def shape_at(a, step):
    """(clips, frames) of the batch of `step`."""
    if not a.lengths:
        return a.batch, a.frames
    ls = [int(v) for v in a.lengths.split(',')]
    f = ls[step % len(ls)]
    return max(1, round(a.frame_budget / f)), f


def new_model(a, dev):
    torch.manual_seed(a.seed)
    if a.init:
        from wan_vae import model_from_state, read_safetensors
        sd = {}
        for part in ('decoder', 'encoder'):
            t, _ = read_safetensors(os.path.join(a.init, f'{a.init_name or a.name}-{part}.safetensors'))
            sd.update(t)
        m = model_from_state(sd).to(dev)
    else:
        m = WanVAE(dim=a.dim, z_dim=16, enc_dim=a.enc_dim, enc_res_blocks=a.enc_res_blocks).to(dev)
        with torch.no_grad():
            m.conv1.bias[16:] = -8.0  # start with small posterior noise (log-variance -8)
    if a.freeze_encoder:
        for n, p in m.named_parameters():
            if n.startswith(('encoder.', 'conv1.')):
                p.requires_grad_(False)
    opt = torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=a.lr, betas=(0.9, 0.99), weight_decay=0.0,
                            **({'fused': True} if dev == 'cuda' else {}))  # (older CPU builds have no `fused`)
    return m, opt


def train_step(m, opt, x, a, dev, lr):
    for g in opt.param_groups:
        g['lr'] = lr
    with (torch.autocast('cuda', dtype=torch.bfloat16) if dev == 'cuda' else contextlib.nullcontext()):
        mu, logvar = m.encode(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        y = m.decode(z)
    d = y.float() - x
    mu, logvar = mu.float(), logvar.float()
    l1 = d.abs().mean()
    l2 = (d * d).mean()
    kl = 0.5 * (mu * mu + logvar.exp() - 1 - logvar).mean()
    loss = l1 + a.mse * l2 + a.kl * kl
    if a.edge:  # [B, 3, F, H, W]: gradients along W and H
        loss = loss + a.edge * ((d[..., :, 1:] - d[..., :, :-1]).abs().mean() + (d[..., 1:, :] - d[..., :-1, :]).abs().mean())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    opt.step()
    return torch.stack([loss.detach(), l1.detach(), l2.detach(), kl.detach(), gn.detach()])


def checksum(m):
    """(sum, sum of squares) of every parameter in float64: a fingerprint of the weights."""
    with torch.no_grad():
        ps = [p.detach().double() for p in m.parameters()]
        return float(sum(p.sum() for p in ps)), float(sum((p * p).sum() for p in ps))


def fill_moments(m, opt, a, lib, photos, dev, n):
    """n steps at learning rate 0 and weight decay 0: AdamW's exp_avg / exp_avg_sq take the (clipped) gradients of
    n training batches of keys (seed + 4444, i) that no training step uses, and its step count advances with them
    (so the bias correction weighs them as the n steps they are); the weights must not move (checked bit for bit).
    The random generator is restored afterwards: the training that follows draws the noise it would draw without.
    Returns the record: seconds, losses, checksums, and the mean |m_hat| / (sqrt(v_hat) + eps), the size in units
    of the learning rate of the first update to come (a fresh optimiser's first update: 1 for every weight)."""
    for g in opt.param_groups:
        if g['weight_decay'] != 0:
            raise RuntimeError(f"moment warm-up needs weight decay 0 (got {g['weight_decay']}): AdamW's decay would move the weights at any lr")
    gen = torch.cuda.get_rng_state() if dev == 'cuda' else torch.get_rng_state()
    before = [p.detach().clone() for p in m.parameters()]
    ck0 = checksum(m)
    t, losses = time.time(), []
    for i in range(n):
        nb, nf = shape_at(a, i)
        x = make_train_batch(a, lib, photos, a.seed + 4444, i, nb, nf, dev)
        losses.append(train_step(m, opt, x, a, dev, 0.0))
    if dev == 'cuda':
        torch.cuda.synchronize()
        torch.cuda.set_rng_state(gen)
    else:
        torch.set_rng_state(gen)
    secs = time.time() - t
    ck1 = checksum(m)
    moved = sum(int((b != p.detach()).sum()) for b, p in zip(before, m.parameters()))
    if moved or ck0 != ck1:
        raise RuntimeError(f'moment warm-up moved {moved} weights (checksum {ck0} -> {ck1})')
    b1, b2 = opt.param_groups[0]['betas']
    eps = opt.param_groups[0]['eps']
    num, cnt = 0.0, 0
    with torch.no_grad():
        for p in m.parameters():
            if p not in opt.state:  # frozen (--freeze-encoder)
                continue
            st = opt.state[p]
            k = float(st['step'])
            r = (st['exp_avg'] / (1 - b1 ** k)) / ((st['exp_avg_sq'] / (1 - b2 ** k)).sqrt() + eps)
            num += float(r.abs().double().sum())
            cnt += r.numel()
    losses = torch.stack(losses).cpu().numpy() if losses else np.zeros((0, 5))
    rec = {'steps': n, 'seconds': round(secs, 1), 'loss': [round(float(v), 5) for v in losses[:, 0]],
           'checksumBefore': list(ck0), 'checksumAfter': list(ck1), 'weightsMoved': moved,
           'meanFirstUpdateOverLr': round(num / max(1, cnt), 4), 'adamStep': n}
    log(f"moment warm-up: {n} steps at lr 0 in {secs:.1f} s, loss {rec['loss'][0] if n else 0:.4f} .. {rec['loss'][-1] if n else 0:.4f}; "
        f"weights unchanged (checksum sum {ck0[0]:.17g} / sum of squares {ck0[1]:.17g} before and after, 0 of "
        f"{sum(p.numel() for p in m.parameters())} moved); first update {rec['meanFirstUpdateOverLr']:.3f} x lr per weight on average (fresh: 1)")
    return rec


def ema_model(m, ema):
    """A copy of m holding the moving-average weights."""
    em = copy.deepcopy(m)
    with torch.no_grad():
        for p_, e_ in zip(em.parameters(), ema):
            p_.copy_(e_)
    return em


def quick_eval(m, a, photos, lib, dev):
    """The held-out validation and video.py's validation split of m's f16-rounded weights (float32, no TF32), as export scores them."""
    ev = copy.deepcopy(m).float().eval()
    ev.load_state_dict({k: v.detach().half().float() for k, v in m.state_dict().items()})
    tf32 = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        rep = {'validation': validate(ev, photos, a, dev, a.val_clips),
               'videoValidation': validate_video(ev, lib, a, dev, a.video_val_clips) if lib else None}
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32
    del ev
    return validation_means(rep)


def validation_means(rep):
    """The means of an export's report (validation, videoValidation): held-out table, its parts, the validation split."""
    v, vv = rep.get('validation') or {}, rep.get('videoValidation') or {}
    return {'heldOut': (v.get('heldOutClips') or {}).get('mean'), 'heldOutPhotos': (v.get('heldOutClipsPhotos') or {}).get('mean'),
            'heldOutShapes': (v.get('heldOutClipsShapes') or {}).get('mean'), 'unseenPhoto': (v.get('heldOutPhoto') or {}).get('mean'),
            'videoVal': vv.get('mean'), 'videoValKinds': vv.get('perKind')}


def make_train_batch(a, lib, photos, seed, step, nb, nf, dev):
    """[nb, 3, nf, S, S]: data.py's clips alone, or with --library video.py's clips and a share --old-frac of
    data.py's (each clip's choice a function of its key)."""
    if not lib:
        return make_batch(seed, step, nb, photos, nf, a.size, dev, a.photo_frac)
    clips = []
    for i in range(nb):
        if _rng(seed, step, i, 7).uniform() < a.old_frac:
            clips.append(make_clip((seed, step, i), photos, nf, a.size, dev, photo_frac=a.photo_frac)[0])
        else:
            clips.append(video_clip((seed, step, i), lib, nf, a.size, dev, fast=a.fast_frac)[0])
    return torch.stack(clips, 0)


def validate_video(ev, lib, a, dev, n):
    """PSNR of video.py's validation clips (17 frames, 128x128, photographs never trained on), overall and per kind."""
    rows = []
    for clip, desc in validation_clips(lib, a.seed, n, 17, 128, dev):
        _, xq, _, y = roundtrip(ev, clip, dev)
        rows.append({'kind': desc, 'psnr': round(psnr(y, xq)[0], 3)})
    v = [r['psnr'] for r in rows]
    kinds = {}
    for r in rows:
        kinds.setdefault(r['kind'].split('+')[0], []).append(r['psnr'])
    return {'n': len(v), 'mean': round(float(np.mean(v)), 3), 'min': round(float(np.min(v)), 3),
            'perKind': {k: round(float(np.mean(x)), 3) for k, x in sorted(kinds.items())}, 'rows': rows}


def run_probe(a, photos, lib, dev, report):
    """Each LR:EDGE setting of --probe trains --probe-seconds from the same start (same data keys), then is scored
    by validate_video; returns the best (lr, edge) by mean validation PSNR."""
    res = []
    ev0, _ = new_model(a, dev)
    base = validate_video(ev0.eval(), lib, a, dev, a.video_val_clips)
    log(f"probe: the start model scores {base['mean']:.2f} dB on the validation split {base['perKind']}")
    del ev0
    for item in a.probe.split(','):
        lr, edge = (float(v) for v in item.split(':'))
        b = argparse.Namespace(**{**vars(a), 'lr': lr, 'edge': edge})
        m, opt = new_model(b, dev)
        t, step = time.time(), 0
        while time.time() - t < a.probe_seconds:
            nb, nf = shape_at(b, step)
            x = make_train_batch(b, lib, photos, a.seed + 555, step, nb, nf, dev)
            train_step(m, opt, x, b, dev, lr * min(1.0, (step + 1) / 20))
            step += 1
        m.eval()
        v = validate_video(m, lib, a, dev, a.video_val_clips)
        res.append({'lr': lr, 'edge': edge, 'steps': step, 'valPsnr': v['mean'], 'perKind': v['perKind']})
        log(f"probe lr {lr:.1e} edge {edge}: {step} steps, validation {v['mean']:.2f} dB {v['perKind']}")
        del m, opt
    best = max(res, key=lambda r: r['valPsnr'])
    report['probe'] = {'start': {'valPsnr': base['mean'], 'perKind': base['perKind']}, 'settings': res,
                       'chosen': {'lr': best['lr'], 'edge': best['edge']}, 'seconds': a.probe_seconds}
    return best['lr'], best['edge']


def save_ckpt(path, m, opt, step, total, a):
    tmp = path + '.tmp'
    torch.save({'model': m.state_dict(), 'opt': opt.state_dict(), 'step': step, 'total': total,
                'cuda_rng': torch.cuda.get_rng_state() if torch.cuda.is_available() else None,
                'args': vars(a)}, tmp)
    os.replace(tmp, path)


def write_weights(m, a, outdir, extra=None):
    """The f16 decoder (official keys) and encoder of m into outdir, each written to a temp name then renamed."""
    os.makedirs(outdir, exist_ok=True)
    sd = {k: v.detach().float().cpu() for k, v in m.state_dict().items()}
    from wan_vae import decoder_dims, encoder_shape
    enc_dim, enc_rb = encoder_shape(sd)
    dims = decoder_dims(sd)
    meta = {'format': 'wan-vae-webgpu trained default', 'architecture': 'Wan2.1 VAE (vae.py)', 'dim': dims[-1],
            'decoder_dims': ','.join(map(str, dims)), 'z_dim': 16, 'encoder_dim': enc_dim, 'encoder_res_blocks': enc_rb, 'seed': a.seed,
            'latents': 'normalised with the official Wan2.1 mean/std: decoder input = latents * std + mean'}
    meta.update(extra or {})
    dec = {k: v.half().numpy() for k, v in sd.items() if k.startswith('conv2.') or k.startswith('decoder.')}
    enc = {k: v.half().numpy() for k, v in sd.items() if k.startswith('encoder.') or k.startswith('conv1.')}
    for part, t in (('decoder', dec), ('encoder', enc)):
        path = os.path.join(outdir, f'{a.name}-{part}.safetensors')
        write_safetensors(path + '.tmp', t, meta)
        os.replace(path + '.tmp', path)
    return dec, enc


def psnr(y, x):
    mse = float(((y.clamp(-1, 1).double() - x.double()) ** 2).mean())
    return 10 * math.log10(4.0 / max(mse, 1e-20)), mse


def roundtrip(ev, clip, dev, ref64=None):
    """uint8 source, normalised latents, and the decode of those latents as the project's decoder sees them."""
    u8, xq = quantize(clip)
    mean, std = latent_stats(dev)
    with torch.no_grad():
        mu, _ = ev.encode(xq[None])
        lat = ((mu - mean) / std)[0].float().contiguous()
        zin = lat[None] * std + mean  # float32, as `latents * std + mean` in the TypeScript decoder
        if ref64 is not None:
            y = ref64.decode(zin.double()).float()
        else:
            y = ev.decode(zin)
        y = y[0].clamp(-1, 1)
    return u8, xq, lat, y


def validate(ev, photos, a, dev, n):
    """PSNR (dB, over [-1, 1]) of held-out clips (17 frames, 128x128) and of the held-out photograph."""
    res = {'clips': [], 'photo': []}
    for i in range(n):
        clip, name = make_clip((a.seed, HELD_OUT_STREAM + i), photos, 17, 128, dev)
        _, xq, _, y = roundtrip(ev, clip, dev)
        res['clips'].append({'source': name, 'psnr': round(psnr(y, xq)[0], 3)})
    if HELD_OUT_PHOTO in photos:
        for i in range(max(2, n // 3)):
            rng = _rng(a.seed, HELD_OUT_STREAM + 500 + i)
            clip = photo_clip(rng, photos, HELD_OUT_PHOTO, 17, 128, dev)
            _, xq, _, y = roundtrip(ev, clip, dev)
            res['photo'].append({'source': HELD_OUT_PHOTO, 'psnr': round(psnr(y, xq)[0], 3)})

    def summ(rows):
        if not rows:
            return None
        v = [r['psnr'] for r in rows]
        return {'n': len(v), 'mean': round(float(np.mean(v)), 3), 'min': round(float(np.min(v)), 3),
                'max': round(float(np.max(v)), 3)}
    out = {'heldOutClips': summ(res['clips']),
           'heldOutClipsPhotos': summ([r for r in res['clips'] if r['source'] != 'shapes']),
           'heldOutClipsShapes': summ([r for r in res['clips'] if r['source'] == 'shapes']),
           'heldOutPhoto': summ(res['photo']), 'heldOutPhotoName': HELD_OUT_PHOTO, 'rows': res,
           'clipFrames': 17, 'clipSize': [128, 128]}
    return out


def export(m, a, photos, outdir, dev, report, val_clips, lib=None):
    """Weights (f16), samples, PyTorch decodes and validation into outdir. Returns the samples list."""
    os.makedirs(os.path.join(outdir, 'samples'), exist_ok=True)
    sd = {k: v.detach().float().cpu() for k, v in m.state_dict().items()}
    dec, enc = write_weights(m, a, outdir)
    log(f'export: decoder {sum(v.size for v in dec.values())} params, encoder {sum(v.size for v in enc.values())} params')
    # what ships: the f16-rounded weights, evaluated in float32 without TF32, references in float64
    ev = copy.deepcopy(m).float().eval()
    ev.load_state_dict({k: v.half().float() for k, v in sd.items()})
    ref64 = copy.deepcopy(ev).double()
    tf32 = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    samples = []
    try:
        for idx, s in enumerate(SAMPLES):
            try:
                t = time.time()
                rng = _rng(a.seed, HELD_OUT_STREAM + 100 + idx)
                if s['photo'] is None:
                    clip = shapes_clip(rng, s['frames'], s['size'], dev)
                elif s['photo'] in photos:
                    clip = photo_clip(rng, photos, s['photo'], s['frames'], s['size'], dev, motion=s.get('motion'),
                                      scale=s.get('scale'))
                else:
                    log(f"sample {s['name']}: photo {s['photo']} unavailable, skipped")
                    continue
                u8, xq, lat, y = roundtrip(ev, clip, dev, ref64 if s.get('ref') else None)
                p, mse = psnr(y, xq)
                base = os.path.join(outdir, 'samples', s['name'])
                np.save(base + '.latents.npy', lat.cpu().numpy().astype(np.float32))
                np.save(base + '.source.npy', u8.cpu().numpy())
                files = {'latents': f"{s['name']}.latents.npy", 'source': f"{s['name']}.source.npy"}
                if s.get('ref'):
                    np.save(base + '.torch.npy', y.cpu().numpy().astype(np.float32))
                    files['torch'] = f"{s['name']}.torch.npy"
                row = {'name': s['name'], 'title': s['title'], 'photo': s['photo'] or 'procedural',
                       'heldOut': 'photograph' if s['photo'] == HELD_OUT_PHOTO else 'clip',
                       'frames': s['frames'], 'height': s['size'][0], 'width': s['size'][1],
                       'latentShape': list(lat.shape), 'files': files,
                       'psnrTorch': round(p, 3), 'torchDecode': 'float64' if s.get('ref') else 'float32',
                       'default': bool(s.get('default'))}
                samples.append(row)
                log(f"sample {s['name']}: latents {list(lat.shape)}, PSNR vs source {p:.2f} dB ({time.time() - t:.1f} s)")
            except Exception:
                report.setdefault('errors', []).append(f"sample {s['name']}: {traceback.format_exc()[-800:]}")
                log(f"sample {s['name']} FAILED:\n{traceback.format_exc()}")
        with open(os.path.join(outdir, 'samples', 'samples.json'), 'w') as f:
            json.dump({'latentStats': 'official Wan2.1', 'sourceEncoding': 'uint8 [3, F, H, W], x = u8 / 127.5 - 1',
                       'samples': samples}, f, indent=1)
        if val_clips:
            t = time.time()
            report['validation'] = validate(ev, photos, a, dev, val_clips)
            v = report['validation']
            log(f"validation ({time.time() - t:.1f} s): held-out clips {v['heldOutClips']}, held-out photo {v['heldOutPhoto']}")
        if lib:
            t = time.time()
            report['videoValidation'] = validate_video(ev, lib, a, dev, a.video_val_clips)
            v = report['videoValidation']
            log(f"video validation ({time.time() - t:.1f} s): {v['mean']:.2f} dB (min {v['min']:.2f}) {v['perKind']}")
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32
    return samples


def main():
    a = args()
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    report = {'args': vars(a), 'torch': torch.__version__, 'device': torch.cuda.get_device_name(0) if dev == 'cuda' else 'cpu',
              'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), 'stages': {}}

    def write_report():
        with open(os.path.join(a.out, 'training.json'), 'w') as f:
            json.dump(report, f, indent=1)

    torch.backends.cudnn.benchmark = bool(a.cudnn_benchmark)
    # (a) golden
    report['golden'] = []
    for g in a.golden:
        try:
            err, shape, case = golden_check(g, 'cpu')
            report['golden'].append({'file': os.path.basename(g), 'case': case, 'shape': shape, 'maxAbsErr': err, 'ok': err < 1e-5})
            log(f'golden {os.path.basename(g)}: video {shape}, max |err| {err:.3e} (float64, whole-sequence form)')
        except Exception:
            report['golden'].append({'file': os.path.basename(g), 'error': traceback.format_exc()[-1500:]})
            log(f'golden {g} FAILED:\n{traceback.format_exc()}')
    report['stages']['golden'] = all(r.get('ok') for r in report['golden']) if report['golden'] else 'skipped'
    write_report()
    if report['stages']['golden'] is False:
        log('golden check failed: stopping before training')
        return 3

    photos = load_photos(dev, log)
    report['photos'] = {n: list(p[0].shape) for n, p in photos.items()}
    log(f'photos: {len(photos)} ({", ".join(photos)}); held out: {HELD_OUT_PHOTO}')
    lib = load_library(a.library, dev, photos, log) if a.library else None
    if lib:
        report['library'] = {'train': sorted(lib['train']), 'val': sorted(lib['val'])}

    # (b) smoke
    try:
        t = time.time()
        m, opt = new_model(a, dev)
        nparams = sum(p.numel() for p in m.parameters())
        losses = []
        for step in range(a.smoke_steps):
            nb, nf = shape_at(a, step)
            x = make_train_batch(a, lib, photos, a.seed + 7777, step, nb, nf, dev)
            losses.append(train_step(m, opt, x, a, dev, lr_at(step, a.smoke_steps, a.lr, 5)))
        losses = torch.stack(losses).cpu().numpy()
        if not np.isfinite(losses).all():
            raise RuntimeError(f'non-finite smoke losses: {losses[:, 0]}')
        t_smoke = time.time() - t
        log(f'smoke: {a.smoke_steps} steps in {t_smoke:.1f} s, loss {losses[0, 0]:.4f} -> {losses[-1, 0]:.4f}; {nparams} params')
        t = time.time()
        dry = {}
        export(m, a, photos, os.path.join(a.work, 'dry'), dev, dry, val_clips=a.val_clips, lib=lib)
        t_export = time.time() - t
        if dry.get('errors'):
            raise RuntimeError('smoke export: ' + ' | '.join(dry['errors']))
        if dev == 'cuda':
            log(f'peak GPU memory so far: {torch.cuda.max_memory_allocated() / 2 ** 30:.1f} GiB')
        log(f'smoke export + validation: {t_export:.1f} s')
        report['stages']['smoke'] = {'ok': True, 'seconds': round(t_smoke, 1), 'loss': [float(losses[0, 0]), float(losses[-1, 0])],
                                     'exportSeconds': round(t_export, 1), 'params': nparams, 'validation': validation_means(dry)}
        del m, opt
        if a.moment_steps and a.smoke_steps:
            # the same smoke steps (keys, learning rates, noise) from an optimiser whose moments were filled first
            t = time.time()
            m, opt = new_model(a, dev)
            rec = fill_moments(m, opt, a, lib, photos, dev, a.moment_steps)
            losses = []
            for step in range(a.smoke_steps):
                nb, nf = shape_at(a, step)
                x = make_train_batch(a, lib, photos, a.seed + 7777, step, nb, nf, dev)
                losses.append(train_step(m, opt, x, a, dev, lr_at(step, a.smoke_steps, a.lr, 5)))
            losses = torch.stack(losses).cpu().numpy()
            dry2 = {}
            export(m, a, photos, os.path.join(a.work, 'dry-moments'), dev, dry2, val_clips=a.val_clips, lib=lib)
            report['stages']['smokeMoments'] = {'ok': not dry2.get('errors'), 'seconds': round(time.time() - t, 1), 'moments': rec,
                                                'loss': [float(losses[0, 0]), float(losses[-1, 0])], 'validation': validation_means(dry2)}
            log(f"smoke after the moment warm-up: {a.smoke_steps} steps, held-out {report['stages']['smokeMoments']['validation']['heldOut']} dB "
                f"(fresh optimiser: {report['stages']['smoke']['validation']['heldOut']} dB), {time.time() - t:.1f} s")
            del m, opt
    except Exception:
        report['stages']['smoke'] = {'ok': False, 'error': traceback.format_exc()[-2500:]}
        log(f'smoke FAILED:\n{traceback.format_exc()}')
        write_report()
        return 4
    write_report()

    # (b2) probe: the learning rate and edge weight chosen on the validation split
    if a.probe and lib and not a.resume:
        try:
            a.lr, a.edge = run_probe(a, photos, lib, dev, report)
            log(f'probe chose lr {a.lr:.1e}, edge {a.edge}')
        except Exception:
            report['probe'] = {'error': traceback.format_exc()[-2500:]}
            log(f'probe FAILED (training keeps --lr {a.lr}, --edge {a.edge}):\n{traceback.format_exc()}')
        write_report()

    # (c) training
    m, opt = new_model(a, dev)
    step, total = 0, (a.steps or None)
    if a.resume:
        ck = torch.load(a.resume, map_location=dev, weights_only=False)
        m.load_state_dict(ck['model'])
        opt.load_state_dict(ck['opt'])
        step, total = ck['step'], (a.steps or ck['total'])
        if ck.get('cuda_rng') is not None and dev == 'cuda':
            torch.cuda.set_rng_state(ck['cuda_rng'])
        log(f'resumed from {a.resume} at step {step} of {total}')
    if a.moment_steps and not a.resume:
        report['moments'] = fill_moments(m, opt, a, lib, photos, dev, a.moment_steps)
        write_report()
    ema = [p.detach().clone() for p in m.parameters()] if a.ema else None
    val_at = sorted({int(v) for v in a.val_at.split(',') if v.strip()})
    curve = report['curve'] = []
    reserve = 1.4 * report['stages']['smoke']['exportSeconds'] + 20
    t_train = time.time()
    stop_at = min(t_train + a.train_seconds, T0 + a.deadline - reserve)
    log(f'training: batches {[shape_at(a, i) for i in range(4)]} (clips, frames) of {a.size}^2, init {a.init or "random"}, stop by {stop_at - T0:.0f} s (export reserve {reserve:.0f} s)')
    hist, pending = [], []
    ckpt = os.path.join(a.work, 'ckpt.pt')
    last_ckpt = time.time()
    t_mark = None
    stopped = 'steps'
    try:
        while total is None or step < total:
            if time.time() > stop_at:
                stopped = 'wall clock'
                break
            if a.stop_step and step >= a.stop_step:
                stopped = 'stop-step'
                break
            if total is None and step == 40:
                if dev == 'cuda':
                    torch.cuda.synchronize()
                t_mark = (time.time(), step)
            if total is None and t_mark and step == t_mark[1] + 30:
                if dev == 'cuda':
                    torch.cuda.synchronize()
                per = (time.time() - t_mark[0]) / 30
                # what the loop will spend besides steps: the --val-at scorings still to come (each as long as the
                # first, or 1.5 s a model) and the checkpoints (3 s each with --snapshot's f16 weights, else 1 s)
                left_s = stop_at - time.time()
                evs = sum(1 + bool(ema is not None and a.val_ema) for v in val_at if v > step)  # models to score
                extra = evs * (curve[0]['seconds'] if curve else 1.5)  # curve[0]: one model scored (at step 0 no average)
                extra += (3.0 if a.snapshot else 1.0) * int(left_s / a.ckpt_every)
                total = step + int(max(0.0, left_s - extra) / per * 0.97)
                report['plannedFrom'] = {'msPerStep': round(per * 1000, 1), 'atStep': step, 'secondsLeft': round(left_s, 1),
                                         'otherSeconds': round(extra, 1), 'total': total}
                log(f'{per * 1000:.0f} ms/step: {total} steps in all ({extra:.0f} s kept for {evs} scorings and snapshots)')
            if step in val_at:
                te = time.time()
                curve.append({'step': step, **quick_eval(m, a, photos, lib, dev)})
                msg = ''
                if ema is not None and a.val_ema and step > 0:
                    em = ema_model(m, ema)
                    curve[-1]['ema'] = quick_eval(em, a, photos, lib, dev)
                    del em
                    e = curve[-1]['ema']
                    msg = f"; average: held-out {e['heldOut']} dB (photo clips {e['heldOutPhotos']}), validation split {e.get('videoVal')} dB"
                curve[-1]['seconds'] = round(time.time() - te, 1)
                curve[-1]['lr'] = lr_at(step, total or 10 ** 9, a.lr, a.warmup, a.schedule, a.decay_frac)
                log(f"step {step}: held-out {curve[-1]['heldOut']} dB (photo clips {curve[-1]['heldOutPhotos']}, procedural "
                    f"{curve[-1]['heldOutShapes']}, chelsea {curve[-1]['unseenPhoto']}), validation split {curve[-1].get('videoVal')} dB{msg} ({curve[-1]['seconds']} s)")
            nb, nf = shape_at(a, step)
            x = make_train_batch(a, lib, photos, a.seed, a.data_offset + step, nb, nf, dev)
            lr = lr_at(step, total or 10 ** 9, a.lr, a.warmup, a.schedule, a.decay_frac)
            pending.append((step, lr, train_step(m, opt, x, a, dev, lr)))
            if ema is not None:
                with torch.no_grad():  # ema = decay * ema + (1 - decay) * weights
                    torch._foreach_mul_(ema, a.ema)
                    torch._foreach_add_(ema, [p.detach() for p in m.parameters()], alpha=1.0 - a.ema)
            step += 1
            if step % 25 == 0:
                for s_, lr_, v in pending:
                    if (s_ + 1) % 25 == 0:
                        v = v.cpu().numpy()
                        hist.append({'step': s_ + 1, 't': round(time.time() - t_train, 1), 'loss': float(v[0]), 'l1': float(v[1]),
                                     'mse': float(v[2]), 'psnr': round(10 * math.log10(4 / max(float(v[2]), 1e-12)), 3),
                                     'kl': float(v[3]), 'gradNorm': float(v[4]), 'lr': lr_})
                pending = []
                if not math.isfinite(hist[-1]['loss']):
                    raise RuntimeError(f'loss became {hist[-1]["loss"]} at step {step}')
                if step % 250 == 0:
                    h = hist[-1]
                    log(f"step {step}: loss {h['loss']:.4f} l1 {h['l1']:.4f} train PSNR {h['psnr']:.2f} kl {h['kl']:.3f} lr {h['lr']:.2e}")
            if time.time() - last_ckpt > a.ckpt_every:
                save_ckpt(ckpt, m, opt, step, total, a)
                if a.snapshot:
                    write_weights(m, a, a.snapshot, {'step': step})
                    if ema is not None:
                        em = ema_model(m, ema)
                        write_weights(em, a, os.path.join(a.snapshot, 'ema'), {'ema': a.ema, 'step': step})
                        del em
                    with open(os.path.join(a.snapshot, 'progress.json'), 'w') as f:
                        json.dump({'step': step, 'plannedSteps': total, 'seconds': round(time.time() - t_train, 1),
                                   'history': hist}, f)
                last_ckpt = time.time()
        report['stages']['train'] = {'ok': True, 'steps': step, 'plannedSteps': total, 'stoppedBy': stopped,
                                     'seconds': round(time.time() - t_train, 1)}
    except Exception:
        report['stages']['train'] = {'ok': False, 'steps': step, 'error': traceback.format_exc()[-2500:]}
        log(f'training FAILED at step {step}:\n{traceback.format_exc()}')
    report['history'] = hist
    from wan_vae import decoder_dims
    report['config'] = {'dim': a.dim, 'decoderDims': decoder_dims(m.state_dict()), 'freezeEncoder': a.freeze_encoder,
                        'initName': a.init_name, 'encDim': a.enc_dim, 'encResBlocks': a.enc_res_blocks, 'batch': a.batch,
                        'frames': a.frames, 'lengths': a.lengths, 'frameBudget': a.frame_budget, 'init': a.init, 'size': a.size, 'lr': a.lr, 'warmup': a.warmup, 'kl': a.kl, 'mse': a.mse, 'photoFrac': a.photo_frac, 'edge': a.edge, 'library': a.library, 'oldFrac': a.old_frac, 'ema': a.ema, 'cudnnBenchmark': a.cudnn_benchmark, 'momentSteps': a.moment_steps, 'fastFrac': a.fast_frac,
                        'loss': 'L1 + mse * MSE + kl * KL (per element) + edge * L1 of the gradient difference, bf16 autocast, AdamW (0.9, 0.99), grad clip 1.0',
                        'schedule': ('linear warmup, cosine to 5 % of the peak' if a.schedule == 'cosine' else
                                     f'linear warmup, the peak held, cosine to 5 % over the last {a.decay_frac:g} of the steps')}
    log(f"training: {step} steps in {time.time() - t_train:.0f} s ({stopped})")
    try:
        save_ckpt(ckpt, m, opt, step, total, a)
    except Exception:
        log(f'checkpoint failed:\n{traceback.format_exc()}')
    write_report()

    # (d) export (the moving average first: weights only)
    if ema is not None:
        try:
            em = ema_model(m, ema)
            write_weights(em, a, os.path.join(a.out, 'ema'), {'ema': a.ema, 'step': step})
            log(f'ema ({a.ema}) weights -> {os.path.join(a.out, "ema")}')
            del em
        except Exception:
            log(f'ema export FAILED:\n{traceback.format_exc()}')
    try:
        t = time.time()
        report['samples'] = export(m, a, photos, a.out, dev, report, val_clips=a.val_clips, lib=lib)
        report['stages']['export'] = {'ok': True, 'seconds': round(time.time() - t, 1)}
    except Exception:
        report['stages']['export'] = {'ok': False, 'error': traceback.format_exc()[-2500:]}
        log(f'export FAILED:\n{traceback.format_exc()}')
    report['totalSeconds'] = round(time.time() - T0, 1)
    write_report()
    log('done')
    return 0


if __name__ == '__main__':
    sys.exit(main())
