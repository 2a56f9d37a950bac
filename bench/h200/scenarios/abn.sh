#!/usr/bin/env bash
# N builds side by side: CLI decodes (--json seconds) of each build in .h200/ab/NAME/dist, alternating, each build with its own shader cache (empty, then filled), and a profile of each.
# The builds: `bash bench/h200/build.sh COMMIT --into .h200/ab/NAME` for every NAME of AB (default: every folder
# under .h200/ab, sorted); .h200/ab/NAME/COMMIT says which commit it is. Rounds alternate the builds (A B C A B C ...)
# so that a drift of the machine falls on all of them alike. A device call that carries .h200/ab.tar.xz instead
# (`tar cJf .h200/ab.tar.xz -C .h200 ab`: ~0.5 MB for three builds, 2.5 MB each unpacked) has it unpacked here. STEPS (default "empty filled prof"):
#   empty   one decode per build with a new shader cache (the compile cost included); outputs compared with the first build's
#   filled  ROUNDS (default 3) more decodes per build, the cache of its empty run filled
#   prof    bench-node --profile of each build (one timed pass per dispatch; PROF_ARGS, default the tc decode's flags)
#   fullsize the official fp32 decode (TF32 off) of Wan2.1 21x60x104 made once (../shared/gpu/fullsize-check.py;
#           .h200/speed as bench/h200/scenarios/speed.sh's header builds it), then the f16 decode of each build in
#           FS_BUILDS compared with it (default: the build with the lowest median filled time, decode.jsonl) -> pytorch.jsonl;
#           FS_LATENT=21x90x160: at 720x1280x81 instead
# ARGS: the decode (default Wan2.1 480x832x81 f16, tensor cores where the adapter has them).
# Dry run: W21=2x2x3 SKIPBOOT=1 (lavapipe; F= a flag set lavapipe takes, e.g. DAWN_FLAGS=enable-dawn-features=allow_unsafe_apis).
W21=${W21:-21x60x104}
S=" ${STEPS:-empty filled prof} "
ROUNDS=${ROUNDS:-3}
ARGS=${ARGS:---synthetic 2.1 --latent-size $W21 --precision f16}
PROF_ARGS=${PROF_ARGS:---model 2.1 --latent $W21 --precision f16 --tensor-cores on --norm fused}
[ -d .h200/ab ] || { [ -f .h200/ab.tar.xz ] && tar xJf .h200/ab.tar.xz -C .h200; }
names=${AB:-$(ls .h200/ab 2> /dev/null | sort)}
[ -n "$names" ] || { echo "abn: no builds under .h200/ab (bench/h200/build.sh COMMIT --into .h200/ab/NAME)" >&2; return 1 2> /dev/null || exit 1; }
declare -A CACHE
for n in $names; do
  [ -d .h200/ab/$n/dist ] || { echo "abn: .h200/ab/$n/dist is missing" >&2; continue; }
  CACHE[$n]=$(fresh)
  echo "$n $(cat .h200/ab/$n/COMMIT 2> /dev/null)" >> "$OUT/builds.txt"
done
swap() { rm -rf dist && cp -r ".h200/ab/$1/dist" dist; }
first=
if [[ $S == *" empty "* ]]; then
  for n in $names; do
    swap "$n" && __GL_SHADER_DISK_CACHE_PATH=${CACHE[$n]} dec "ab-$n-empty" 90 $ARGS
    if [ -z "$first" ]; then first=$n; else cmp "ab-$first-empty" "ab-$n-empty"; rm -f "/tmp/ab-$n-empty.npy"; fi
  done
  rm -f /tmp/ab-*.npy
fi
if [[ $S == *" filled "* ]]; then
  for r in $(seq 1 "$ROUNDS"); do
    for n in $names; do swap "$n" && __GL_SHADER_DISK_CACHE_PATH=${CACHE[$n]} dec "ab-$n-filled-$r" 90 $ARGS; rm -f /tmp/ab-*.npy; done
  done
fi
if [[ $S == *" prof "* ]]; then
  for n in $names; do
    swap "$n" && COMMIT=$(cat .h200/ab/$n/COMMIT 2> /dev/null || echo "$n") prof "ab-$n" 120 "${CACHE[$n]}" $PROF_ARGS
  done
fi
SP=.h200/speed
if [[ $S == *" fullsize "* ]] && [ -f $SP/fullsize-check.py ] && ! late fullsize; then
  fs=${FS_BUILDS:-$(node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const by = {}; for (const r of rows) { const m = /^ab-(.+)-filled-\d+$/.exec(r.name); if (m && r.rc === 0 && r.result) (by[m[1]] ??= []).push(r.result.seconds); }
    const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    console.log(Object.keys(by).sort((a, b) => med(by[a]) - med(by[b]))[0] ?? "");' "$OUT/decode.jsonl" 2> /dev/null)}
  echo "fullsize: $fs"
  python3 -c 'import einops' 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $SP/whl/*.whl > "$OUT/logs/pip.log" 2>&1; export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}; }
  d=/tmp/fs21
  IFS=x read -r T H W <<< "${FS_LATENT:-21x60x104}"
  WAN_REF_DIR=$SP/wan-ref timeout 300 python3 $SP/fullsize-check.py make 2.1 "$T" "$H" "$W" $d >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/fullsize-make.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  for n in $fs; do
    swap "$n" && dec "fs21-$n" 180 --weights $d/w.safetensors --latents $d/z.npy --latent-stats none --precision f16 \
      && timeout 120 python3 $SP/fullsize-check.py cmp $d/ref.npy "/tmp/fs21-$n.npy" "wan2.1-f16-$n-${FS_LATENT:-21x60x104}" >> "$OUT/pytorch.jsonl" 2>> "$OUT/logs/fullsize-cmp.err"
    tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
    rm -f "/tmp/fs21-$n.npy"
  done
  rm -rf $d
fi
# what the runner's later steps expect in dist/: this build's own
[ -d .h200/dist ] && rm -rf dist && cp -r .h200/dist dist
finish
