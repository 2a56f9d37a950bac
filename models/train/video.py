"""Training video that moves the way generated video moves, over the photographs of Debian's wallpaper packages
(prep_photos.py) and scikit-image's: camera pans and zooms from slow to 14 px per frame, rotations, parallax
(two photograph layers at different speeds), textured objects moving over a moving background, brightness
changes and cuts; and data.py's procedural scenes, faster. Optionally (video_clip's `fast`, train.py
--fast-frac) a share of straight pans at 4-12 px per frame that stay inside the photograph.

Every clip is a pure function of its key (seed, stream, index), as in data.py. The photographs of the evaluation
package (prep_photos.EVAL_PACKAGE, ukui-wallpapers) are never loaded here: load_library reads only the
folder's train/ images, and VAL_EVERY of them (every 12th) are kept aside as the validation split
(validation_clips), never trained on.

Clips are float32 [3, F, H, W] in [-1, 1].
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

from data import HELD_OUT_PHOTO, PHOTOS, _hw, _rng, render_views, shapes_clip

VAL_EVERY = 12  # training-folder images with index % VAL_EVERY == VAL_PHASE are the validation split
VAL_PHASE = 5
VAL_STREAM = 2_000_000
KINDS = (('camera', 0.42), ('parallax', 0.16), ('objects', 0.18), ('shapes', 0.12), ('slow', 0.12))
FAST_SPEEDS = (4.0, 12.0)  # the 'fast' kind (video_clip's `fast`): output px / frame, log-uniform


def kinds_for(fast=0.0):
    """(names, probabilities): KINDS, or with `fast` > 0 a share `fast` of 'fast' pans and KINDS scaled by 1 - fast.
    fast = 0 keeps KINDS exactly (the same draws as before the 'fast' kind existed)."""
    names, p = zip(*KINDS)
    p = np.array(p) / sum(p)
    if fast > 0:
        names, p = names + ('fast',), np.append(p * (1 - fast), fast)
    return names, p


def _pyramid(img):
    pyr = [img]
    while min(pyr[-1].shape[1:]) >= 128:
        pyr.append(F.avg_pool2d(pyr[-1][None], 2)[0])
    return pyr


def load_library(folder, device, skimage_photos=None, log=print, parts=('train', 'val')):
    """{'train': {name: pyramid}, 'val': {name: pyramid}, 'weights': {name: w}} from FOLDER/manifest.json's
    train images (JPEG, [3, H, W] in [0, 1]) plus scikit-image's photographs (data.load_photos; HELD_OUT_PHOTO
    left out). parts=('val',) reads the validation split's images alone (the others need not be there)."""
    from PIL import Image
    with open(os.path.join(folder, 'manifest.json')) as f:
        man = json.load(f)
    lib = {'train': {}, 'val': {}, 'weights': {}, 'packages': {}}
    rows = [r for r in man['images'] if r['set'] == 'train']
    for i, r in enumerate(rows):
        if r['package'] == man['evalPackage'] or not r['file'].startswith('train/'):
            raise RuntimeError(f"{r['file']}: an evaluation image in the training list")
        part = 'val' if i % VAL_EVERY == VAL_PHASE else 'train'
        if part not in parts:
            continue
        a = np.asarray(Image.open(os.path.join(folder, r['file'])).convert('RGB'), dtype=np.float32) / 255.0
        img = torch.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1))).to(device)
        name = f"{r['package']}/{os.path.basename(r['file'])}"
        lib[part][name] = _pyramid(img)
        lib['weights'][name] = 2.0
        lib['packages'][name] = r['package']
    for n, pyr in (skimage_photos or {}).items() if 'train' in parts else ():
        if n == HELD_OUT_PHOTO:
            continue
        lib['train'][n] = pyr
        lib['weights'][n] = float(PHOTOS.get(n, 1))
        lib['packages'][n] = 'scikit-image'
    log(f"library: {len(lib['train'])} training photographs, {len(lib['val'])} validation photographs (never trained on)")
    return lib


def _pick(rng, lib, part):
    names = sorted(lib[part])
    w = np.array([lib['weights'][n] for n in names], dtype=np.float64)
    return names[int(rng.choice(len(names), p=w / w.sum()))]


def _speed(rng, hi=14.0):
    """Output pixels per frame: log-uniform over [0.3, hi], so slow and fast moves are both common."""
    return float(np.exp(rng.uniform(np.log(0.3), np.log(hi))))


def camera_layer(rng, pyr, frames, Ho, Wo, device, speed=None, zoom=None, rot=None, accel=True, scale=None):
    """A camera move over one photograph: pan at `speed` output px / frame in a random direction (eased in or
    out at random), zoom at `zoom` per frame (log scale), rotation at `rot` rad / frame. Returns [3, F, Ho, Wo]
    in [0, 1] and the pan's velocity (vx, vy) in output px / frame as the image content moves."""
    H0, W0 = pyr[0].shape[1:]
    speed = _speed(rng) if speed is None else speed
    zoom = (rng.uniform(-0.06, 0.06) if rng.uniform() < 0.35 else 0.0) if zoom is None else zoom
    rot = (rng.uniform(-0.05, 0.05) if rng.uniform() < 0.2 else 0.0) if rot is None else rot
    margin = 1.45 if rot else 1.05
    fit = 0.95 * min(H0 / Ho, W0 / Wo) / margin
    s = float(np.exp(rng.uniform(np.log(0.5), np.log(max(0.51, min(2.0, fit)))))) if scale is None else scale
    ang = rng.uniform(0, 2 * math.pi)
    th0 = rng.uniform(-0.3, 0.3) if rot else 0.0
    ease = rng.choice(['none', 'in', 'out']) if accel else 'none'
    hx, hy = 0.5 * margin * Wo * s, 0.5 * margin * Ho * s
    cx = rng.uniform(min(hx, W0 / 2), max(W0 - hx, W0 / 2))
    cy = rng.uniform(min(hy, H0 / 2), max(H0 - hy, H0 / 2))
    views = []
    for f in range(frames):
        u = f / max(1, frames - 1)
        dist = {'none': f, 'in': f * u, 'out': f * (2 - u)}[ease]  # pixels travelled, in units of `speed`
        views.append((cx + math.cos(ang) * speed * s * dist, cy + math.sin(ang) * speed * s * dist,
                      s * math.exp(zoom * f), th0 + rot * f))
    x = render_views(pyr, views, Ho, Wo, device)
    return x, (-math.cos(ang) * speed, -math.sin(ang) * speed)


def _jitter(rng, x):
    if rng.uniform() < 0.5:
        x = x.flip(-1)
    b, ct, sat = rng.uniform(-0.06, 0.06), rng.uniform(0.85, 1.15), rng.uniform(0.75, 1.25)
    g = x.mean(0, keepdim=True)
    x = g + sat * (x - g)
    return (x - 0.5) * ct + 0.5 + b


def _grid(frames, Ho, Wo, device):
    ys, xs = torch.meshgrid(torch.arange(Ho, device=device, dtype=torch.float32) + 0.5,
                            torch.arange(Wo, device=device, dtype=torch.float32) + 0.5, indexing='ij')
    t = torch.arange(frames, device=device, dtype=torch.float32).view(-1, 1, 1)
    return xs[None], ys[None], t


def parallax_clip(rng, lib, part, frames, Ho, Wo, device):
    """Two photograph layers panning in one direction at different speeds (far: slow, near: 1.5-4x faster);
    the near layer covers the frame below a wavy horizon (or beside a wavy edge) that moves with it."""
    far, near = _pick(rng, lib, part), _pick(rng, lib, part)
    v_far = _speed(rng, 6.0)
    k = rng.uniform(1.5, 4.0)
    bg, _ = camera_layer(rng, lib[part][far], frames, Ho, Wo, device, speed=v_far, zoom=0.0, rot=0.0, accel=False)
    # the near layer moves k times faster than the far one (a camera translating past a near scene)
    fg, (vx, vy) = camera_layer(rng, lib[part][near], frames, Ho, Wo, device, speed=min(14.0, v_far * k),
                                zoom=0.0, rot=0.0, accel=False)
    X, Y, t = _grid(frames, Ho, Wo, device)
    S = min(Ho, Wo)
    amp, freq, phase = rng.uniform(0.02, 0.12) * S, rng.uniform(0.5, 3.0) * 2 * math.pi / S, rng.uniform(0, 2 * math.pi)
    if rng.uniform() < 0.6:  # a horizon, the near layer below it; the edge travels with the near layer
        edge = rng.uniform(0.3, 0.7) * Ho + vy * t + amp * torch.sin(freq * (X - vx * t) + phase) - Y
    else:  # a side edge, the near layer to its left
        edge = rng.uniform(0.3, 0.7) * Wo + vx * t + amp * torch.sin(freq * (Y - vy * t) + phase) - X
    alpha = (0.5 - edge / rng.uniform(0.7, 3.0)).clamp(0, 1)[None]
    return bg * (1 - alpha) + fg * alpha


def objects_clip(rng, lib, part, frames, Ho, Wo, device):
    """A camera move over a photograph with 1-4 objects (discs, ellipses, rounded boxes textured with another
    photograph that travels with them) moving over it at up to 14 px / frame, turning, passing in and out."""
    bg, _ = camera_layer(rng, lib[part][_pick(rng, lib, part)], frames, Ho, Wo, device, speed=_speed(rng, 8.0))
    X, Y, t = _grid(frames, Ho, Wo, device)
    S = min(Ho, Wo)
    x = bg
    for _ in range(int(rng.integers(1, 5))):
        vx, vy = (_speed(rng) * c for c in (lambda a: (math.cos(a), math.sin(a)))(rng.uniform(0, 2 * math.pi)))
        px, py = rng.uniform(0, Wo), rng.uniform(0, Ho)
        px, py = px - vx * (frames - 1) / 2, py - vy * (frames - 1) / 2  # crosses the frame around the middle
        tex, _ = camera_layer(rng, lib[part][_pick(rng, lib, part)], frames, Ho, Wo, device, speed=0.0, zoom=0.0,
                              rot=0.0, accel=False)
        # the texture moves with the object: shift it by the object's travel (whole-frame roll + bilinear part)
        tex = _translate(tex, vx, vy)
        r = rng.uniform(0.12, 0.4) * S
        e = rng.uniform(0.5, 1.0)
        a0, va = rng.uniform(0, math.pi), rng.uniform(-0.06, 0.06)
        dx, dy = X - (px + vx * t), Y - (py + vy * t)
        ang = a0 + va * t
        lx = dx * torch.cos(ang) + dy * torch.sin(ang)
        ly = -dx * torch.sin(ang) + dy * torch.cos(ang)
        kind = rng.choice(['disc', 'box'])
        if kind == 'disc':
            sdf = torch.sqrt(lx * lx + (ly / e) ** 2) - r
        else:
            qx, qy = lx.abs() - r, ly.abs() - r * e
            sdf = torch.sqrt(qx.clamp(min=0) ** 2 + qy.clamp(min=0) ** 2) + torch.maximum(qx, qy).clamp(max=0) - 0.1 * r
        alpha = (0.5 - sdf / rng.uniform(0.6, 2.5)).clamp(0, 1)[None]
        x = x * (1 - alpha) + tex * alpha
    return x


def fast_pan_layer(rng, pyr, frames, Ho, Wo, device):
    """A straight pan at FAST_SPEEDS output px / frame (log-uniform; eased in or out in 30 % of the clips, those at a
    mean of at most 7 px / frame so that they peak at 14), no zoom or
    rotation, whose whole path stays inside the photograph (no reflected border content, as in the evaluation set's
    pans): the scale (source px per output px, up to 2) is drawn below the largest one that fits the travel, and the
    path is centred on the photograph up to the slack left. Returns [3, F, Ho, Wo] in [0, 1]."""
    H0, W0 = pyr[0].shape[1:]
    speed = float(np.exp(rng.uniform(*np.log(FAST_SPEEDS))))
    ang = rng.uniform(0, 2 * math.pi)
    ease = str(rng.choice(['none', 'in', 'out'], p=[0.7, 0.15, 0.15]))
    if ease != 'none':
        speed = min(speed, 7.0)  # an eased pan peaks at twice its mean speed: at most 14 px / frame
    reach = frames - 1  # frames of travel at the mean speed (every ease ends where the plain pan does)
    ca, sa = abs(math.cos(ang)), abs(math.sin(ang))
    fit = min((W0 - 2) / (1.02 * Wo + ca * speed * reach), (H0 - 2) / (1.02 * Ho + sa * speed * reach))
    hi = min(2.0, fit)
    s = float(np.exp(rng.uniform(np.log(min(0.6, hi)), np.log(hi)))) if hi > 0.6 else hi
    tx, ty = math.cos(ang) * speed * s * reach, math.sin(ang) * speed * s * reach  # source px travelled
    slack_x = max(0.0, (W0 - 2 - 1.02 * Wo * s - abs(tx)) / 2)
    slack_y = max(0.0, (H0 - 2 - 1.02 * Ho * s - abs(ty)) / 2)
    cx0 = W0 / 2 - tx / 2 + rng.uniform(-slack_x, slack_x)
    cy0 = H0 / 2 - ty / 2 + rng.uniform(-slack_y, slack_y)
    views = []
    for f in range(frames):
        u = f / max(1, frames - 1)
        d = {'none': u, 'in': u * u, 'out': u * (2 - u)}[ease]  # share of the path travelled by frame f
        views.append((cx0 + tx * d, cy0 + ty * d, s, 0.0))
    return render_views(pyr, views, Ho, Wo, device)


def _translate(x, vx, vy):
    """[3, F, H, W]: frame f moved by (vx f, vy f) pixels (reflection at the borders), bilinear."""
    C, Fr, H, W = x.shape
    theta = torch.zeros(Fr, 2, 3, device=x.device)
    f = torch.arange(Fr, device=x.device, dtype=torch.float32)
    theta[:, 0, 0] = 1
    theta[:, 1, 1] = 1
    theta[:, 0, 2] = -2 * vx * f / W
    theta[:, 1, 2] = -2 * vy * f / H
    grid = F.affine_grid(theta, (Fr, C, H, W), align_corners=False)
    return F.grid_sample(x.permute(1, 0, 2, 3), grid, mode='bilinear', padding_mode='reflection',
                         align_corners=False).permute(1, 0, 2, 3)


def _base_clip(rng, lib, part, kind, frames, Ho, Wo, device):
    if kind == 'camera':
        return camera_layer(rng, lib[part][_pick(rng, lib, part)], frames, Ho, Wo, device)[0]
    if kind == 'slow':
        return camera_layer(rng, lib[part][_pick(rng, lib, part)], frames, Ho, Wo, device, speed=rng.uniform(0.0, 1.5))[0]
    if kind == 'parallax':
        return parallax_clip(rng, lib, part, frames, Ho, Wo, device)
    if kind == 'objects':
        return objects_clip(rng, lib, part, frames, Ho, Wo, device)
    if kind == 'fast':
        return fast_pan_layer(rng, lib[part][_pick(rng, lib, part)], frames, Ho, Wo, device)
    # procedural: data.py's scene, made faster by subsampling a longer one in time
    step = int(rng.integers(1, 4))
    x = (shapes_clip(rng, 1 + (frames - 1) * step, (Ho, Wo), device)[:, ::step] + 1) / 2
    return x


def video_clip(key, lib, frames, size, device, part='train', fast=0.0):
    """The clip for `key`: one of KINDS (with `fast` > 0 a share `fast` of 'fast' pans, kinds_for); then at random
    a brightness change (fade, ramp or flash) and a cut to a second clip. Returns (clip [3, F, H, W] in [-1, 1],
    description)."""
    rng = _rng(*key)
    Ho, Wo = _hw(size)
    names, p = kinds_for(fast)
    kind = str(rng.choice(names, p=p))
    x = _base_clip(rng, lib, part, kind, frames, Ho, Wo, device)
    desc = kind
    if frames > 4 and rng.uniform() < 0.12:  # a cut at a random frame
        c = int(rng.integers(1, frames))
        kind2 = str(rng.choice(names, p=p))
        y = _base_clip(rng, lib, part, kind2, frames, Ho, Wo, device)
        x = torch.cat([x[:, :c], y[:, c:]], 1)
        desc += f'+cut@{c}:{kind2}'
    if frames > 1 and rng.uniform() < 0.15:
        t = torch.arange(frames, device=device, dtype=torch.float32).view(1, -1, 1, 1) / (frames - 1)
        mode = rng.choice(['ramp', 'fade', 'flash'])
        if mode == 'ramp':
            g = 1 + rng.uniform(-0.5, 0.5) * t
        elif mode == 'fade':
            g = (t if rng.uniform() < 0.5 else 1 - t) * rng.uniform(0.6, 1.0) + rng.uniform(0.0, 0.4)
        else:
            g = 1 + rng.uniform(0.3, 0.8) * torch.exp(-((t - rng.uniform(0.2, 0.8)) * 8) ** 2)
        x = x * g
        desc += f'+{mode}'
    x = _jitter(rng, x)
    return (x.clamp(0, 1) * 2 - 1).contiguous(), desc


def make_video_batch(seed, step, batch, lib, frames, size, device):
    return torch.stack([video_clip((seed, step, i), lib, frames, size, device)[0] for i in range(batch)], 0)


def validation_clips(lib, seed, n, frames, size, device):
    """n clips over the validation photographs (never trained on), keys (seed, VAL_STREAM + i): kinds drawn as in
    training."""
    out = []
    for i in range(n):
        clip, desc = video_clip((seed, VAL_STREAM + i), lib, frames, size, device, part='val')
        out.append((clip, desc))
    return out
