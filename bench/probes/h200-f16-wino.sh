#!/usr/bin/env bash
# H200 probe (2026-12-01): the Winograd conv in f16 storage plans on the stock feature set, against the f32
# default and the tensor-core f16 decode. Run on the device machine from the checkout root, after
# `source .gpu-bundle/boot.sh`, with the build under test in .h200-speed/dist (vite.cli.config.ts from a
# `git archive` of the commit measured, plus .h200-speed/probe.patch where one is carried) and COMMIT set.
# Flag sets (Dawn toggles of npm webgpu 0.6.2's dawn.node):
#   stock: enable-dawn-features=vulkan_enable_f16_on_nvidia (no allow_unsafe_apis: shader-f16 and subgroups,
#          no subgroup matrices; the toggle is what lets Dawn's Vulkan backend offer shader-f16 on NVIDIA)
#   full:  enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia (+ subgroup matrices)
# Steps: features per flag set (features.txt); per-layer rows at three ANCHORS shapes in f32 and f16 (bench
# conv3dCandidates: direct conv, Winograd variants, ms/TFLOP/s/max|err|/NMSE against the direct conv of the
# same storage); CLI decodes Wan2.1 480x832x81 (--tile none): stock f32 default, stock f16 (auto: Winograd),
# stock f16 --conv winograd (F(2x2)), full f16 default (tensor cores); PSNR of each f16 decode against the
# stock f32 one. Results in $OUT (decode.jsonl, compare.jsonl, rows JSON, features.txt, logs.tgz).
set -u
rm -rf dist && cp -r .h200-speed/dist dist
STOCK=enable-dawn-features=vulkan_enable_f16_on_nvidia
FULL=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown} $(date -u +%FT%TZ)" >> "$OUT/gpu.txt"
for f in none "$STOCK" "$FULL"; do
  node -e 'const { create, globals } = require("webgpu"); Object.assign(globalThis, globals);
    const flags = process.argv[1] === "none" ? [] : [process.argv[1]];
    create(flags).requestAdapter().then((a) => { console.log(process.argv[1] + ": " + [...a.features].sort().join(" ")); process.exit(0); });' "$f" >> "$OUT/features.txt" 2>&1
done
cat "$OUT/features.txt" | cut -c1-400
dec() { # dec NAME FLAGS ARGS...
  local name=$1 fl=$2 t0=$SECONDS
  shift 2
  timeout "${DTMO:-60}" node bin/wan-vae.mjs decode --dawn-flags "$fl" --json --progress off --out /tmp/$name.npy --synthetic 2.1 --latent-size 21x60x104 --tile none "$@" > "$OUT/decode-$name.log" 2>&1
  echo "{\"name\":\"$name\",\"flags\":\"$fl\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "$OUT/decode-$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  echo "$name $(tail -1 "$OUT/decode.jsonl" | grep -o '"seconds":[0-9.]*\|"rc":[0-9]*\|"peakGpuBytes":[0-9]*\|"plannedPeakGpuBytes":[0-9]*\|"firstFrame[A-Za-z]*":[0-9.]*' | tr '\n' ' ')"
}
cmp() {
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(timeout 60 node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-300
}
dec stock-f32 "$STOCK" --precision f32
dec stock-f16-auto "$STOCK" --precision f16
cmp stock-f32 stock-f16-auto
rm -f /tmp/stock-f16-auto.npy
dec stock-f16-wino2 "$STOCK" --precision f16 --conv winograd
cmp stock-f32 stock-f16-wino2
rm -f /tmp/stock-f16-wino2.npy
dec full-f16 "$FULL" --precision f16
cmp stock-f32 full-f16
rm -f /tmp/*.npy
timeout "${ROWS_TMO:-120}" node dist/bench-node.js --dawn-flags "$STOCK,disable-dawn-features=timestamp_quantization" --out "$OUT" --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT} --only conv3d/96ch-480x832-tiled,conv3d/192ch-240x416-tiled,conv3d/384ch-120x208-tiled --runs 5 --tag f16wino > "$OUT/bench-rows.log" 2>&1
echo "rows rc $?"
for f in "$OUT"/h200-*f16wino*.json; do [ -f "$f" ] && node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const x of r.results ?? []) { const e = x.extra ?? {}; const labs = [...new Set(Object.keys(e).filter((k) => /^ms_wino[0-9a-z]*$/.test(k)).map((k) => k.slice(3)))];
    console.log(x.name, x.status, (x.ms?.median ?? 0).toFixed(2) + " ms", labs.map((l) => `${l} ${e["ms_" + l].toFixed(2)} ${(e["tflops_" + l]).toFixed(0)}TF nmse ${(e["nmse_" + l] ?? 0).toExponential(1)} ${["in", "gemm", "out"].map((k) => (e["ms_" + l + "_" + k] ?? 0).toFixed(2)).join("/")}`).join(" | "), x.error ?? "", Object.keys(e).filter((k) => k.startsWith("error_")).map((k) => k + ":" + e[k].slice(0, 80)).join(" ")); }' "$f"; done
rm -f "$OUT"/*.svg
(cd "$OUT" && tar czf /tmp/logs.tgz *.log && rm -f *.log && mv /tmp/logs.tgz .)
ls "$OUT"
