#!/usr/bin/env bash
# Issue 11, portable path (session 7): the non-fused Winograd conv (src/kernels/winograd.ts, --conv) on the
# H200 against the direct conv (conv3d-tiled), per layer and in the Wan2.1 480x832x81 f32 portable decode.
# Run through the `run` tool as scripts/h200-portable-s6.sh (its header; the stripped node split in two,
# two calls back to back on a warm machine). Call 2 carries .gpu-bundle/np/node.xz.ab,
# .gpu-bundle/{boot.sh,dawn.node.xz,debs,webgpu} and .h200-wino (dist/ built by vite.cli.config.ts from a
# `git archive` of the commit measured) and runs
#   cat .gpu-bundle/np/node.xz.aa .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-wino/dist dist && source .gpu-bundle/boot.sh && COMMIT=<sha> bash scripts/h200-wino-s7.sh
# Steps (each with its own timeout; STEPS picks them, default all):
#   rows    the -tiled rows at the four ANCHORS shapes: the decoder's direct conv, the TILED_CANDIDATES and the
#           Winograd rows wino2 / wino4 (bench/lib/conv-candidates.ts: total of the 3 kernels over all bands,
#           each kernel alone, effective TFLOP/s = direct FLOPs / time, max |err| vs direct)
#   decode  cold CLI decodes of Wan2.1 480x832x81 f32 portable (--tensor-cores off, whole frames) with
#           CONVS (default "direct winograd winograd4"), each output kept and compared with the direct one
#           (scripts/compare-npy.mjs: max |err|, PSNR)
#   default the same decode with default options and --tensor-cores off only (what `auto` picks)
#   profile bench-node --profile (cold + warm decode in one process, per-layer GPU table) with each --conv
#           of PCONVS (default winograd)
# Env: VAE (2.1) and LAT (21x60x104) pick the decodes' model and latent; ROWS the rows' --only list. Session 7's
# Wan2.2 widths (lead): ROWS=conv3d/256ch-352x640-tiled,conv3d/512ch-176x320-tiled,conv3d/1024ch-88x160-tiled
# STEPS=rows; then STEPS=decode VAE=2.2 LAT=3x44x80 CONVS="direct winograd4" (PSNR); then LAT=31x44x80 CONVS=winograd4.
# Results under $OUT (JSON rows, decode.jsonl, compare.jsonl, the profile), logs tarred (the tool returns <= 8 files).
set -u
source .gpu-bundle/boot.sh >/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown}" >> "$OUT/gpu.txt"
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia,disable-dawn-features=timestamp_quantization
FC=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
B="node dist/bench-node.js --dawn-flags $F --out $OUT --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT}"
S=" ${STEPS:-rows decode profile} "
dec() { # dec NAME ARGS...: one cold CLI decode of Wan2.1 480x832x81 (portable), output kept as /tmp/NAME.npy
  local name=$1 t0=$SECONDS
  shift
  timeout "${DTMO:-90}" node bin/wan-vae.mjs decode --dawn-flags "$FC" --json --out /tmp/$name.npy --synthetic ${VAE:-2.1} --latent-size ${LAT:-21x60x104} --tile none --tensor-cores off "$@" > "$OUT/decode-$name.log" 2>&1
  echo "{\"name\":\"$name\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "$OUT/decode-$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  echo "$name $(tail -1 "$OUT/decode.jsonl" | grep -o '"seconds":[0-9.]*\|"rc":[0-9]*\|"peakGpuBytes":[0-9]*\|"plannedPeakGpuBytes":[0-9]*' | tr '\n' ' ')"
}
cmp() { # cmp REF NAME: max |err| and PSNR of /tmp/NAME.npy against /tmp/REF.npy
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(timeout 60 node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-300
}
summ() { # one line per bench row: direct, then each Winograd row's TFLOP/s, max |err|, bands and per-kernel ms
  for f in "$OUT"/h200-*"$1"*.json; do [ -f "$f" ] && node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const x of r.results ?? []) { const e = x.extra ?? {}; console.log(x.name, x.status, (x.ms?.median ?? 0).toFixed(2) + " ms", (x.gflops / 1000).toFixed(1) + " TF",
      ["wino2", "wino4"].map((l) => e["ms_" + l] === undefined ? "" : `${l} ${e["ms_" + l].toFixed(2)} ms ${e["tflops_" + l].toFixed(1)} TF err ${e["maxAbs_" + l].toExponential(1)} bands ${e["bands_" + l]} in/gemm/gemmu/out ${["in", "gemm", "gemmu", "out"].map((k) => (e["ms_" + l + "_" + k] ?? 0).toFixed(2)).join("/")}`).join(" | "),
      Object.keys(e).filter((k) => k.startsWith("error_")).map((k) => k + ":" + e[k].slice(0, 100)).join(" "), x.error ?? ""); }' "$f"; done
}
if [[ $S == *" rows "* ]]; then
  timeout "${ROWS_TMO:-240}" $B --only "${ROWS:-conv3d/96ch-480x832-tiled,conv3d/192ch-240x416-tiled,conv3d/384ch-120x208-tiled,conv3d/384ch-60x104-tiled}" --runs 20 --tag wino > "$OUT/bench-rows.log" 2>&1
  echo "rows rc $?"; summ wino
fi
if [[ $S == *" decode "* ]]; then
  for c in ${CONVS:-direct winograd winograd4}; do dec f32-$c --precision f32 --conv $c; done
  for c in ${CONVS:-direct winograd winograd4}; do [ "$c" != direct ] && [ -f /tmp/f32-direct.npy ] && [ -f /tmp/f32-$c.npy ] && cmp f32-direct f32-$c; done
fi
if [[ $S == *" default "* ]]; then
  dec f32-default
  [ -f /tmp/f32-direct.npy ] && cmp f32-direct f32-default
fi
rm -f /tmp/*.npy
if [[ $S == *" profile "* ]]; then
  for pc in ${PCONVS:-winograd}; do
    timeout "${PROF_TMO:-150}" node dist/bench-node.js --profile --dawn-flags "$FC disable-dawn-features=timestamp_quantization" --out $OUT ${COMMIT:+--commit $COMMIT} --model 2.1 --latent ${LAT:-21x60x104} --precision f32 --tensor-cores off --conv $pc --name profile-wan2.1-f32-$pc > "$OUT/profile-$pc.log" 2>&1
    echo "profile $pc rc $?"
    grep -E "plain decode|profiled decode|^\| (conv|norm|attn|output|dupadd|crop) \||^\| (conv3d|winograd)|total GPU" "$OUT/profile-$pc.log" | head -${PLINES:-24} | cut -c1-160
  done
fi
rm -f "$OUT"/*.svg
(cd "$OUT" && tar czf /tmp/wino-logs.tgz *.log && rm -f *.log && mv /tmp/wino-logs.tgz .)
ls -la "$OUT"
