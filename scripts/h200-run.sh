#!/usr/bin/env bash
# The H200 measurements of the README (run through the `device` tool on a bare GPU machine, see
# ../shared/gpu/README.md): carry .gpu-bundle, dist (npm run build:cli) and out/bench
# (npx vite build --config bench/vite.node.config.ts); results go to $OUT.
set -u
source .gpu-bundle/boot.sh >/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
d() { # one decode with official-shape generated weights; last stdout line is its JSON summary
  local t0=$SECONDS
  timeout "${TMO:-150}" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --out /tmp/v.npy "$@" > /tmp/d.log 2>&1
  echo "{\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 /tmp/d.log | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  tail -2 /tmp/d.log
}
d --synthetic 2.1 --latent-size 21x60x104 --tile none
d --synthetic 2.1 --latent-size 21x60x104 --budget 1536
d --synthetic 2.1 --latent-size 21x60x104 --precision f16 --tile none
d --synthetic 2.1 --latent-size 21x60x104 --precision f16 --budget 768
TMO=170 d --synthetic 2.2 --latent-size 31x44x80 --tile none
timeout 120 node out/bench/bench-node.mjs --only conv3d,attention --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 > "$OUT/bench.log" 2>&1
tail -5 "$OUT/bench.log"
