"""Random Wan weights written as a user's checkpoint would be, for bench/h200/scenarios/checkpoint.sh:
  python3 checkpoint-make.py VERSION T H W DIR
The official modules (WAN_REF_DIR: vae21.py / vae22.py) with non-trivial random weights as
../shared/gpu/fullsize-check.py makes them (its randomize(); FULLSIZE_CHECK names that file), kept in f32
(not rounded to f16), saved as
  DIR/full.pth           torch.save(model.state_dict()): encoder + decoder, f32 (as the official .pth)
  DIR/decoder.safetensors the decoder tensors, f32 (as Wan2.2_VAE.safetensors less the encoder)
  DIR/z.npy              latents (de-normalised: decode with --latent-stats none)
  DIR/ref.npy            the official fp32 decode (TF32 off) on the GPU, clamped to [-1, 1]
One JSON line: file sizes, save and decode seconds.
"""
import importlib.util, json, os, sys, time
import numpy as np
import torch

spec = importlib.util.spec_from_file_location('fullsize_check', os.environ.get('FULLSIZE_CHECK', 'fullsize-check.py'))
fc = importlib.util.module_from_spec(spec); spec.loader.exec_module(fc)
version, T, H, W, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, os.environ.get('WAN_REF_DIR', '.wan-ref'))
import vae21, vae22
torch.backends.cudnn.allow_tf32 = False; torch.backends.cuda.matmul.allow_tf32 = False
g = torch.Generator().manual_seed(7)
if version == '2.1':
    m = vae21.WanVAE_(dim=96, z_dim=16, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[], temperal_downsample=[False, True, True]); z_dim = 16
else:
    m = vae22.WanVAE_(dim=160, dec_dim=256, z_dim=48, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[], temperal_downsample=[False, True, True]); z_dim = 48
m = m.eval().requires_grad_(False)
fc.randomize(m, g)
m = m.float()
os.makedirs(d, exist_ok=True)
t0 = time.perf_counter()
sd = m.state_dict()
torch.save(sd, os.path.join(d, 'full.pth'))
t1 = time.perf_counter()
fc.write_safetensors(os.path.join(d, 'decoder.safetensors'), {k: v.numpy() for k, v in sd.items() if k.startswith('decoder.') or k.startswith('conv2.')}, np.float32)
t2 = time.perf_counter()
z = torch.randn(1, z_dim, T, H, W, generator=g).float()
np.save(os.path.join(d, 'z.npy'), z[0].numpy())
dev = 'cuda' if torch.cuda.is_available() else 'cpu'
m = m.to(dev)
if dev == 'cuda': torch.cuda.synchronize()
t3 = time.perf_counter()
with torch.no_grad():
    out = m.decode(z.to(dev), [0.0, 1.0])
if dev == 'cuda': torch.cuda.synchronize()
t4 = time.perf_counter()
np.save(os.path.join(d, 'ref.npy'), out[0].float().clamp(-1, 1).cpu().numpy())
size = lambda n: os.path.getsize(os.path.join(d, n))
print(json.dumps(dict(step='make', version=version, latent=[z_dim, T, H, W], device=dev, pth_bytes=size('full.pth'), safetensors_bytes=size('decoder.safetensors'),
                      torch_save_s=round(t1 - t0, 2), safetensors_save_s=round(t2 - t1, 2), official_decode_fp32_s=round(t4 - t3, 2))), flush=True)
