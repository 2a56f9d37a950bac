#!/usr/bin/env bash
# f16 tensor-core decode times, cold and warm (bench-node --timing), the CLI itself, profiles, full-size fidelity; A/B against a base build.
# STEPS (default "timing cli"):
#   timing   bench-node --timing: Wan2.2 704x1280x121, Wan2.1 480x832x81, the same under --budget 1536, Wan2.1
#            720x1280x81, Wan2.2 one latent frame with --prep js and --prep gpu
#   cli      the CLI, cold: Wan2.1 f16, Wan2.2 f16, Wan2.1 with no flag (f32)
#   ab       Wan2.1 480x832x81 f16 CLI decodes (--json seconds) of the build in .h200/base/dist (a git archive of
#            the base commit built as bench/h200/build.sh does, .h200/base/COMMIT) and of this one, alternating,
#            each with its own shader cache: empty, then filled; the two empty-cache outputs compared
#            (AB720=1: then Wan2.1 720x1280x81 the same way, both filled twice, the outputs compared)
#   prof     bench-node --profile (one timed pass per dispatch) of Wan2.1 480x832x81 f16, tensor cores, norm fused
#            (PROF22=N: Wan2.2 704x1280 with N latents too)
#   w22      Wan2.2 704x1280x121 f16 CLI decodes, empty then filled shader cache
#   fullsize the official fp32 decode (TF32 off) of Wan2.1 21x60x104 against this build's f16 decode
#            (../shared/gpu/fullsize-check.py; .h200/speed as bench/h200/scenarios/speed.sh's header builds it);
#            FS_LATENT=21x90x160: at 720x1280x81 instead (where the attention splits its keys)
# Dry run: W21=2x2x3 W22=1x2x2 W720=2x2x4 W22ONE=1x2x2 SKIPBOOT=1.
W21=${W21:-21x60x104} W22=${W22:-31x44x80} W720=${W720:-21x90x160} W22ONE=${W22ONE:-1x44x80}
S=" ${STEPS:-timing cli} "
SP=.h200/speed
C=$(fresh)
if [[ $S == *" timing "* ]]; then
  tim wan22 150 "$C" --model 2.2 --latent "$W22" --precision f16
  tim wan21 60 "$C" --model 2.1 --latent "$W21" --precision f16
  tim wan21-budget1536 60 "$C" --model 2.1 --latent "$W21" --precision f16 --budget 1536
  tim wan21-720p 90 "$C" --model 2.1 --latent "$W720" --precision f16
  tim wan22-1frame-js 90 "$C" --model 2.2 --latent "$W22ONE" --precision f16 --repeat 1 --prep js
  tim wan22-1frame-gpu 60 "$C" --model 2.2 --latent "$W22ONE" --precision f16 --repeat 1 --prep gpu
fi
if [[ $S == *" cli "* ]]; then
  cli wan21 60 "$C" --synthetic 2.1 --latent-size "$W21" --precision f16
  cli wan22 120 "$C" --synthetic 2.2 --latent-size "$W22" --precision f16
  cli wan21-default-f32 60 "$C" --synthetic 2.1 --latent-size "$W21"
fi
if [[ $S == *" ab "* ]] && [ -d .h200/base/dist ]; then
  L="--synthetic 2.1 --latent-size $W21 --precision f16"
  CB=$(fresh)
  CN=$(fresh)
  swap() { rm -rf dist && cp -r "$1" dist; }
  swap .h200/base/dist && __GL_SHADER_DISK_CACHE_PATH=$CB dec ab-base-empty 60 $L
  swap .h200/dist && __GL_SHADER_DISK_CACHE_PATH=$CN dec ab-new-empty 60 $L
  cmp ab-base-empty ab-new-empty
  rm -f /tmp/ab-*.npy
  swap .h200/base/dist && __GL_SHADER_DISK_CACHE_PATH=$CB dec ab-base-filled 60 $L
  swap .h200/dist && __GL_SHADER_DISK_CACHE_PATH=$CN dec ab-new-filled 60 $L
  rm -f /tmp/ab-*.npy
  if [ -n "${AB720:-}" ]; then
    L="--synthetic 2.1 --latent-size $W720 --precision f16"
    for r in 1 2; do
      swap .h200/base/dist && __GL_SHADER_DISK_CACHE_PATH=$CB dec ab720-base-r$r 90 $L
      swap .h200/dist && __GL_SHADER_DISK_CACHE_PATH=$CN dec ab720-new-r$r 90 $L
    done
    cmp ab720-base-r2 ab720-new-r2
    rm -f /tmp/ab720-*.npy
  fi
fi
if [[ $S == *" prof "* ]]; then
  prof w21-tc-f16 90 "$C" --model 2.1 --latent "$W21" --precision f16 --tensor-cores on --norm fused
  [ -n "${PROF22:-}" ] && prof w22-tc-f16 120 "$C" --model 2.2 --latent "${PROF22}x44x80" --precision f16 --tensor-cores on --norm fused
fi
if [[ $S == *" w22 "* ]]; then
  C22=$(fresh)
  cli w22-tc-f16-empty 120 "$C22" --synthetic 2.2 --latent-size "$W22" --precision f16
  cli w22-tc-f16-filled 120 "$C22" --synthetic 2.2 --latent-size "$W22" --precision f16
fi
if [[ $S == *" fullsize "* ]] && [ -f $SP/fullsize-check.py ] && ! late fullsize; then
  python3 -c 'import einops' 2> /dev/null || {
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $SP/whl/*.whl > "$OUT/logs/pip.log" 2>&1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  }
  d=/tmp/fs21
  IFS=x read -r T H W <<< "${FS_LATENT:-$W21}"
  WAN_REF_DIR=$SP/wan-ref timeout 300 python3 $SP/fullsize-check.py make 2.1 "$T" "$H" "$W" $d >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/fullsize-make.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  dec fs21-tc-f16 180 --weights $d/w.safetensors --latents $d/z.npy --latent-stats none --precision f16 \
    && timeout 90 python3 $SP/fullsize-check.py cmp $d/ref.npy /tmp/fs21-tc-f16.npy wan2.1-tc-f16-${FS_LATENT:-$W21} >> "$OUT/pytorch.jsonl" 2>> "$OUT/logs/fullsize-cmp.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  rm -rf $d /tmp/fs21-tc-f16.npy
fi
cat "$OUT/decode.jsonl" "$OUT/cli.jsonl" 2> /dev/null | grep -o '"name":"[^"]*"\|"seconds":[0-9.]*\|"peakGpuBytes":[0-9]*' | paste -sd' ' | sed 's/"name"/\n"name"/g'
(cd "$OUT" && ls profile-* > /dev/null 2>&1 && tar -czf profiles.tar.gz profile-* && rm -f profile-*)
finish
