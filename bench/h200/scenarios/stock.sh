#!/usr/bin/env bash
# The stock-browser path (Dawn without allow_unsafe_apis): Winograd GEMM blocks alone, then builds that differ in the GEMM table decoded.
# Steps (in order of need; STOP_AFTER stops the later ones):
#   1. bench/probes/wino-gemm.ts (.h200-stock/probe/wino-gemm.js): every block of WINO_GEMM_CANDIDATES at the decoder's
#      band of Wan2.1's and Wan2.2's layers, f32 and f16 storage (h16 too) -> wino-gemm.jsonl
#   2. for each build in BUILDS (folders .h200-stock/<name>/dist, each with a COMMIT file saying what it was built from):
#      Wan2.1 480x832x81 stock f32 decode with an empty driver shader cache (dec: output kept), then with it filled (cli);
#      each build's output compared with the first build's (compare.jsonl)
#   3. with the build whose filled decode was fastest: Wan2.1 stock f16, Wan2.1 stock f32 --norm fused, Wan2.2
#      704x1280x121 stock f32 (one decode each, cache of step 2)
# Build: bash bench/probes/stock-build.sh NAME COMMIT [PATCH] per build, npx vite build --config bench/probes/vite.wino-gemm.config.ts;
# carry .h200-stock with the bundle (docs/gpu-runs.md). Run: OUT=... BUILDS="a b c" bash bench/h200/run.sh stock
STOCK=enable-dawn-features=vulkan_enable_f16_on_nvidia
S21="--synthetic 2.1 --latent-size ${W21:-21x60x104} --tile none"
S22="--synthetic 2.2 --latent-size ${W22:-31x44x80} --tile none"
BUILDS=${BUILDS:-$(ls .h200-stock | grep -v '^probe$' | tr '\n' ' ')}
echo "builds: $BUILDS" | tee "$OUT/builds.txt"
for b in $BUILDS; do echo "$b $(cat .h200-stock/$b/COMMIT 2>/dev/null)" >> "$OUT/builds.txt"; done
use() { rm -rf dist && cp -r ".h200-stock/$1/dist" dist; }
# 1. the GEMM blocks alone
if [ -f .h200-stock/probe/wino-gemm.js ] && ! late probe; then
  timeout "${PROBE_S:-100}" node .h200-stock/probe/wino-gemm.js --flags "$STOCK" --flags disable-dawn-features=timestamp_quantization --seconds "${PROBE_ROWS_S:-70}" --out "$OUT/wino-gemm.jsonl" > "$OUT/logs/probe.log" 2>&1
  echo "== probe rc $? $(wc -l < "$OUT/wino-gemm.jsonl" 2>/dev/null) rows"
  [ -f "$OUT/wino-gemm.jsonl" ] && node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
    for (const r of rows) console.log(r.case.padEnd(26), r.variant.padEnd(18), r.ms ? `${r.ms.toFixed(3)} ms ${r.gemmTflops.toFixed(1)} TFLOP/s nmse ${r.nmse.toExponential(1)}` : (r.error ?? "").slice(0, 90));' "$OUT/wino-gemm.jsonl" 2>&1 | head -150
fi
# 2. Wan2.1 stock f32 per build: empty cache, then filled
first=
for b in $BUILDS; do
  use "$b"
  c=$(fresh)
  __GL_SHADER_DISK_CACHE_PATH=$c F=$STOCK dec "w21-f32-$b" 60 $S21 --precision f32
  F=$STOCK cli "w21-f32-$b-filled" 60 "$c" $S21 --precision f32
  eval "cache_$b=$c"
  if [ -z "$first" ]; then first=$b; elif [ -f "/tmp/w21-f32-$first.npy" ] && [ -f "/tmp/w21-f32-$b.npy" ]; then cmp "w21-f32-$first" "w21-f32-$b"; fi
done
rm -f /tmp/w21-f32-*.npy
best=$(node -e 'let best = null, s = Infinity; for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const j = JSON.parse(l), m = /^w21-f32-(.+)-filled$/.exec(j.name); if (m && j.rc === 0 && j.result && j.result.seconds < s) { s = j.result.seconds; best = m[1]; } } console.log(best ?? "");' "$OUT/cli.jsonl" 2>/dev/null)
echo "fastest filled Wan2.1 f32 decode: ${best:-none}" | tee -a "$OUT/builds.txt"
# 3. the fastest build: Wan2.1 f16, f32 with the fused norm, Wan2.2 f32
if [ -n "$best" ]; then
  use "$best"
  eval "c=\$cache_$best"
  F=$STOCK cli "w21-f16-$best" 60 "$c" $S21 --precision f16
  F=$STOCK cli "w21-f32-normfused-$best" 60 "$c" $S21 --precision f32 --norm fused
  F=$STOCK cli "w22-f32-$best" 90 "$c" $S22 --precision f32
fi
node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const j = JSON.parse(l), r = j.result ?? {};
  console.log(j.name.padEnd(30), "rc", j.rc, "s", r.seconds, "MiB", r.peakGpuBytes && (r.peakGpuBytes / 2 ** 20).toFixed(0), "planned", r.plannedPeakGpuBytes && (r.plannedPeakGpuBytes / 2 ** 20).toFixed(0)); }' "$OUT/cli.jsonl" 2>/dev/null
cat "$OUT/decode.jsonl" 2>/dev/null | cut -c1-300
[ -f "$OUT/boot.log" ] && mv "$OUT/boot.log" "$OUT/logs/"
finish
