#!/usr/bin/env bash
# The Winograd conv with its input transform in the GEMM's staging against the non-fused form, stock toggle set: layers alone, then decodes.
# Steps (STEPS selects: probe, decode; default both; STOP_AFTER stops later ones):
#   probe   bench/probes/wino-fused.ts (.h200/probe/wino-fused.js): whole 3x3x3 conv layers of Wan2.1 480x832 (and Wan2.2's
#           widths last), non-fused (winograd-in + -gemm + -out per band) against winograd-fused + -out with each fused block,
#           f32 and f16 storage -> wino-fused.jsonl (PROBE_ROWS_S: no row starts after that many seconds; PROBE_ARGS: more
#           probe arguments, e.g. --transforms: winograd-in / -out alone with 1, 2, 4 tiles per invocation, two rounds)
#   decode  for each build in BUILDS (folders .h200-fused/<name>/dist with a COMMIT file): Wan2.1 480x832x81 stock f32 and f16,
#           shader cache filled by a first decode of the same build (cli.jsonl; f32 output kept and compared with the first build's)
# Build: bash bench/h200/build.sh HEAD; npx vite build --config bench/probes/vite.wino-fused.config.ts (-> .h200/probe);
# per build of the decode step: .h200-fused/<name>/dist + COMMIT. Carry .h200 (and .h200-fused) with the bundle (docs/gpu-runs.md).
STOCK=enable-dawn-features=vulkan_enable_f16_on_nvidia
S21="--synthetic 2.1 --latent-size ${W21:-21x60x104} --tile none"
STEPS=${STEPS:-probe decode}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
if has probe && [ -f .h200/probe/wino-fused.js ] && ! late probe; then
  timeout "${PROBE_S:-200}" node .h200/probe/wino-fused.js --flags "$STOCK" --flags disable-dawn-features=timestamp_quantization --seconds "${PROBE_ROWS_S:-120}" ${PROBE_ARGS:-} --out "$OUT/wino-fused.jsonl" > "$OUT/logs/probe.log" 2>&1
  echo "== probe rc $? $(wc -l < "$OUT/wino-fused.jsonl" 2>/dev/null) rows"
  head -3 "$OUT/logs/probe.log"
  [ -f "$OUT/wino-fused.jsonl" ] && node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
    for (const r of rows) console.log(r.case.padEnd(22), r.variant.padEnd(14), !r.ms ? (r.error ?? "").slice(0, 90) : r.directTflops === undefined ? `${r.ms.toFixed(3)} ms ${r.scratchGBs.toFixed(0)} GB/s round ${r.round} max|d| ${r.maxAbsVsT1}` : `${r.ms.toFixed(3)} ms ${r.directTflops.toFixed(1)} TFLOP/s bands ${r.bands} scratch ${r.scratchMiB.toFixed(0)} MiB max|d| ${r.maxAbsVsNonfused.toExponential(1)}`);' "$OUT/wino-fused.jsonl" 2>&1 | head -120
fi
if has decode; then
  BUILDS=${BUILDS:-$(ls .h200-fused 2>/dev/null | tr '\n' ' ')}
  echo "builds: $BUILDS" | tee "$OUT/builds.txt"
  first=
  for b in $BUILDS; do
    echo "$b $(cat .h200-fused/$b/COMMIT 2>/dev/null)" >> "$OUT/builds.txt"
    rm -rf dist && cp -r ".h200-fused/$b/dist" dist
    c=$(fresh)
    __GL_SHADER_DISK_CACHE_PATH=$c F=$STOCK dec "w21-f32-$b-fill" 60 $S21 --precision f32
    F=$STOCK cli "w21-f32-$b" 60 "$c" $S21 --precision f32
    F=$STOCK cli "w21-f16-$b-fill" 60 "$c" $S21 --precision f16
    F=$STOCK cli "w21-f16-$b" 60 "$c" $S21 --precision f16
    if [ -z "$first" ]; then first=$b; elif [ -f "/tmp/w21-f32-$first-fill.npy" ]; then cmp "w21-f32-$first-fill" "w21-f32-$b-fill"; fi
  done
  rm -f /tmp/w21-f32-*.npy
  node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const j = JSON.parse(l), r = j.result ?? {};
    console.log(j.name.padEnd(30), "rc", j.rc, "s", r.seconds, "MiB", r.peakGpuBytes && (r.peakGpuBytes / 2 ** 20).toFixed(0), "planned", r.plannedPeakGpuBytes && (r.plannedPeakGpuBytes / 2 ** 20).toFixed(0)); }' "$OUT/cli.jsonl" 2>/dev/null
  cat "$OUT/decode.jsonl" "$OUT/compare.jsonl" 2>/dev/null | cut -c1-300
fi
[ -f "$OUT/boot.log" ] && mv "$OUT/boot.log" "$OUT/logs/"
finish
