#!/usr/bin/env bash
# Session 7 (2026-12-01), issue 11 (startup): where the cold start of a decode goes and the head /
# attention kernels, on the H200. Device recipe (scripts/h200-run.sh header): dist built from
# `git archive <sha>` into .h200-startup/dist; call 1 carries [".gpu-bundle/np/node.xz.aa"] with a trivial
# command, call 2 at once carries [".gpu-bundle/np/node.xz.ab", ".gpu-bundle/boot.sh", ".gpu-bundle/dawn.node.xz",
# ".gpu-bundle/debs", ".gpu-bundle/webgpu", ".h200-startup"] and runs `cat .gpu-bundle/np/node.xz.aa
# .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-startup/dist dist &&
# COMMIT=<sha> bash scripts/h200-startup-s7.sh`.
# The NVIDIA driver keeps compiled pipelines in a disk cache across processes (__GL_SHADER_DISK_CACHE_PATH):
# a "fresh" step gets an empty cache directory (a user's first run on the machine), a "cached" step the
# directory of an earlier step of the same build (every later run).
# Steps, most wanted first; each under `timeout`, none starts after STOP_AFTER seconds (device share):
#   timing (node dist/bench-node.js --timing: the CLI's plan for the same flags, decode 1 cold = build +
#   decode with the build's phase split, decode 2 warm on the same decoder, weight generation apart):
#     port-f32       Wan2.1 480x832x81 f32 --tensor-cores off (portable), fresh cache, cold + warm
#     port-f32-js    the same with --prep js (the JS weight packing this session replaced), cold only, fresh cache
#     tc-f16         Wan2.1 480x832x81 --precision f16 (tensor cores), fresh cache, cold + warm
#   cli (bin/wan-vae.mjs decode --json, what a user runs): port-f32 fresh and cached, tc-f16 cached
#   profile (bench-node --profile: per-layer GPU time; head.2 and middle.1.attn rows): f32 portable, f16 tc
#   wan22 (timing, cold only): Wan2.2 704x1280x121 f16 tensor cores, fresh cache
#   attention-row: bench-node --only attention (the kernel alone at c 384, N 6240; f32 and f16 storage)
# Results in $OUT: timing.jsonl, cli.jsonl, profile-*.md/json, gpu.txt, logs.tar.gz (every raw log).
# `STOP_AFTER=300 bash scripts/h200-startup-s7.sh final`: the lead's last call (user-facing decodes of the final HEAD, see below).
# `bash scripts/h200-startup-s7.sh attn-ab`: the attention A/B (shipped vs bench/probes/attention-blocked64.wgsl; carries .h200-startup/dist-s6attn too).
# Local dry run (lavapipe, tiny): W21=2x2x3 W22=1x2x2 OUT=/tmp/o bash scripts/h200-startup-s7.sh
set -u
[ -f .gpu-bundle/node.xz ] && source .gpu-bundle/boot.sh > "$OUT/boot.log" 2>&1
F=${DAWN_FLAGS:-enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia}
FP="$F disable-dawn-features=timestamp_quantization" # bench/profile.ts splits its --dawn-flags on spaces
W21=${W21:-21x60x104}
W22=${W22:-31x44x80}
STOP_AFTER=${STOP_AFTER:-170}
mkdir -p "$OUT/logs"
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi") > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown} $(date -u +%FT%TZ) $(nproc) cpus $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" >> "$OUT/gpu.txt"
late() { [ "$SECONDS" -ge "$STOP_AFTER" ] && echo "skipped $1: $SECONDS s > STOP_AFTER $STOP_AFTER" | tee -a "$OUT/skipped.txt"; }
fresh() { mktemp -d /tmp/nvcache.XXXX; }
CACHE=$(fresh) # the "cached" steps' driver cache: filled by the first port-f32 CLI run
tim() { # name, timeout, cache dir, bench --timing args...
  local n=$1 t=$2 c=$3; shift 3
  late "$n" && return
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" node dist/bench-node.js --timing --dawn-flags "$F" "$@" > "$OUT/logs/timing-$n.log" 2>&1
  local rc=$?
  grep '^{' "$OUT/logs/timing-$n.log" | sed "s/^{/{\"name\":\"$n\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),/" >> "$OUT/timing.jsonl"
  [ "$rc" = 0 ] || echo "{\"name\":\"$n\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"tail\":$(tail -3 "$OUT/logs/timing-$n.log" | node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0,"utf8")))')}" >> "$OUT/timing.jsonl"
  echo "timing $n rc $rc $((SECONDS - t0)) s"
}
cli() { # name, timeout, cache dir, CLI decode args...
  local n=$1 t=$2 c=$3; shift 3
  late "$n" && return
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --progress off --out /tmp/v.npy "$@" > "$OUT/logs/cli-$n.log" 2> "$OUT/logs/cli-$n.err"
  local rc=$?
  echo "{\"name\":\"$n\",\"args\":\"$*\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "$OUT/logs/cli-$n.log" | grep '^{' || echo null)}" >> "$OUT/cli.jsonl"
  rm -f /tmp/v.npy
  echo "cli $n rc $rc $((SECONDS - t0)) s"
}
prof() { # name, timeout, cache dir, profile args...
  local n=$1 t=$2 c=$3; shift 3
  late "$n" && return
  local t0=$SECONDS
  __GL_SHADER_DISK_CACHE_PATH=$c timeout "$t" node dist/bench-node.js --profile --dawn-flags "$FP" --out "$OUT" ${COMMIT:+--commit $COMMIT} --name "profile-$n" "$@" > "$OUT/logs/profile-$n.log" 2>&1
  echo "profile $n rc $? $((SECONDS - t0)) s"
  grep -E "plain decode|^\| (decoder.head.2|decoder.middle.1.attn|attention|conv3d-head|rms-norm) " "$OUT/logs/profile-$n.log" | head -8 | cut -c1-160
}
L21="--model 2.1 --latent $W21"
if [ "${1:-}" = attn-ab ]; then
  # the attention kernel alone, the shipped shader (session 6's, in .h200-startup/dist-s6attn) against the
  # candidate bench/probes/attention-blocked64.wgsl copied over shaders/attention.wgsl in a build into
  # .h200-startup/dist, same lease; then the candidate's cold CLI decode (portable f32). Not run in session 7:
  # the second call pair did not fit the device share.
  for d in dist-s6attn dist; do
    rm -rf dist.run && cp -r .h200-startup/$d dist.run && rm -rf dist && mv dist.run dist
    timeout 60 node dist/bench-node.js --dawn-flags "$F,disable-dawn-features=timestamp_quantization" --out "$OUT" --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT} --only attention --runs 20 --tag "attn-$d" > "$OUT/logs/bench-attention-$d.log" 2>&1
    echo "attention $d rc $?"; grep -E "attention/n" "$OUT/logs/bench-attention-$d.log" | head -2 | cut -c1-160
  done
  cli port-f32-fresh 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f32 --tensor-cores off
  tail -c 400 "$OUT/cli.jsonl"
  tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
  exit 0
fi
if [ "${1:-}" = final ]; then
  # the lead's last call of session 7 (STOP_AFTER=300): the final HEAD's user-facing decodes, after the
  # Winograd (--conv auto), int8-on-tensor-cores and start-up changes; then the attention A/B rows where
  # .h200-startup/{dist,dist-s6attn} were carried (kernel rows only, no dist swap).
  cli default-fresh 40 "$CACHE" --synthetic 2.1 --latent-size "$W21"
  cli default-cached 40 "$CACHE" --synthetic 2.1 --latent-size "$W21"
  cli tc-f16-cached 30 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f16
  tim tc-f16 40 "$(fresh)" $L21 --precision f16 --repeat 2
  tim port-f32 40 "$CACHE" $L21 --precision f32 --tensor-cores off --repeat 2
  cli int8-tc-cached 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --weights-precision int8 --precision f16
  tim wan22 70 "$CACHE" --model 2.2 --latent "$W22" --precision f16 --repeat 1
  for d in dist-s6attn dist; do
    [ -f .h200-startup/$d/bench-node.js ] || continue; late "attention-$d" && break
    timeout 40 node .h200-startup/$d/bench-node.js --dawn-flags "$F,disable-dawn-features=timestamp_quantization" --out "$OUT" --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT} --only attention --runs 20 --tag "attn-$d" > "$OUT/logs/bench-attention-$d.log" 2>&1
    echo "attention $d rc $?"; grep -E "attention/" "$OUT/logs/bench-attention-$d.log" | head -2 | cut -c1-160
  done
  tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
  echo "done in $SECONDS s"; exit 0
fi
tim port-f32 60 "$(fresh)" $L21 --precision f32 --tensor-cores off --repeat 2
cli port-f32-fresh 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f32 --tensor-cores off
cli port-f32-cached 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f32 --tensor-cores off
tim tc-f16 40 "$(fresh)" $L21 --precision f16 --repeat 2
prof wan2.1-f32-portable 60 "$CACHE" $L21 --precision f32 --tensor-cores off
tim port-f32-js 40 "$(fresh)" $L21 --precision f32 --tensor-cores off --repeat 1 --prep js
cli tc-f16-cached 30 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f16
tim wan22 70 "$(fresh)" --model 2.2 --latent "$W22" --precision f16 --repeat 1
if ! late attention-row; then # the attention kernel alone at Wan2.1's middle (c 384, N 6240), f32 and f16 storage
  timeout 60 node dist/bench-node.js --dawn-flags "$F,disable-dawn-features=timestamp_quantization" --out "$OUT" --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT} --only attention --runs 20 --tag attn > "$OUT/logs/bench-attention.log" 2>&1
  echo "attention row rc $?"; grep -E "attention/" "$OUT/logs/bench-attention.log" | head -4 | cut -c1-200
fi
prof wan2.1-f16-tc 40 "$CACHE" $L21 --precision f16 --tensor-cores on --norm fused
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
echo "done in $SECONDS s"
