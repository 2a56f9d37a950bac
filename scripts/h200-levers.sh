#!/usr/bin/env bash
# Issue 14's H200 rows (int8 weights, weight streaming, budgets): ~3-4 min of decodes.
# Run through the `device` tool like scripts/h200-run.sh (its header: transfer size, the stripped node,
# two calls back to back on a warm machine): carry .gpu-bundle/np/node.xz.aa (the stripped node.xz split
# in two: `split -b 11000000 node.xz np/node.xz.`) with a trivial command, then .gpu-bundle/np/node.xz.ab,
# .gpu-bundle/{boot.sh,dawn.node.xz,debs,webgpu} and .h200-levers (dist/cli.js + chunks built from a
# `git archive` of the commit measured) with
#   cat .gpu-bundle/np/node.xz.a? > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-levers/dist dist && COMMIT=<sha> bash scripts/h200-levers.sh
# Every decode: official-shape generated weights and latents (--synthetic), its JSON line in
# $OUT/decode.jsonl (planned = measured: plannedPeakGpuBytes vs peakGpuBytes), its PSNR / max |err|
# against the exact f32 decode of the same latents in $OUT/compare.jsonl. Rows in priority order; each
# has a timeout so the call ends inside its limit.
set -u
source .gpu-bundle/boot.sh >/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown}" >> "$OUT/gpu.txt"
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
d() { # d NAME TIMEOUT ARGS...: one decode into /tmp/NAME.npy; last stdout line is its JSON summary
  local name=$1 tmo=$2 t0=$SECONDS
  shift 2
  timeout "$tmo" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --out "/tmp/$name.npy" "$@" > "/tmp/$name.log" 2>&1
  echo "{\"name\":\"$name\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "/tmp/$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  grep -v '^{' "/tmp/$name.log" | grep -v Warning | tail -3 | cut -c1-300
}
c() { # c REF NAME: PSNR / max |err| of NAME against REF
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-300
}
L21="--synthetic 2.1 --latent-size 21x60x104"
L22="--synthetic 2.2 --latent-size ${T22:-2}x44x80"
# Wan2.1 480x832x81: the exact f32 decode (whole frames, resident weights), the same with the weights
# streamed (bit-identical; the time lost), int8 weights under 512 MiB; Wan2.2 704x1280 with 2 latent
# frames (5 frames, not 121: the call's time) exact and under 1 GiB; then Wan2.1 under 512 MiB on auto
d w21-exact 35 $L21 --tile none --precision f32 --weights-stream off
d w21-stream 40 $L21 --tile none --precision f32 --weights-stream on && c w21-exact w21-stream
d w21-512-int8 60 $L21 --budget 512 --precision f16 --weights-precision int8 --weights-stream off --norm auto --tile-store auto && c w21-exact w21-512-int8
d w22-exact 40 $L22 --tile none --precision f32 --weights-stream off
d w22-1g-auto 50 $L22 --budget 1024 --precision f16 --weights-precision auto --weights-stream auto --norm auto --tile-store auto && c w22-exact w22-1g-auto
d w21-512-auto 60 $L21 --budget 512 --precision f16 --weights-precision auto --weights-stream auto --norm auto --tile-store auto && c w21-exact w21-512-auto
ls -la "$OUT"
