#!/usr/bin/env bash
# Start-up A/B of two builds in one call: .h200/dist-shipped (A) against .h200/dist (B), empty and filled cache.
# In this order (STOP_AFTER ends it early): the attention kernel rows of each build; Wan2.1 480x832x81 CLI
# decodes, f16 on tensor cores and the stock f32 default, each with an empty NVIDIA shader cache then the cache
# it filled (cli.jsonl: seconds, firstFrameSeconds, startup events); the compile probe (compile.sh's) on every
# `wan-vae shaders --dump` folder in .h200/compile/; the f16 tensor-core and the stock f32 decodes of A and B compared (compare.jsonl); a second round of
# CLI decodes (B then A, to see drift). Dry run here: SKIPBOOT=1 LAT=2x4x4 SKIP_ROWS=1 F= OUT=/tmp/o bash bench/h200/run.sh startup-ab
STOCK=enable-dawn-features=vulkan_enable_f16_on_nvidia
S21="--synthetic 2.1 --latent-size ${LAT:-21x60x104}"
mkdir -p "$OUT/logs"
use() { rm -rf dist && cp -r ".h200/$1" dist; }
both() { local n=$1 t=$2 fl=$3; shift 3; local c; c=$(fresh); F=$fl cli "$n-empty" "$t" "$c" "$@"; F=$fl cli "$n-filled" "$t" "$c" "$@"; }
round() { for d in "$@"; do use "$d"; both "$d-$R-tc" 60 "$F" $S21 --precision f16; both "$d-$R-stock" 60 "$STOCK" $S21 --precision f32; done; }
[ -n "${SKIP_ROWS:-}" ] || for d in dist-shipped dist; do use "$d"; rows "attn-$d" 60 --only attention --runs 20; done
R=r1 round dist-shipped dist
for D in .h200/compile/*/; do
  for way in serial all; do
    late "compile-$D-$way" && break
    __GL_SHADER_DISK_CACHE_PATH=$(fresh) timeout 60 node bench/probes/compile-parallel.mjs ${D%/} $way --flags "$F" 2>> "$OUT/logs/compile.log" | grep '^{' >> "$OUT/compile.jsonl"
  done
done
[ -f "$OUT/compile.jsonl" ] && node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const r = JSON.parse(l);
  console.log(r.dir.split("/").pop().padEnd(7), r.way.padEnd(7), String(r.totalMs).padStart(6), "ms done at", r.doneMs.join(",")); }' "$OUT/compile.jsonl"
for d in dist-shipped dist; do use "$d"; dec "tc-$d" 60 $S21 --precision f16; F=$STOCK dec "stock-$d" 60 $S21 --precision f32; done
for k in tc stock; do [ -f /tmp/$k-dist.npy ] && [ -f /tmp/$k-dist-shipped.npy ] && cmp $k-dist-shipped $k-dist; done
rm -f /tmp/tc-dist*.npy /tmp/stock-dist*.npy
R=r2 round dist dist-shipped
node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const r = JSON.parse(l); const x = r.result ?? {};
  console.log(r.name.padEnd(30), String(x.seconds).padStart(6), "s first", String(x.firstFrameSeconds).padStart(6), "pipelines", x.startup?.pipelinesMs, "ms"); }' "$OUT/cli.jsonl"
use dist
finish
