"""The official Wan VAE decode timed on the GPU machine, in the same call as this project's decodes (clocks
differ between leases): WanVAE_.decode (per-latent-frame loop with the feature cache), weights as the
modules initialise them (timing only), latents N(0,1). python3 there has torch; the official modules come
from WAN_REF_DIR (vae21.py = wan/modules/vae.py of Wan-Video/Wan2.1, vae22.py = wan/modules/vae2_2.py of
Wan-Video/Wan2.2; they import einops). Each case: one warm-up decode, then one timed (torch.cuda.synchronize
around it); peak = torch.cuda.max_memory_allocated of the timed decode.
  python3 official-decode-time.py CASE...   CASE = VERSION:PRECISION:T:H:W, PRECISION fp32 (PyTorch's
  default: cuDNN convs on TF32) | fp32-notf32 | bf16 (autocast); prints one JSON line per case."""
import sys, os, json, time
import torch

sys.path.insert(0, os.environ.get('WAN_REF_DIR', os.path.join(os.getcwd(), '.wan-ref')))


def model(version):
    if version == '2.1':
        import vae21
        return vae21.WanVAE_(dim=96, z_dim=16, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[], temperal_downsample=[False, True, True]), 16
    import vae22
    return vae22.WanVAE_(dim=160, dec_dim=256, z_dim=48, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[], temperal_downsample=[False, True, True]), 48


def run(case):
    version, prec, T, H, W = case.split(':')
    T, H, W = int(T), int(H), int(W)
    tf32 = prec != 'fp32-notf32'
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's default
    m, z_dim = model(version)
    m = m.eval().requires_grad_(False).float().cuda()
    g = torch.Generator().manual_seed(1)
    z = torch.randn(1, z_dim, T, H, W, generator=g).cuda()
    def once():
        with torch.no_grad(), torch.autocast('cuda', dtype=torch.bfloat16, enabled=prec == 'bf16'):
            return m.decode(z, [0.0, 1.0])
    out = once()
    del out
    torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    out = once()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    info = dict(step='official', version=version, precision=prec, latent=[z_dim, T, H, W], video=list(out.shape[1:]), seconds=round(dt, 3),
                peak_mib=round(torch.cuda.max_memory_allocated() / 2 ** 20), torch=torch.__version__, gpu=torch.cuda.get_device_name())
    print(json.dumps(info), flush=True)
    del m, z, out
    torch.cuda.empty_cache()


if __name__ == '__main__':
    for c in sys.argv[1:]:
        try:
            run(c)
        except Exception as e:  # one failed case must not hide the others
            print(json.dumps(dict(step='official', case=c, error=repr(e)[:300])), flush=True)
