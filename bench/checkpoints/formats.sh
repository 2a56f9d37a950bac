#!/usr/bin/env bash
# bench/checkpoints/formats.sh OUT.jsonl: every checkpoint file a Wan user has (bench/checkpoints/make-formats.py),
# at its real size and layout, made in a temp dir, loaded once through a file handle
# (bench/checkpoints/load-file.ts: no GPU) and removed; one make line and one load line per file.
# PY (default python3) needs torch and einops; WAN_REF_DIR the official modules (vae21.py, vae22.py).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${1:?usage: formats.sh OUT.jsonl}
PY=${PY:-python3}
dir=$(mktemp -d /tmp/wan-formats.XXXX)
trap 'rm -rf "$dir"' EXIT
for v in 2.1 2.2; do
  for kind in official-pth official-st diffusers-st comfy-f16 kijai-bf16; do
    f="$dir/wan$v-$kind"
    $PY bench/checkpoints/make-formats.py "$v" "$kind" "$f" >> "$out" || { echo "make $v $kind failed" >&2; continue; }
    sync
    npx tsx bench/checkpoints/load-file.ts "$f" | sed "s/^{/{\"version\":\"$v\",\"kind\":\"$kind\",/" >> "$out"
    rm -f "$f"
  done
done
