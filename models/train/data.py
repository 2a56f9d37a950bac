"""Training video made by the recipe itself: camera moves (pan, zoom, rotation) over the photographs that ship
inside scikit-image, and procedural scenes (soft-edged shapes moving over moving gradients and waves).

Every clip is a pure function of its key (seed, stream, index): the clip parameters come from a numpy Generator
seeded with that key, the pixels from deterministic torch ops (affine_grid / grid_sample, arithmetic). Training
keys are (seed, step, i); held-out keys use stream 1 000 000 + n, which training never reaches, and the
photograph HELD_OUT_PHOTO is never used in training.

Clips are float32 [3, F, S, S] in [-1, 1].
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

# name -> sampling weight in training (colour photographs weigh more than grey ones)
PHOTOS = {
    'astronaut': 3, 'coffee': 3, 'chelsea': 3, 'rocket': 3, 'immunohistochemistry': 2, 'retina': 1,
    'hubble_deep_field': 1, 'colorwheel': 1, 'camera': 1, 'moon': 1, 'coins': 1, 'clock': 1, 'brick': 1,
    'grass': 1, 'gravel': 1, 'text': 1, 'page': 1, 'cell': 1,
}
HELD_OUT_PHOTO = 'chelsea'
HELD_OUT_STREAM = 1_000_000


def _to_rgb01(a):
    a = np.asarray(a)
    if a.dtype == bool:
        a = a.astype(np.float32)
    elif a.dtype == np.uint8:
        a = a.astype(np.float32) / 255.0
    elif a.dtype == np.uint16:
        a = a.astype(np.float32) / 65535.0
    else:
        a = a.astype(np.float32)
        lo, hi = float(a.min()), float(a.max())
        a = (a - lo) / max(hi - lo, 1e-8)
    if a.ndim == 2:
        a = np.stack([a, a, a], -1)
    if a.shape[2] == 4:
        a = a[..., :3]
    return np.ascontiguousarray(a.transpose(2, 0, 1))


def load_photos(device, log=print, loader=None):
    """name -> pyramid (list of [3, H, W] float32 tensors in [0, 1], each level half the previous)."""
    if loader is None:
        from skimage import data as skdata
        loader = lambda n: getattr(skdata, n)()  # noqa: E731
    out = {}
    for name in PHOTOS:
        try:
            a = _to_rgb01(loader(name))
        except Exception as e:  # a photo that needs a download is skipped (the machine has no network)
            log(f'photo {name}: skipped ({type(e).__name__}: {str(e)[:80]})')
            continue
        if min(a.shape[1:]) < 128:
            log(f'photo {name}: skipped (only {a.shape[1]}x{a.shape[2]})')
            continue
        img = torch.from_numpy(a).to(device)
        pyr = [img]
        while min(pyr[-1].shape[1:]) >= 128:
            pyr.append(F.avg_pool2d(pyr[-1][None], 2)[0])
        out[name] = pyr
    return out


def _rng(*key):
    return np.random.default_rng([int(k) for k in key])


def _hw(size):
    return (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))


def render_views(pyr, views, Ho, Wo, device, s_min=None):
    """[3, F, Ho, Wo] in [0, 1]: frame f samples the photograph (pyramid `pyr`) around source point (cx, cy) at
    s source pixels per output pixel, turned by th radians, for views[f] = (cx, cy, s, th) (source pixels of
    level 0). The pyramid level is the coarsest one that stays at >= 1 source pixel per output pixel at the
    finest scale of the clip (antialiasing)."""
    frames = len(views)
    if s_min is None:
        s_min = min(v[2] for v in views)
    level = 0
    while level + 1 < len(pyr) and s_min / 2 ** (level + 1) >= 1.0:
        level += 1
    img = pyr[level]
    H, W = img.shape[1:]
    k = 2.0 ** level
    thetas = []
    for cs, ds, ss, th in views:
        sf = ss / k
        c = cs / k
        d = ds / k
        r00, r01, r10, r11 = math.cos(th), -math.sin(th), math.sin(th), math.cos(th)
        thetas.append([[sf * Wo * r00 / W, sf * Ho * r01 / W, 2 * c / W - 1],
                       [sf * Wo * r10 / H, sf * Ho * r11 / H, 2 * d / H - 1]])
    theta = torch.tensor(thetas, dtype=torch.float32, device=device)
    grid = F.affine_grid(theta, (frames, 3, Ho, Wo), align_corners=False)  # [F, Ho, Wo, 2]
    # one sampling call for all frames: the frames' grids stacked along the height
    return F.grid_sample(img[None], grid.reshape(1, frames * Ho, Wo, 2), mode='bilinear',
                         padding_mode='reflection', align_corners=False)[0].reshape(3, frames, Ho, Wo)


def photo_clip(rng, photos, name, frames, size, device, motion=None, scale=None):
    """A camera move over one photograph: pan (up to 3 output px / frame), zoom (up to 3 % / frame), rotation
    (up to 0.03 rad / frame) or a mix; antialiased through the image pyramid; mild colour jitter; mirrored at
    random. `size` is S or (H, W) in output pixels; `scale` (source pixels per output pixel) is drawn unless
    given."""
    pyr = photos[name]
    H0, W0 = pyr[0].shape[1:]
    Ho, Wo = _hw(size)
    motion = motion or str(rng.choice(['pan', 'zoom', 'rotate', 'pan+zoom', 'pan+rotate', 'all']))
    rot = 'rotate' in motion or motion == 'all'
    margin = 1.45 if rot else 1.05
    fit = 0.95 * min(H0 / Ho, W0 / Wo) / margin  # largest scale whose (rotated) view stays inside the photo
    lo, hi = 0.35, max(0.36, min(2.5, fit))
    s = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    if scale is not None:
        s = float(scale)
    speed = rng.uniform(0.3, 3.0) if 'pan' in motion or motion == 'all' else 0.0
    ang = rng.uniform(0, 2 * math.pi)
    zr = rng.uniform(-0.03, 0.03) if 'zoom' in motion or motion == 'all' else 0.0
    wr = rng.uniform(-0.03, 0.03) if rot else 0.0
    th0 = rng.uniform(-0.4, 0.4) if rot else 0.0
    hx, hy = 0.5 * margin * Wo * s, 0.5 * margin * Ho * s
    cx = rng.uniform(min(hx, W0 / 2), max(W0 - hx, W0 / 2))
    cy = rng.uniform(min(hy, H0 / 2), max(H0 - hy, H0 / 2))
    flip = rng.uniform() < 0.5
    jit = (rng.uniform(-0.06, 0.06), rng.uniform(0.85, 1.15), rng.uniform(0.75, 1.25))
    s_min = s * min(1.0, math.exp(zr * (frames - 1)))  # the finest scale the clip reaches
    views = [(cx + math.cos(ang) * speed * s * f, cy + math.sin(ang) * speed * s * f, s * math.exp(zr * f), th0 + wr * f)
             for f in range(frames)]
    x = render_views(pyr, views, Ho, Wo, device, s_min)
    if flip:
        x = x.flip(-1)
    b, ct, sat = jit
    g = x.mean(0, keepdim=True)
    x = g + sat * (x - g)
    x = (x - 0.5) * ct + 0.5 + b
    return (x.clamp(0, 1) * 2 - 1).contiguous()


def shapes_clip(rng, frames, size, device):
    """A procedural scene: a moving gradient with a travelling wave, and 2-7 soft-edged discs, boxes and rings
    (some striped) that move, turn and pass over each other."""
    Ho, Wo = _hw(size)
    S = min(Ho, Wo)
    ys, xs = torch.meshgrid(torch.arange(Ho, device=device, dtype=torch.float32) + 0.5,
                            torch.arange(Wo, device=device, dtype=torch.float32) + 0.5, indexing='ij')
    t = torch.arange(frames, device=device, dtype=torch.float32).view(-1, 1, 1)
    X, Y = xs[None], ys[None]
    c1, c2 = [float(v) for v in rng.uniform(0, 1, 3)], [float(v) for v in rng.uniform(0, 1, 3)]
    phi = rng.uniform(0, 2 * math.pi)
    vb = rng.uniform(-1.5, 1.5)
    ramp = ((X - Wo / 2) * math.cos(phi) + (Y - Ho / 2) * math.sin(phi) + vb * t) / S + 0.5
    ramp = ramp.clamp(0, 1)
    img = torch.stack([c1[i] + (c2[i] - c1[i]) * ramp for i in range(3)], 0)  # [3, F, S, S]
    amp, freq, psi, om = rng.uniform(0, 0.12), rng.uniform(0.01, 0.08), rng.uniform(0, 2 * math.pi), rng.uniform(-0.4, 0.4)
    wave = amp * torch.sin(2 * math.pi * freq * (X * math.cos(psi) + Y * math.sin(psi)) + om * t)
    img = img + wave[None]
    for _ in range(int(rng.integers(2, 8))):
        kind = rng.choice(['disc', 'box', 'ring'])
        px, py = rng.uniform(0, Wo), rng.uniform(0, Ho)
        vx, vy = rng.uniform(-3, 3), rng.uniform(-3, 3)
        r = rng.uniform(0.06, 0.3) * S
        a0, va = rng.uniform(0, math.pi), rng.uniform(-0.08, 0.08)
        edge = rng.uniform(0.6, 2.5)
        col = torch.tensor(rng.uniform(0, 1, 3), dtype=torch.float32, device=device).view(3, 1, 1, 1)
        dx, dy = X - (px + vx * t), Y - (py + vy * t)
        if kind == 'disc':
            sdf = torch.sqrt(dx * dx + dy * dy) - r
        elif kind == 'ring':
            sdf = (torch.sqrt(dx * dx + dy * dy) - r).abs() - r * rng.uniform(0.12, 0.35)
        else:
            ang = a0 + va * t
            lx = (dx * torch.cos(ang) + dy * torch.sin(ang)).abs() - r
            ly = (-dx * torch.sin(ang) + dy * torch.cos(ang)).abs() - r * rng.uniform(0.4, 1.0)
            sdf = torch.sqrt(lx.clamp(min=0) ** 2 + ly.clamp(min=0) ** 2) + torch.maximum(lx, ly).clamp(max=0)
        alpha = (0.5 - sdf / edge).clamp(0, 1)[None]
        fill = col.expand(3, frames, Ho, Wo)
        if rng.uniform() < 0.3:
            sp = rng.uniform(0.1, 0.4)
            fill = fill * (0.75 + 0.25 * torch.sin(sp * (dx + dy))[None])
        img = img * (1 - alpha) + fill * alpha
    return (img.clamp(0, 1) * 2 - 1).contiguous()


def make_clip(key, photos, frames, size, device, photo_frac=0.75, exclude=(HELD_OUT_PHOTO,)):
    """The clip for `key` (a tuple of ints): a photograph move (weighted choice, `exclude` left out) or a
    procedural scene. Returns (clip, description)."""
    rng = _rng(*key)
    names = [n for n in photos if n not in exclude]
    if names and rng.uniform() < photo_frac:
        w = np.array([PHOTOS[n] for n in names], dtype=np.float64)
        name = names[int(rng.choice(len(names), p=w / w.sum()))]
        return photo_clip(rng, photos, name, frames, size, device), name
    return shapes_clip(rng, frames, size, device), 'shapes'


def make_batch(seed, step, batch, photos, frames, size, device, photo_frac=0.75):
    clips = [make_clip((seed, step, i), photos, frames, size, device, photo_frac=photo_frac)[0] for i in range(batch)]
    return torch.stack(clips, 0)


def quantize(clip):
    """[-1, 1] float -> uint8 (round), and back: the stored source clip and exactly what the encoder saw."""
    u8 = ((clip.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
    return u8, u8.float() / 127.5 - 1
