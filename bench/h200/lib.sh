# bench/h200/lib.sh: the steps scenarios share (sourced by bench/h200/run.sh; docs/gpu-runs.md).
# Every step runs under `timeout`, appends one JSON line to a file under $OUT and prints a short summary.
#   dec NAME TMO ARGS...      CLI decode (`wan-vae decode --json`) into /tmp/NAME.npy -> $OUT/decode.jsonl
#   cmp REF NAME              max |err| and PSNR of /tmp/NAME.npy against /tmp/REF.npy -> $OUT/compare.jsonl
#   cli NAME TMO CACHE ARGS.. CLI decode with the NVIDIA driver's shader cache in CACHE, output dropped -> $OUT/cli.jsonl
#   tim NAME TMO CACHE ARGS.. bench-node --timing (cold build + decode, then warm decodes) -> $OUT/timing.jsonl
#   prof NAME TMO CACHE ARGS. bench-node --profile (per-layer GPU time) -> $OUT/profile-NAME.{md,json}
#   rows TAG TMO ARGS...      bench-node kernel rows (--only ...) -> $OUT/h200-<date>-TAG.{json,md}
#   late NAME                 true (and noted in $OUT/skipped.txt) once STOP_AFTER seconds have passed
#   fresh                     a new empty shader-cache directory ("fresh" = a first run on the machine)
#   finish                    tars $OUT/logs into logs.tar.gz (what comes back: docs/gpu-runs.md)
# Dawn flags: F (shader-f16 + subgroup matrices on NVIDIA), FQ (F, timestamps not quantized: kernel rows),
# FP (the same for bench/profile.ts, which splits its --dawn-flags on spaces). Decodes use generated
# official-shape weights (--synthetic / --model); their generation is outside every reported time.
F=${DAWN_FLAGS:-enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia}
FQ="$F,disable-dawn-features=timestamp_quantization"
FP="$F disable-dawn-features=timestamp_quantization"
STOP_AFTER=${STOP_AFTER:-480}
mkdir -p "$OUT/logs"
(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi") > "$OUT/gpu.txt"
echo "commit ${COMMIT:-unknown} $(date -u +%FT%TZ) $(nproc) cpus$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" >> "$OUT/gpu.txt"
BENCH="node dist/bench-node.js"
[ -f dist/bench-node.js ] || echo "note: dist/bench-node.js is missing (bench/h200/build.sh builds it): kernel rows, timing and profiles will fail" >&2
late() { [ "$SECONDS" -ge "$STOP_AFTER" ] && echo "skipped $1: $SECONDS s > STOP_AFTER $STOP_AFTER" | tee -a "$OUT/skipped.txt"; }
fresh() { mktemp -d /tmp/nvcache.XXXX; }
_line() { # _line FILE NAME RC T0 ARGS LOG: the step's JSON line (its log's last JSON line as "result")
  local file=$1 n=$2 rc=$3 t0=$4 args=$5 log=$6
  echo "{\"name\":\"$n\",\"args\":\"$args\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "$log" | grep '^{' || echo null)}" >> "$OUT/$file"
}
dec() {
  local n=$1 t=$2; shift 2
  late "$n" && return 1
  local t0=$SECONDS
  timeout "$t" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --progress off --out "/tmp/$n.npy" "$@" > "$OUT/logs/dec-$n.log" 2>&1
  local rc=$?
  _line decode.jsonl "$n" $rc $t0 "$*" "$OUT/logs/dec-$n.log"
  echo "== $n rc $rc $((SECONDS - t0)) s $(tail -1 "$OUT/decode.jsonl" | grep -o '"seconds":[0-9.]*\|"peakGpuBytes":[0-9]*\|"plannedPeakGpuBytes":[0-9]*' | tr '\n' ' ')"
  return $rc
}
cmp() {
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(timeout 90 node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-300
}
cli() {
  local n=$1 t=$2 c=$3; shift 3
  late "$n" && return 1
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --progress off --out /tmp/cli.npy "$@" > "$OUT/logs/cli-$n.log" 2> "$OUT/logs/cli-$n.err"
  local rc=$?
  _line cli.jsonl "$n" $rc $t0 "$*" "$OUT/logs/cli-$n.log"
  rm -f /tmp/cli.npy
  echo "== cli $n rc $rc $((SECONDS - t0)) s"
  return $rc
}
tim() {
  local n=$1 t=$2 c=$3; shift 3
  late "$n" && return 1
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" $BENCH --timing --dawn-flags "$F" "$@" > "$OUT/logs/timing-$n.log" 2>&1
  local rc=$?
  grep '^{' "$OUT/logs/timing-$n.log" | sed "s/^{/{\"name\":\"$n\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),/" >> "$OUT/timing.jsonl"
  [ "$rc" = 0 ] || echo "{\"name\":\"$n\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"tail\":$(tail -3 "$OUT/logs/timing-$n.log" | node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0,"utf8")))')}" >> "$OUT/timing.jsonl"
  echo "== timing $n rc $rc $((SECONDS - t0)) s"
}
prof() {
  local n=$1 t=$2 c=$3; shift 3
  late "$n" && return 1
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" $BENCH --profile --dawn-flags "$FP" --out "$OUT" ${COMMIT:+--commit $COMMIT} --name "profile-$n" "$@" > "$OUT/logs/profile-$n.log" 2>&1
  echo "== profile $n rc $? $((SECONDS - t0)) s"
  grep -E "CPU weight|plain decode|profiled decode|^\| (conv|norm|attn|output|dupadd|crop) \||total GPU" "$OUT/logs/profile-$n.log" | head -12 | cut -c1-160
}
rows() {
  local tag=$1 t=$2; shift 2
  late "rows-$tag" && return 1
  timeout "$t" $BENCH --dawn-flags "$FQ" --out "$OUT" --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT} --tag "$tag" "$@" > "$OUT/logs/rows-$tag.log" 2>&1
  echo "== rows $tag rc $?"
  grep -E "ms \(p10|failed|Error" "$OUT/logs/rows-$tag.log" | cut -c1-200 | head -20
  rm -f "$OUT"/*.svg
}
finish() {
  [ -d "$OUT/logs" ] && tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
  echo "done in $SECONDS s"; ls "$OUT"
}
