#!/usr/bin/env bash
# Issue 11, portable part (session 5): Winograd F(2x2,3x3) (--conv winograd) against the direct conv on
# the H200, in one device call (~3 min). Run through the `device` tool like scripts/h200-run.sh (its
# header: transfer size, the stripped node split in two, two calls back to back on a warm machine):
# call 1 carries .gpu-bundle/np/node.xz.aa with a trivial command; call 2 carries .gpu-bundle/np/node.xz.ab,
# .gpu-bundle/{boot.sh,dawn.node.xz,debs,webgpu} and .h200-wino (dist/ built by vite.cli.config.ts from a
# `git archive` of the commit measured: cli.js, bench-node.js, chunks/) with
#   cat .gpu-bundle/np/node.xz.aa .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-wino/dist dist && source .gpu-bundle/boot.sh && COMMIT=<sha> bash scripts/h200-winograd.sh
# 1. Wan2.1 480x832x81 portable decodes (--tensor-cores off, whole frames): f32 direct, F(2x2) and F(4x4)
#    (each compared with direct: max |err|, PSNR), then f16 direct and F(2x2) (compared); decode.jsonl,
#    compare.jsonl. 2. Kernel rows at the four ANCHORS shapes (bench/lib/winograd.ts: Winograd beside the
#    direct conv on the same inputs, speedup, max |err| / NMSE; the WINOGRAD_TILINGS variants). Every
#    step has a timeout so the call ends inside its limit; logs tarred (the tool returns <= 8 files).
# 2026-12-01 (1e4bb91): 246 s wall on a warm machine; the Winograd decodes hit DTMO=40 (the kernel was
# 6x slower than conv3d then); with DTMO=40 BENCH_TMO=75 only 8 rows came back. A re-measure of the
# fixed kernel: DTMO=30 SHAPES="96ch-480x832 192ch-240x416" BENCH_TMO=60 (~3 min).
set -u
source .gpu-bundle/boot.sh >/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown}" >> "$OUT/gpu.txt"
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
d() { # d NAME TIMEOUT ARGS...: one decode into /tmp/NAME.npy; last stdout line is its JSON summary
  local name=$1 tmo=$2 t0=$SECONDS
  shift 2
  timeout "$tmo" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --out "/tmp/$name.npy" "$@" > "/tmp/$name.log" 2>&1
  echo "{\"name\":\"$name\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "/tmp/$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  grep -v '^{' "/tmp/$name.log" | grep -v Warning | tail -2 | cut -c1-200
  cp "/tmp/$name.log" "$OUT/$name.log"
}
c() { # c REF NAME: PSNR / max |err| of NAME against REF
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-200
}
L21="--synthetic 2.1 --latent-size ${LAT:-21x60x104} --tile none --tensor-cores off"
d f32-direct "${DTMO:-45}" $L21 --precision f32 --conv direct
d f32-winograd "${DTMO:-45}" $L21 --precision f32 --conv winograd && c f32-direct f32-winograd
rm -f /tmp/f32-winograd.npy
d f32-winograd4 "${DTMO:-45}" $L21 --precision f32 --conv winograd4 && c f32-direct f32-winograd4
rm -f /tmp/f32-*.npy
d f16-direct "${DTMO:-45}" $L21 --precision f16 --conv direct
d f16-winograd "${DTMO:-45}" $L21 --precision f16 --conv winograd && c f16-direct f16-winograd
rm -f /tmp/*.npy
# a row took ~25 s at 96ch 480x832 on 2026-12-01 (mostly the JS fill, since shared by x and the cache)
S="${SHAPES:-96ch-480x832 192ch-240x416 384ch-120x208 384ch-60x104}"
ONLY=$(for s in $S; do printf 'conv3d/%s-winograd,' "$s"; done)
timeout "${BENCH_TMO:-80}" node dist/bench-node.js ${QUICK:-} --only "${ONLY%,}" --runs "${RUNS:-15}" --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 --tag winograd ${COMMIT:+--commit $COMMIT} > "$OUT/bench-winograd.log" 2>&1
grep -E "winograd.*ms \(p10|failed|Error" "$OUT/bench-winograd.log" | cut -c1-160 | head -40
rm -f "$OUT"/*.svg
(cd "$OUT" && tar czf /tmp/winograd-all.tgz --exclude='*.jsonl' --exclude=gpu.txt . && find . -type f -name '*.log' -delete && mv /tmp/winograd-all.tgz .)
ls -la "$OUT"
