"""The Wan2.1 VAE architecture at any width, in whole-sequence form, plus a minimal safetensors reader/writer.

Decoder: exactly the official `wan/modules/vae.py` Decoder3d (module names, parameter shapes and math), run on a
whole latent sequence at once instead of latent frame by latent frame with the feature cache. The two are the
same function (../shared/reference/wan-vae-spec.md section 4.6): every causal conv is an ordinary causal conv over
the whole sequence (2 leading zero frames), and at each upsample3d the first frame is never temporally processed
while `time_conv` runs causally over frames 1..N-1 and its two halves are interleaved. `golden_check` proves it
against the float64 decodes of the official code in ../shared/golden.

Encoder: the official Encoder3d layout (downsample2d, downsample3d, downsample3d; middle block with attention;
head to 2z channels; then `conv1` 1x1x1 giving mean and log-variance), also in whole-sequence form: the official
chunked encode (frame 0, then 4 frames at a time, a stride-2 `time_conv` over the last frame of the previous chunk
and the chunk) is, over the whole sequence, frame 0 followed by a stride-2 causal conv without padding.
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_np import read_safetensors, write_safetensors  # noqa: E402,F401 (re-exported)

# Official Wan2.1 latent statistics (z = 16): stored latents are (mu - MEAN) / STD, the decoder input is
# latents * STD + MEAN.
WAN21_MEAN = [-0.7571, -0.7089, -0.9113, 0.1075, -0.1745, 0.9653, -0.1517, 1.5508,
              0.4134, -0.0715, 0.5517, -0.3632, -0.1922, -0.9497, 0.2503, -0.2921]
WAN21_STD = [2.8184, 1.4541, 2.3275, 2.6558, 1.2196, 1.7708, 2.6052, 2.0743,
             3.2687, 2.1526, 2.8652, 1.5579, 1.6382, 1.1253, 2.8251, 1.9160]


class CausalConv3d(nn.Conv3d):
    """Conv3d with causal temporal padding: (pw, pw, ph, ph, 2*pt, 0), as the official CausalConv3d."""

    def __init__(self, cin, cout, kernel, stride=1, padding=0):
        super().__init__(cin, cout, kernel, stride=stride, padding=0)
        p = padding if isinstance(padding, tuple) else (padding, padding, padding)
        self._pad = (p[2], p[2], p[1], p[1], 2 * p[0], 0)

    def forward(self, x):
        if any(self._pad):
            x = F.pad(x, self._pad)
        return super().forward(x)


class RMS_norm(nn.Module):
    """F.normalize over channels * sqrt(C) * gamma (no bias)."""

    def __init__(self, dim, images=True):
        super().__init__()
        self.scale = dim ** 0.5
        self.gamma = nn.Parameter(torch.ones((dim, 1, 1) if images else (dim, 1, 1, 1)))

    def forward(self, x):
        return F.normalize(x, dim=1) * self.scale * self.gamma


class ResidualBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.residual = nn.Sequential(
            RMS_norm(cin, images=False), nn.SiLU(), CausalConv3d(cin, cout, 3, padding=1),
            RMS_norm(cout, images=False), nn.SiLU(), nn.Dropout(0.0), CausalConv3d(cout, cout, 3, padding=1))
        self.shortcut = CausalConv3d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        return self.residual(x) + self.shortcut(x)


class AttentionBlock(nn.Module):
    """Single-head attention over the pixels of each frame (never across frames)."""

    def __init__(self, dim):
        super().__init__()
        self.norm = RMS_norm(dim)
        self.to_qkv = nn.Conv2d(dim, dim * 3, 1)
        self.proj = nn.Conv2d(dim, dim, 1)
        nn.init.zeros_(self.proj.weight)

    def forward(self, x):
        identity = x
        b, c, t, h, w = x.shape
        x = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        x = self.norm(x)
        q, k, v = self.to_qkv(x).reshape(b * t, 1, c * 3, -1).permute(0, 1, 3, 2).contiguous().chunk(3, dim=-1)
        if q.dtype == torch.float64 or not hasattr(F, 'scaled_dot_product_attention'):
            # the reference decodes (and PyTorch < 2.0, e.g. Debian bookworm's 1.13): plain math, no fused kernel
            x = torch.softmax((q @ k.transpose(-1, -2)) / math.sqrt(c), dim=-1) @ v
        else:
            x = F.scaled_dot_product_attention(q, k, v)
        x = x.squeeze(1).permute(0, 2, 1).reshape(b * t, c, h, w)
        x = self.proj(x)
        x = x.reshape(b, t, c, h, w).permute(0, 2, 1, 3, 4)
        return x + identity


class Resample(nn.Module):
    """upsample2d / upsample3d (decoder), downsample2d / downsample3d (encoder); whole-sequence form.

    The per-frame 2D part (nearest x2 + Conv2d, or zero-pad + stride-2 Conv2d) runs as a conv3d with a 1x3x3
    kernel over all frames at once: the same arithmetic without the (b t) reshapes.
    """

    def __init__(self, dim, mode):
        super().__init__()
        self.mode = mode
        if mode in ('upsample2d', 'upsample3d'):
            self.resample = nn.Sequential(nn.Upsample(scale_factor=(2.0, 2.0), mode='nearest-exact'),
                                          nn.Conv2d(dim, dim // 2, 3, padding=1))
        else:
            self.resample = nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(dim, dim, 3, stride=(2, 2)))
        if mode == 'upsample3d':
            self.time_conv = CausalConv3d(dim, dim * 2, (3, 1, 1), padding=(1, 0, 0))
        elif mode == 'downsample3d':
            self.time_conv = CausalConv3d(dim, dim, (3, 1, 1), stride=(2, 1, 1), padding=(0, 0, 0))

    def forward(self, x):
        b, c, t, h, w = x.shape
        if self.mode == 'upsample3d' and t > 1:
            # frame 0 passes through; time_conv runs causally over frames 1..t-1 (2 zero frames before frame 1);
            # its output channels [0:c] are the earlier sub-frame, [c:2c] the later one
            tc = self.time_conv(x[:, :, 1:])
            tc = tc.reshape(b, 2, c, t - 1, h, w)
            tc = torch.stack((tc[:, 0], tc[:, 1]), 3).reshape(b, c, 2 * (t - 1), h, w)
            x = torch.cat([x[:, :, :1], tc], 2)
            t = x.shape[2]
        conv = self.resample[1]
        if self.mode in ('upsample2d', 'upsample3d'):
            x = F.interpolate(x, size=(t, 2 * h, 2 * w), mode='nearest-exact')
            x = F.conv3d(x, conv.weight.unsqueeze(2), conv.bias, padding=(0, 1, 1))
        else:
            x = F.pad(x, (0, 1, 0, 1))
            x = F.conv3d(x, conv.weight.unsqueeze(2), conv.bias, stride=(1, 2, 2))
            if self.mode == 'downsample3d' and t > 1:
                if (t - 1) % 2:
                    raise ValueError(f'downsample3d needs 1 + 2k frames, got {t}')
                x = torch.cat([x[:, :, :1], self.time_conv(x)], 2)
        return x


class Decoder3d(nn.Module):
    """`dims` (5 widths: conv1's output, then each up level's output) replaces dim x dim_mult when given: the official
    code's widths are [dim * dim_mult[-1]] + [dim * u for u in reversed(dim_mult)], e.g. 32 x (1, 2, 4, 4) ->
    [128, 128, 128, 64, 32]; [128, 128, 128, 64, 64] is the same decoder with its full-resolution level twice as wide
    (dim 32, dim_mult (2, 2, 4, 4) in the official code's terms)."""

    def __init__(self, dim=96, z_dim=16, dim_mult=(1, 2, 4, 4), num_res_blocks=2,
                 temperal_upsample=(True, True, False), dims=None):
        super().__init__()
        dims = list(dims) if dims else [dim * u for u in [dim_mult[-1]] + list(dim_mult[::-1])]
        if len(dims) != 5:
            raise ValueError(f'decoder widths: 5 values (conv1, then 4 up levels), got {dims}')
        self.conv1 = CausalConv3d(z_dim, dims[0], 3, padding=1)
        self.middle = nn.Sequential(ResidualBlock(dims[0], dims[0]), AttentionBlock(dims[0]),
                                    ResidualBlock(dims[0], dims[0]))
        ups = []
        for i, (in_dim, out_dim) in enumerate(zip(dims[:-1], dims[1:])):
            if i in (1, 2, 3):
                in_dim = in_dim // 2
            for _ in range(num_res_blocks + 1):
                ups.append(ResidualBlock(in_dim, out_dim))
                in_dim = out_dim
            if i != len(dim_mult) - 1:
                ups.append(Resample(out_dim, 'upsample3d' if temperal_upsample[i] else 'upsample2d'))
        self.upsamples = nn.Sequential(*ups)
        self.head = nn.Sequential(RMS_norm(out_dim, images=False), nn.SiLU(), CausalConv3d(out_dim, 3, 3, padding=1))

    def forward(self, x):
        return self.head(self.upsamples(self.middle(self.conv1(x))))


class Encoder3d(nn.Module):
    def __init__(self, dim=96, z_dim=32, dim_mult=(1, 2, 4, 4), num_res_blocks=2,
                 temperal_downsample=(False, True, True)):
        super().__init__()
        dims = [dim * u for u in [1] + list(dim_mult)]
        self.conv1 = CausalConv3d(3, dims[0], 3, padding=1)
        downs = []
        for i, (in_dim, out_dim) in enumerate(zip(dims[:-1], dims[1:])):
            for _ in range(num_res_blocks):
                downs.append(ResidualBlock(in_dim, out_dim))
                in_dim = out_dim
            if i != len(dim_mult) - 1:
                downs.append(Resample(out_dim, 'downsample3d' if temperal_downsample[i] else 'downsample2d'))
        self.downsamples = nn.Sequential(*downs)
        self.middle = nn.Sequential(ResidualBlock(out_dim, out_dim), AttentionBlock(out_dim),
                                    ResidualBlock(out_dim, out_dim))
        self.head = nn.Sequential(RMS_norm(out_dim, images=False), nn.SiLU(), CausalConv3d(out_dim, z_dim, 3, padding=1))

    def forward(self, x):
        return self.head(self.middle(self.downsamples(self.conv1(x))))


class WanVAE(nn.Module):
    """State-dict names as the official WanVAE_: encoder.*, conv1.* (2z -> 2z), conv2.* (z -> z), decoder.*."""

    def __init__(self, dim=32, z_dim=16, enc_dim=None, enc_res_blocks=2, dec_dims=None):
        super().__init__()
        self.z_dim = z_dim
        self.encoder = Encoder3d(enc_dim or dim, z_dim * 2, num_res_blocks=enc_res_blocks)
        self.conv1 = CausalConv3d(z_dim * 2, z_dim * 2, 1)
        self.conv2 = CausalConv3d(z_dim, z_dim, 1)
        self.decoder = Decoder3d(dim, z_dim, dims=dec_dims)

    def encode(self, x):
        """x [B, 3, 1+4k, H, W] in [-1, 1] -> raw (not normalised) mu, log-variance [B, z, 1+k, H/8, W/8]."""
        if (x.shape[2] - 1) % 4 or x.shape[3] % 8 or x.shape[4] % 8:
            raise ValueError(f'encode needs 1 + 4k frames and sides divisible by 8, got {tuple(x.shape)}')
        mu, logvar = self.conv1(self.encoder(x)).chunk(2, dim=1)
        return mu, logvar.clamp(-30.0, 20.0)

    def decode(self, z):
        """raw latents [B, z, T, h, w] -> video [B, 3, 1 + 4(T-1), 8h, 8w] (not clamped)."""
        return self.decoder(self.conv2(z))


def latent_stats(device, dtype=torch.float32):
    mean = torch.tensor(WAN21_MEAN, dtype=dtype, device=device).view(1, -1, 1, 1, 1)
    std = torch.tensor(WAN21_STD, dtype=dtype, device=device).view(1, -1, 1, 1, 1)
    return mean, std


# safetensors, read and written with numpy: safetensors_np.py (re-exported here)


def decoder_dims(tensors):
    """The 5 widths of a Wan2.1 decoder's tensors (Decoder3d `dims`): conv1's output, then each up level's output."""
    try:
        return [int(tensors['decoder.conv1.weight'].shape[0])] + [
            int(tensors[f'decoder.upsamples.{4 * i}.residual.2.weight'].shape[0]) for i in range(4)]
    except KeyError as e:
        raise ValueError(f'not a Wan2.1 decoder: tensor {e.args[0]} missing') from None


def encoder_shape(tensors):
    """(dim, res blocks per level) of a Wan2.1 encoder's tensors."""
    nrb = 0
    while f'encoder.downsamples.{nrb}.residual.2.weight' in tensors:
        nrb += 1
    return int(tensors['encoder.conv1.weight'].shape[0]), nrb


def model_from_state(tensors):
    """A WanVAE (float32, on the CPU) holding an export's decoder and encoder tensors, its widths read from their shapes."""
    dim, nrb = encoder_shape(tensors)
    m = WanVAE(dim=dim, z_dim=int(tensors['conv2.weight'].shape[0]), enc_dim=dim, enc_res_blocks=nrb,
               dec_dims=decoder_dims(tensors))
    m.load_state_dict({k: torch.from_numpy(np.asarray(v, dtype=np.float32)) for k, v in tensors.items()}, strict=True)
    return m


def build_from_state(tensors, part):
    """A Decoder3d (+conv2) or Encoder3d (+conv1) whose widths are read from the tensor shapes."""
    if part == 'decoder':
        z = tensors['conv2.weight'].shape[0]
        m = nn.Module()
        m.conv2 = CausalConv3d(z, z, 1)
        m.decoder = Decoder3d(z_dim=z, dims=decoder_dims(tensors))
    else:
        z2 = tensors['conv1.weight'].shape[0]
        dim, nrb = encoder_shape(tensors)
        m = nn.Module()
        m.conv1 = CausalConv3d(z2, z2, 1)
        m.encoder = Encoder3d(dim, z2, num_res_blocks=nrb)
    keys = set(m.state_dict().keys())
    sd = {k: torch.from_numpy(np.asarray(v, dtype=np.float32)) for k, v in tensors.items() if k in keys}
    missing = keys - set(sd)
    if missing:
        raise ValueError(f'{part}: missing tensors {sorted(missing)[:5]} ...')
    m.load_state_dict(sd, strict=True)
    return m


def golden_check(path, device='cpu'):
    """Decode a golden case of ../shared/golden in float64 with this code; return max |err| vs @video."""
    t, meta = read_safetensors(path)
    m = build_from_state(t, 'decoder').to(device=device, dtype=torch.float64).eval()
    lat = torch.from_numpy(t['@latents'].astype(np.float64)).to(device)[None]
    mean = torch.from_numpy(t['@mean'].astype(np.float64)).to(device).view(1, -1, 1, 1, 1)
    std = torch.from_numpy(t['@std'].astype(np.float64)).to(device).view(1, -1, 1, 1, 1)
    with torch.no_grad():
        z = lat / (1.0 / std) + mean
        out = m.decoder(m.conv2(z))[0].cpu().numpy()
    ref = t['@video'].astype(np.float64)
    if out.shape != ref.shape:
        raise ValueError(f'{path}: decoded shape {out.shape}, golden @video {ref.shape}')
    return float(np.abs(out - ref).max()), list(out.shape), meta.get('case', path)
