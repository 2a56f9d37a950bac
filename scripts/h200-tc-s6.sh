#!/usr/bin/env bash
# Session 6 (2026-12-01), issue 11 (tc): the decode times of the #11 targets after the GPU weight
# preparation (src/runtime/exec/weights.ts prepareBlockedWeights), cold and warm, on the H200.
# Device recipe (scripts/h200-run.sh header): dist built from `git archive <sha>` into .h200-tc/dist;
# call 1 carries [".gpu-bundle/np/node.xz.aa"] with a trivial command, call 2 at once carries
# [".gpu-bundle/np/node.xz.ab", ".gpu-bundle/boot.sh", ".gpu-bundle/dawn.node.xz", ".gpu-bundle/debs",
# ".gpu-bundle/webgpu", ".h200-tc"] and runs `cat .gpu-bundle/np/node.xz.aa .gpu-bundle/np/node.xz.ab >
# .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-tc/dist dist && COMMIT=<sha> bash scripts/h200-tc-s6.sh`.
# Steps, most wanted first; each under `timeout`, and none starts after STOP_AFTER seconds (device share):
#   timing (node dist/bench-node.js --timing: the CLI's plan for the same flags, decodes 1 (cold: build +
#   decode, phase split) and 2 (warm, same decoder) in one process; weight generation timed apart):
#   Wan2.2 704x1280x121, Wan2.1 480x832x81 (flags as the CLI default but --precision f16: the schema's
#   default precision is f32, the portable path), the same under --budget 1536, Wan2.1 720x1280x81;
#   Wan2.2 one latent frame with --prep js and --prep gpu (the weight preparation before / after);
#   then the CLI itself, cold (what a user runs): Wan2.1 f16, Wan2.2 f16, Wan2.1 with no flag at all (f32).
# Results in $OUT: timing.jsonl, cli.jsonl, gpu.txt, logs.tar.gz (every raw log).
# Local dry run (lavapipe, tiny): W21=2x2x3 W22=1x2x2 W720=2x2x4 W22ONE=1x2x2 OUT=/tmp/o bash scripts/h200-tc-s6.sh
set -u
[ -f .gpu-bundle/node.xz ] && source .gpu-bundle/boot.sh > "$OUT/boot.log" 2>&1
F=${DAWN_FLAGS:-enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia}
W21=${W21:-21x60x104}
W22=${W22:-31x44x80}
W720=${W720:-21x90x160}
W22ONE=${W22ONE:-1x44x80}
STOP_AFTER=${STOP_AFTER:-300}
mkdir -p "$OUT/logs"
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi") > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown} $(date -u +%FT%TZ)" >> "$OUT/gpu.txt"
late() { [ "$SECONDS" -ge "$STOP_AFTER" ] && echo "skipped $1: $SECONDS s > STOP_AFTER $STOP_AFTER" | tee -a "$OUT/skipped.txt"; }
tim() { # name, timeout, bench --timing args...
  local n=$1 t=$2; shift 2
  late "$n" && return
  local t0=$SECONDS
  timeout "$t" node dist/bench-node.js --timing --dawn-flags "$F" "$@" > "$OUT/logs/timing-$n.log" 2>&1
  local rc=$?
  grep '^{' "$OUT/logs/timing-$n.log" | sed "s/^{/{\"name\":\"$n\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),/" >> "$OUT/timing.jsonl"
  [ "$rc" = 0 ] || echo "{\"name\":\"$n\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"tail\":$(tail -3 "$OUT/logs/timing-$n.log" | node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0,"utf8")))')}" >> "$OUT/timing.jsonl"
  echo "timing $n rc $rc $((SECONDS - t0)) s"
}
cli() { # name, timeout, CLI decode args...
  local n=$1 t=$2; shift 2
  late "$n" && return
  local t0=$SECONDS
  timeout "$t" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --progress off --out /tmp/v.npy "$@" > "$OUT/logs/cli-$n.log" 2>&1
  local rc=$?
  echo "{\"name\":\"$n\",\"args\":\"$*\",\"rc\":$rc,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "$OUT/logs/cli-$n.log" | grep '^{' || echo null)}" >> "$OUT/cli.jsonl"
  rm -f /tmp/v.npy
  echo "cli $n rc $rc $((SECONDS - t0)) s"
}
tim wan22 150 --model 2.2 --latent "$W22" --precision f16
tim wan21 60 --model 2.1 --latent "$W21" --precision f16
tim wan21-budget1536 60 --model 2.1 --latent "$W21" --precision f16 --budget 1536
tim wan21-720p 90 --model 2.1 --latent "$W720" --precision f16
tim wan22-1frame-js 90 --model 2.2 --latent "$W22ONE" --precision f16 --repeat 1 --prep js
tim wan22-1frame-gpu 60 --model 2.2 --latent "$W22ONE" --precision f16 --repeat 1 --prep gpu
cli wan21 60 --synthetic 2.1 --latent-size "$W21" --precision f16
cli wan22 120 --synthetic 2.2 --latent-size "$W22" --precision f16
cli wan21-default-f32 60 --synthetic 2.1 --latent-size "$W21"
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
echo "done in $SECONDS s"
