#!/usr/bin/env bash
# Winograd F(2x2,3x3) on tensor cores (--conv winograd with subgroup matrices) against conv3d-mma: profiles, CLI decodes, full-size fidelity.
# Build (development machine, checkout root): a `git archive` of the commit into .h200-wm/ (listed in .git/info/exclude):
#   tmp=$(mktemp -d); git archive <commit> | tar -x -C $tmp; ln -s $PWD/node_modules $tmp/node_modules
#   (cd $tmp && npx vite build --config vite.cli.config.ts); mkdir -p .h200-wm && cp -r $tmp/dist .h200-wm/ && echo <commit> > .h200-wm/COMMIT
#   cp -r .h200/speed .h200-wm/speed     # fullsize-check.py, wan-ref/vae21.py, whl/ (bench/h200/scenarios/speed.sh's header)
# Carry ".h200-wm" with the bundle (docs/gpu-runs.md); run: OUT=... COMMIT=<commit> bash bench/h200/run.sh winograd-mma
# STEPS (default "profile w21 w22 w720 fullsize"): profile = bench-node --profile of Wan2.1 480x832 (LATP latents, default 5)
# with each form (PROF22=N: Wan2.2 704x1280 with N latents too); w21 / w22 / w720 = CLI decodes (--json seconds) of Wan2.1 480x832x81, Wan2.2 704x1280x121, Wan2.1 720x1280x81,
# the direct form (conv3d-mma) and --conv winograd, each Wan2.1 decode twice (the second with the driver's shader cache filled),
# the two outputs compared; fullsize = the official fp32 decode (TF32 off) of Wan2.1 21x60x104 against --conv winograd.
if [ -d .h200-wm/dist ]; then rm -rf dist && cp -r .h200-wm/dist dist; fi
S=" ${STEPS:-profile w21 w22 w720 fullsize} "
SP=.h200-wm/speed
W=--conv\ winograd
if [[ $S == *" profile "* ]]; then
  PC=$(fresh)
  # (bench/profile.ts runs the portable kernels unless --tensor-cores on: the 2026-12-02 call at 31fac9c lacked it)
  prof w21-mma 90 "$PC" --model 2.1 --latent ${LATP:-5}x60x104 --precision f16 --tensor-cores on --norm fused --conv direct
  prof w21-wino 90 "$PC" --model 2.1 --latent ${LATP:-5}x60x104 --precision f16 --tensor-cores on --norm fused $W
  [ -n "${PROF22:-}" ] && prof w22-mma 120 "$PC" --model 2.2 --latent ${PROF22}x44x80 --precision f16 --tensor-cores on --norm fused --conv direct
  [ -n "${PROF22:-}" ] && prof w22-wino 120 "$PC" --model 2.2 --latent ${PROF22}x44x80 --precision f16 --tensor-cores on --norm fused $W
fi
if [[ $S == *" w21 "* ]]; then
  L="--synthetic 2.1 --latent-size 21x60x104 --precision f16"
  dec w21-mma-1 60 $L --conv direct; dec w21-mma 60 $L --conv direct
  dec w21-wino-1 60 $L $W; dec w21-wino 60 $L $W
  cmp w21-mma w21-wino
  rm -f /tmp/w21-*.npy
fi
if [[ $S == *" w22 "* ]]; then
  L="--synthetic 2.2 --latent-size 31x44x80 --precision f16"
  dec w22-mma 120 $L --conv direct; dec w22-wino 120 $L $W
  cmp w22-mma w22-wino
  rm -f /tmp/w22-*.npy
fi
if [[ $S == *" w720 "* ]]; then
  L="--synthetic 2.1 --latent-size 21x90x160 --precision f16"
  dec w720-mma 90 $L --conv direct; dec w720-wino 90 $L $W
  rm -f /tmp/w720-*.npy
fi
if [[ $S == *" fullsize "* ]] && [ -f $SP/fullsize-check.py ] && ! late fullsize; then
  python3 -c 'import einops' 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $SP/whl/*.whl > "$OUT/logs/pip.log" 2>&1; export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}; }
  d=/tmp/fs21
  WAN_REF_DIR=$SP/wan-ref timeout 200 python3 $SP/fullsize-check.py make 2.1 21 60 104 $d >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/fullsize-make.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  for f in winograd direct; do
    dec fs21-$f 150 --weights $d/w.safetensors --latents $d/z.npy --latent-stats none --precision f16 --conv $f \
      && timeout 90 python3 $SP/fullsize-check.py cmp $d/ref.npy /tmp/fs21-$f.npy wan2.1-tc-f16-$f >> "$OUT/pytorch.jsonl" 2>> "$OUT/logs/fullsize-cmp.err"
    tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
    rm -f /tmp/fs21-$f.npy
  done
  rm -rf $d
fi
grep -o '"name":"[^"]*"\|"seconds":[0-9.]*\|"peakGpuBytes":[0-9]*' "$OUT/decode.jsonl" 2>/dev/null | paste -sd' ' | sed 's/"name"/\n"name"/g'
(cd "$OUT" && ls profile-* > /dev/null 2>&1 && tar -czf profiles.tar.gz profile-* && rm -f profile-*)
[ -f "$OUT/boot.log" ] && mv "$OUT/boot.log" "$OUT/logs/"
finish
