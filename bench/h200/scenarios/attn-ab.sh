#!/usr/bin/env bash
# Attention on the H200: the shipped kernel against tensor-core candidates alone (probe), then decodes of the build in .h200/dist.
# STEPS (default "ops quick probe"), in this order:
#   ops      bench/probes/attention-mma-ops.ts (.h200/probe/attention-mma-ops.js): every subgroup-matrix load / store
#            form attention-mma uses, alone on one tile, against its expected values, then the generated kernel at
#            C 16, N 32 ("kernel <shape> S|P|O [q0=Q const] [emu]" rows: its score tile, probabilities and output
#            against f64; how to read them: bench/results/h200/attn-mma-review-2026-12-03/README.md) -> ops.jsonl
#   quick    the probe's --quick rows (two small shapes, every form) -> quick.jsonl
#   probe    bench/probes/attention-mma.ts (.h200/probe/attention-mma.js: npx vite build --config
#            bench/probes/vite.attention-mma.config.ts) -> attn.jsonl: shaders/attention.wgsl f32 / f16 and every
#            attention-mma shape at Wan2.1 480x832 / 720x1280 and Wan2.2 704x1280 (CASES / VARIANTS: comma lists),
#            run again after a process death (the row that killed it is recorded) until every row is done
#   ab       the shipped shaders/attention.wgsl (.h200/dist-shipped) against a candidate build (.h200/dist), kernel rows
#   profile  bench-node --profile of Wan2.1 480x832 (LATP latents, default 5), f16 tensor cores, norm fused
#   w21      CLI decode of Wan2.1 480x832x81 f16 tensor cores, twice (the second with the shader cache filled); w22: Wan2.2 704x1280x121
#   fullsize the official fp32 decode (TF32 off) of Wan2.1 21x60x104 against the f16 tensor-core decode
#            (.h200/speed as bench/h200/scenarios/speed.sh's header builds it)
# Run: OUT=... STEPS="ops quick probe" bash bench/h200/run.sh attn-ab (PROBE_ARGS: more probe arguments, e.g. --quick for a lavapipe dry run)
S=" ${STEPS:-ops quick probe} "
P=.h200/probe/attention-mma.js
if [[ $S == *" ops "* ]] && [ -f .h200/probe/attention-mma-ops.js ]; then
  timeout 60 node .h200/probe/attention-mma-ops.js --flags "$F" --out "$OUT/ops.jsonl" > "$OUT/logs/ops.log" 2>&1
  echo "== ops rc $?"; grep '^{' "$OUT/logs/ops.log" | cut -c1-220
fi
if [[ $S == *" quick "* ]] && [ -f $P ]; then
  timeout 90 node $P --quick --flags "$F" --flags disable-dawn-features=timestamp_quantization --out "$OUT/quick.jsonl" > "$OUT/logs/quick.log" 2>&1
  echo "== quick rc $?"; rm -f "$OUT/quick.jsonl.started"; grep -o '"case":"[^"]*","c":[0-9]*,"n":[0-9]*,"variant":"[^"]*"\|"snrDb":[-0-9.]*\|"error":"[^"]\{0,80\}' "$OUT/quick.jsonl" | paste -sd' ' | sed 's/"case"/\n"case"/g'
fi
if [[ $S == *" probe "* ]] && [ -f $P ]; then
  for attempt in 1 2 3 4 5; do
    late probe && break
    timeout "${PROBE_S:-150}" node $P --flags "$F" --flags disable-dawn-features=timestamp_quantization ${PROBE_ARGS:-} ${CASES:+--cases $CASES} ${VARIANTS:+--variants $VARIANTS} --out "$OUT/attn.jsonl" >> "$OUT/logs/probe.log" 2>&1
    rc=$?
    echo "== probe run $attempt rc $rc $(wc -l < "$OUT/attn.jsonl" 2>/dev/null) rows"
    [ $rc = 0 ] && break
  done
  [ -f "$OUT/attn.jsonl" ] && node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const r = JSON.parse(l);
    console.log(r.case.padEnd(16), r.variant.padEnd(12), r.ms ? `${r.ms.toFixed(3)} ms ${r.tflops.toFixed(1)} TFLOP/s snr ${r.snrDb.toFixed(1)} dB max ${r.maxAbs.toExponential(1)}` : (r.error ?? "").slice(0, 100)); }' "$OUT/attn.jsonl"
  rm -f "$OUT/attn.jsonl.started"
fi
if [[ $S == *" ab "* ]]; then
  for d in dist-shipped dist; do
    [ -f .h200/$d/bench-node.js ] || { echo "attn-ab: .h200/$d/bench-node.js was not carried"; continue; }
    rm -rf dist && cp -r .h200/$d dist
    rows "attn-$d" 60 --only attention --runs 20
  done
fi
if [ -d .h200/dist ]; then rm -rf dist && cp -r .h200/dist dist; fi
if [[ $S == *" profile "* ]]; then
  PC=$(fresh)
  prof w21-mma 90 "$PC" --model 2.1 --latent ${LATP:-5}x60x104 --precision f16 --tensor-cores on --norm fused
fi
if [[ $S == *" w21 "* ]]; then
  C=$(fresh)
  cli w21-f16-empty 60 "$C" --synthetic 2.1 --latent-size 21x60x104 --precision f16
  cli w21-f16-filled 60 "$C" --synthetic 2.1 --latent-size 21x60x104 --precision f16
fi
if [[ $S == *" w22 "* ]]; then
  cli w22-f16 120 "$(fresh)" --synthetic 2.2 --latent-size 31x44x80 --precision f16
fi
SP=.h200/speed
if [[ $S == *" fullsize "* ]] && [ -f $SP/fullsize-check.py ] && ! late fullsize; then
  python3 -c 'import einops' 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $SP/whl/*.whl > "$OUT/logs/pip.log" 2>&1; export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}; }
  d=/tmp/fs21
  WAN_REF_DIR=$SP/wan-ref timeout 200 python3 $SP/fullsize-check.py make 2.1 21 60 104 $d >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/fullsize-make.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  dec fs21-f16 150 --weights $d/w.safetensors --latents $d/z.npy --latent-stats none --precision f16 \
    && timeout 90 python3 $SP/fullsize-check.py cmp $d/ref.npy /tmp/fs21-f16.npy wan2.1-tc-f16 >> "$OUT/pytorch.jsonl" 2>> "$OUT/logs/fullsize-cmp.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  rm -rf $d /tmp/fs21-f16.npy
fi
grep -o '"name":"[^"]*"\|"seconds":[0-9.]*' "$OUT/cli.jsonl" 2>/dev/null | paste -sd' ' | sed 's/"name"/\n"name"/g'
(cd "$OUT" && ls profile-* > /dev/null 2>&1 && tar -czf profiles.tar.gz profile-* && rm -f profile-*)
[ -f "$OUT/boot.log" ] && mv "$OUT/boot.log" "$OUT/logs/"
finish
