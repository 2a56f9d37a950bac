#!/usr/bin/env bash
# Wan2.1 480x832x81 stock-path decodes (no tensor cores) through wgpu (Deno) and Dawn (Node): time, peak.
# Env: LAT (21x60x104), PRECISIONS ("f32 f16"). Needs .h200-deno/ (bench/h200/pack-deno.sh: the deno binary
# in xz pieces, dist/lib) beside the Node + Dawn bundle and .h200 (build.sh). Transfer, back to back on the warm
# machine (docs/gpu-runs.md): 1 .gpu-bundle/np/node.xz.aa; 2 .gpu-bundle/np/node.xz.ab; 3 .h200-deno/deno.xz.aa;
# 4 .h200-deno/deno.xz.ab; 5 .h200-deno/deno.xz.ac, .h200-deno/lib, .h200-deno/COMMIT; 6 .gpu-bundle/boot.sh,
# .gpu-bundle/dawn.node.xz, .gpu-bundle/debs, .gpu-bundle/webgpu, .h200, with `bash bench/h200/run.sh wgpu`.
# Per engine and precision: a first process (fresh NVIDIA shader cache) and a second (cache warm), each one
# decode of generated official-shape weights (`--synthetic 2.1`, seed 1) -> $OUT/wgpu.jsonl: the decode's
# seconds, peak and planned GPU bytes (the decoder's allocation) and the device's peak memory.used over the
# process (nvidia-smi every 0.2 s, minus the idle value). The wgpu decode runs with the options the Dawn
# decode's plan chose (the CLI's JSON `options`), and the two videos are compared ($OUT/compare.jsonl).
# Dawn runs with the lib's flags $F (its shader-f16 on NVIDIA needs them) and --tensor-cores off: the portable
# kernels on both engines; wgpu offers shader-f16 on NVIDIA without flags and has no subgroup matrices.
L="${LAT:-21x60x104}"
if [ ! -x /tmp/wgpu-deno/deno ]; then
  if ! ls .h200-deno/deno.xz.a? > /dev/null 2>&1; then echo "wgpu: .h200-deno/deno.xz.a? were not carried (bench/h200/pack-deno.sh)" | tee -a "$OUT/skipped.txt"; finish; return 0 2>/dev/null || exit 0; fi
  mkdir -p /tmp/wgpu-deno && cat .h200-deno/deno.xz.a? | xz -dc > /tmp/wgpu-deno/deno && chmod +x /tmp/wgpu-deno/deno
fi
DENO=/tmp/wgpu-deno/deno
export DENO_DIR=/tmp/wgpu-deno/cache DENO_NO_UPDATE_CHECK=1 NO_COLOR=1
echo "deno: $($DENO --version | head -1); lib from $(cat .h200-deno/COMMIT 2>/dev/null || echo '?')" | tee -a "$OUT/gpu.txt"
# the library wgpu-decode.ts imports: dist/lib of the packed commit (run.sh replaced dist/ by .h200/dist)
[ -d .h200-deno/lib ] && rm -rf dist/lib && cp -r .h200-deno/lib dist/lib
_mem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -dc 0-9; }
# wgrow NAME ENGINE CACHE TMO CMD...: CMD under timeout with the NVIDIA shader cache in CACHE, memory.used sampled
wgrow() {
  local n=$1 engine=$2 c=$3 t=$4; shift 4
  late "$n" && return 1
  local idle; idle=$(_mem); idle=${idle:-0}
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" "$@" > "$OUT/logs/$n.log" 2> "$OUT/logs/$n.err" &
  local pid=$! peak=$idle m
  while kill -0 $pid 2> /dev/null; do m=$(_mem); [ -n "$m" ] && [ "$m" -gt "$peak" ] && peak=$m; sleep 0.2; done
  wait $pid; local rc=$?
  local r; r=$(grep '^{' "$OUT/logs/$n.log" | tail -1); [ -z "$r" ] && r=null
  echo "{\"name\":\"$n\",\"engine\":\"$engine\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"deviceMemUsedPeakMiB\":$((peak - idle)),\"result\":$r}" >> "$OUT/wgpu.jsonl"
  echo "== $n rc $rc $((SECONDS - t0)) s, device memory +$((peak - idle)) MiB $(tail -1 "$OUT/wgpu.jsonl" | grep -o '"seconds":[0-9.]*\|"peakGpuBytes":[0-9]*' | tr '\n' ' ')"
  [ $rc -ne 0 ] && tail -3 "$OUT/logs/$n.err"
  return $rc
}
for p in ${PRECISIONS:-f32 f16}; do
  cd_=$(fresh); cw=$(fresh)
  wgrow "dawn-$p-first" dawn "$cd_" 200 node bin/wan-vae.mjs decode --dawn-flags "$F" --json --progress off --synthetic 2.1 --latent-size "$L" --precision "$p" --tensor-cores off --out "/tmp/dawn-$p.npy"
  wgrow "dawn-$p-second" dawn "$cd_" 200 node bin/wan-vae.mjs decode --dawn-flags "$F" --json --progress off --synthetic 2.1 --latent-size "$L" --precision "$p" --tensor-cores off --out /tmp/dawn-2.npy
  rm -f /tmp/dawn-2.npy
  opts=$(grep '^{' "$OUT/logs/dawn-$p-first.log" | tail -1 | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(JSON.stringify(JSON.parse(s).options))}catch{}})')
  [ -z "$opts" ] && opts="{\"precision\":\"$p\",\"tensorCores\":false}"
  wgrow "wgpu-$p-first" wgpu "$cw" 240 $DENO run --unstable-webgpu --allow-read --allow-write --allow-env bench/h200/wgpu-decode.ts --latent-size "$L" --runs 1 --options "$opts" --out "/tmp/wgpu-$p.npy"
  wgrow "wgpu-$p-second" wgpu "$cw" 240 $DENO run --unstable-webgpu --allow-read --allow-write --allow-env bench/h200/wgpu-decode.ts --latent-size "$L" --runs 1 --options "$opts"
  [ -f "/tmp/dawn-$p.npy" ] && [ -f "/tmp/wgpu-$p.npy" ] && cmp "dawn-$p" "wgpu-$p"
  rm -f "/tmp/dawn-$p.npy" "/tmp/wgpu-$p.npy"
done
finish
