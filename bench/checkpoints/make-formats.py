"""The checkpoint files a Wan user has, at their real sizes and layouts, for docs/file-formats.md:
  python3 bench/checkpoints/make-formats.py VERSION NAME PATH
VERSION 2.1 or 2.2; NAME one of
  official-pth         torch.save(state_dict), encoder + decoder, f32 (Wan2.1_VAE.pth, Wan2.2_VAE.pth)
  official-st          safetensors, official keys, encoder + decoder, F32 (Wan2.2_VAE.safetensors; Kijai's *_fp32)
  diffusers-st         safetensors, diffusers (AutoencoderKLWan) keys, F32 (vae/diffusion_pytorch_model.safetensors)
  comfy-f16 / kijai-bf16  safetensors, official keys, F16 / BF16 (ComfyUI's wan*_vae, Kijai's *_bf16)
The official modules (WAN_REF_DIR: vae21.py / vae22.py, as bench/h200/checkpoint-make.py uses them) give
the tensors; their values are PyTorch's default initialisation (the load reads them all the same). One
JSON line: the file's size and the seconds it took to write.
"""
import importlib, json, os, re, struct, sys, time
import torch

version, name, path = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.environ.get('WAN_REF_DIR', '.h200/checkpoint/wan-ref'))
torch.manual_seed(0)
if version == '2.1':
    m = importlib.import_module('vae21').WanVAE_(dim=96, z_dim=16, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[], temperal_downsample=[False, True, True])
else:
    m = importlib.import_module('vae22').WanVAE_(dim=160, dec_dim=256, z_dim=48, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[], temperal_downsample=[False, True, True])
sd = {k: v.float().contiguous() for k, v in m.state_dict().items()}


def diffusers_key(k):
    """The diffusers (AutoencoderKLWan) name of official key `k` (the inverse of src/model/keys.ts for the decoder)."""
    if k.startswith('conv2.'): return 'post_quant_conv.' + k[6:]
    if k.startswith('conv1.'): return 'quant_conv.' + k[6:]
    if not k.startswith('decoder.'): return k  # the encoder: never read, its names do not matter here
    r = k[8:]
    r = re.sub(r'^conv1\.', 'conv_in.', r); r = re.sub(r'^head\.0\.', 'norm_out.', r); r = re.sub(r'^head\.2\.', 'conv_out.', r)
    r = re.sub(r'^middle\.0\.', 'mid_block.resnets.0.', r); r = re.sub(r'^middle\.1\.', 'mid_block.attentions.0.', r); r = re.sub(r'^middle\.2\.', 'mid_block.resnets.1.', r)
    up = re.match(r'^upsamples\.(\d+)\.upsamples\.(\d+)\.(.*)$', r) if version == '2.2' else re.match(r'^upsamples\.(\d+)\.(.*)$', r)
    if up:
        if version == '2.2': b, s, rest = int(up[1]), int(up[2]), up[3]
        else: b, s, rest = int(up[1]) // 4, int(up[1]) % 4, up[2]
        r = (f'up_blocks.{b}.resnets.{s}.' if s < 3 else f'up_blocks.{b}.upsampler.' if version == '2.2' else f'up_blocks.{b}.upsamplers.0.') + rest
    r = re.sub(r'\.residual\.0\.gamma$', '.norm1.gamma', r); r = re.sub(r'\.residual\.2\.(weight|bias)$', r'.conv1.\1', r)
    r = re.sub(r'\.residual\.3\.gamma$', '.norm2.gamma', r); r = re.sub(r'\.residual\.6\.(weight|bias)$', r'.conv2.\1', r)
    r = re.sub(r'\.shortcut\.(weight|bias)$', r'.conv_shortcut.\1', r)
    return 'decoder.' + r


def write_safetensors(path, tensors, dtype):
    """safetensors of `tensors` (name -> f32 tensor) in F32, F16 or BF16, written tensor by tensor."""
    conv = {'F32': lambda t: t.numpy(), 'F16': lambda t: t.half().numpy(), 'BF16': lambda t: t.bfloat16().view(torch.int16).numpy()}[dtype]
    size = 4 if dtype == 'F32' else 2
    header, off = {}, 0
    for k, v in tensors.items():
        n = v.numel() * size
        header[k] = dict(dtype=dtype, shape=list(v.shape), data_offsets=[off, off + n]); off += n
    h = json.dumps(header).encode(); h += b' ' * ((8 - len(h) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h))); f.write(h)
        for v in tensors.values(): f.write(conv(v).tobytes())


t0 = time.perf_counter()
if name == 'official-pth': torch.save(sd, path)
elif name == 'official-st': write_safetensors(path, sd, 'F32')
elif name == 'diffusers-st': write_safetensors(path, {diffusers_key(k): v for k, v in sd.items()}, 'F32')
elif name == 'comfy-f16': write_safetensors(path, sd, 'F16')
elif name == 'kijai-bf16': write_safetensors(path, sd, 'BF16')
else: sys.exit(f'make-formats.py: unknown file kind {name}')
print(json.dumps(dict(version=version, kind=name, bytes=os.path.getsize(path), write_s=round(time.perf_counter() - t0, 2))), flush=True)
