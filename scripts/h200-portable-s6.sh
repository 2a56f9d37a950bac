#!/usr/bin/env bash
# Issue 11, portable path (session 6): the generated direct conv (src/kernels/conv3d-tiled.ts) and its
# candidate shapes on the H200, and the Wan2.1 480x832x81 f32 portable decode. (Call 1 also timed the
# Winograd kernels, removed after it: step `wino` and its rows are in git history, d6f80d3.)
# Run through the `run` tool like scripts/h200-run.sh (its header: the stripped node split in two,
# two calls back to back on a warm machine). Call 2 carries .gpu-bundle/np/node.xz.ab,
# .gpu-bundle/{boot.sh,dawn.node.xz,debs,webgpu} and .h200-portable (dist/ built by vite.cli.config.ts
# from a `git archive` of the commit measured) and runs
#   cat .gpu-bundle/np/node.xz.aa .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-portable/dist dist && source .gpu-bundle/boot.sh && COMMIT=<sha> bash scripts/h200-portable-s6.sh
# Steps (each with its own timeout; STEPS picks them, default all):
#   tiled  the -tiled rows at the four ANCHORS shapes and the 96 -> 3 head: the decoder's portable conv and
#          every TILED_CANDIDATES shape on the same inputs (bench/lib/conv-candidates.ts: TFLOP/s, max |err|)
#   decode Wan2.1 480x832x81 f32 portable CLI decode (--tensor-cores off, whole frames), cold
#   decodeB the same decode with .h200-portable/distB (another conv table, built from the commit + a patch
#          kept beside the results) when that folder exists
#   profile the same decode through bench-node --profile: warm decode, cold in process, per-layer GPU table
#          (of dist B when decodeB was faster)
#   f16    the decode in f16 storage (--precision f16 --tensor-cores off)
# Results (JSON rows, logs, decode.jsonl) under $OUT, logs tarred (the tool returns at most 8 files).
set -u
source .gpu-bundle/boot.sh >/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown}" >> "$OUT/gpu.txt"
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia,disable-dawn-features=timestamp_quantization
# the CLI's Dawn flags as the README's decodes used them (timestamps are not read there)
FC=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
B="node dist/bench-node.js --dawn-flags $F --out $OUT --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT}"
S=" ${STEPS:-tiled decode profile} "
dec() { # dec NAME ARGS...: one cold CLI decode of Wan2.1 480x832x81 (portable) into decode.jsonl
  local name=$1 t0=$SECONDS
  shift
  timeout "${DTMO:-60}" node bin/wan-vae.mjs decode --dawn-flags "$FC" --json --out /tmp/v.npy --synthetic 2.1 --latent-size ${LAT:-21x60x104} --tile none --tensor-cores off "$@" > "$OUT/decode-$name.log" 2>&1
  echo "{\"name\":\"$name\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "$OUT/decode-$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  echo "$name $(tail -1 "$OUT/decode.jsonl" | grep -o '"seconds":[0-9.]*\|"rc":[0-9]*\|"peakGpuBytes":[0-9]*' | tr '\n' ' ')"
  rm -f /tmp/v.npy
}
secs() { grep "\"name\":\"$1\"" "$OUT/decode.jsonl" | grep -o '"seconds":[0-9.]*' | cut -d: -f2; }
summ() { # one line per bench row: direct and each candidate's TFLOP/s, max |err|
  for f in "$OUT"/h200-*"$1"*.json; do [ -f "$f" ] && node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const x of r.results ?? []) { const e = x.extra ?? {}; console.log(x.name, x.status, (x.ms?.median ?? 0).toFixed(2) + " ms", (x.gflops / 1000).toFixed(1) + " TF",
      Object.keys(e).filter((k) => k.startsWith("tflops_")).map((k) => k.slice(7) + "=" + e[k].toFixed(1) + "/" + e["maxAbs_" + k.slice(7)]).join(" "),
      Object.keys(e).filter((k) => k.startsWith("error_")).map((k) => k + ":" + e[k].slice(0, 80)).join(" "), x.error ?? ""); }' "$f"; done
}
if [[ $S == *" tiled "* ]]; then
  timeout "${TILED_TMO:-150}" $B --only "conv3d/96ch-480x832-tiled,conv3d/192ch-240x416-tiled,conv3d/384ch-120x208-tiled,conv3d/384ch-60x104-tiled,conv3d/96to3ch-480x832-tiled" --runs 20 --tag tiled > "$OUT/bench-tiled.log" 2>&1
  echo "tiled rc $?"; summ tiled
fi
[[ $S == *" decode "* ]] && dec f32-portable --precision f32
if [[ $S == *" decodeB "* && -d .h200-portable/distB ]]; then
  mv dist distA && cp -r .h200-portable/distB dist && dec f32-portable-B --precision f32
  a=$(secs f32-portable) b=$(secs f32-portable-B)
  # keep B's dist for the profile when it decoded faster
  if [ -n "$b" ] && [ -n "$a" ] && [ "$(node -e "console.log(+process.argv[1] < +process.argv[2])" "$b" "$a")" = true ]; then echo "profile: B"; rm -rf distA; else rm -rf dist && mv distA dist; fi
fi
if [[ $S == *" profile "* ]]; then
  # bench/profile.ts splits --dawn-flags on spaces (bench rows: on commas, bench/lib/args.ts)
  timeout "${PROF_TMO:-120}" node dist/bench-node.js --profile --dawn-flags "$FC disable-dawn-features=timestamp_quantization" --out $OUT ${COMMIT:+--commit $COMMIT} --model 2.1 --latent ${LAT:-21x60x104} --precision f32 --tensor-cores off --name profile-wan2.1-f32-portable > "$OUT/profile.log" 2>&1
  echo "profile rc $?"
  grep -E "plain decode|profiled decode|^\| (conv|norm|attn|output|dupadd|crop) \||^\| conv3d|total GPU" "$OUT/profile.log" | head -16 | cut -c1-160
fi
[[ $S == *" f16 "* ]] && dec f16-portable --precision f16
rm -f "$OUT"/*.svg
(cd "$OUT" && tar czf /tmp/portable-logs.tgz *.log && rm -f *.log && mv /tmp/portable-logs.tgz .)
ls -la "$OUT"
