#!/usr/bin/env bash
# The README's headline rows in one call, in order of need: the official decode timed, Wan2.1 480x832x81 on the stock feature set (f32, f16) and on subgroup matrices, the full-size fidelity of the stock paths, a real-checkpoint load (torch.save .pth and safetensors) at full size, then Wan2.2 and 720p.
# Needs .h200/dist (bench/h200/build.sh), .h200/speed (as speed.sh's header builds it) and .h200/checkpoint
# (as checkpoint.sh's header says). Flag sets as speed.sh: STOCK (no allow_unsafe_apis) and FULL. Each CLI
# decode runs twice with one fresh NVIDIA shader cache: "-empty" fills it, "-filled" reads it.
# First frame: each CLI line's firstFrameSeconds (from the decode() call: plan, build and chunk 0) and
# startup (readyMs: weights prepared, chunk 0 may start; events: every pipeline compiled and chunk 0's
# submissions, ms from the build's start; overlappedSubmits: submissions made while pipelines compiled);
# the summary prints them per decode (ready, chunk0-submit, pipelines-compiled, chunk0-placed, all ms from
# the build's start); step 4b times the first frame on a built decoder.
# SKIP_CLI=1: only the official decode, the full-size fidelity and the checkpoint (steps 1, 3, 5).
# Results (<= 8 files): cli.jsonl, pytorch.jsonl, checkpoint.jsonl, decode.jsonl, skipped.txt, logs.tar.gz.
STOCK=enable-dawn-features=vulkan_enable_f16_on_nvidia
FULL=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
SP=.h200/speed
S21="--synthetic 2.1 --latent-size 21x60x104"
S22="--synthetic 2.2 --latent-size 31x44x80"
mkdir -p "$OUT/logs"
both() { local n=$1 t=$2 fl=$3; shift 3; local c; c=$(fresh); F=$fl cli "$n-empty" "$t" "$c" "$@"; F=$fl cli "$n-filled" "$t" "$c" "$@"; }
python3 -c 'import einops' 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $SP/whl/*.whl > "$OUT/logs/pip.log" 2>&1; export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}; }
# 1. the official decode (WanVAE_.decode, cuDNN; fp32 = PyTorch's default TF32 convs; bf16 autocast)
[ -n "${NO_OFFICIAL:-}" ] || WAN_REF_DIR=$SP/wan-ref timeout 120 python3 $SP/official-decode-time.py 2.1:bf16:21:60:104 2.1:fp32:21:60:104 2.2:bf16:31:44:80 >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/official.err"
cut -c1-200 "$OUT/pytorch.jsonl"
# 2. Wan2.1 480x832x81
if [ -z "${SKIP_CLI:-}" ]; then
  both w21-stock-f32 60 "$STOCK" $S21 --precision f32
  both w21-stock-f16 60 "$STOCK" $S21 --precision f16
  both w21-tc-f16 60 "$FULL" $S21 --precision f16
fi
# 3. full-size fidelity of the stock paths against the official fp32 decode without TF32
if ! late fullsize-2.1; then
  d=/tmp/fs21
  WAN_REF_DIR=$SP/wan-ref timeout 120 python3 $SP/fullsize-check.py make 2.1 21 60 104 $d >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/fullsize-make.err"
  for n in stock-f16 stock-f32; do
    F=$STOCK dec "fs21-$n" 90 --weights $d/w.safetensors --latents $d/z.npy --latent-stats none --precision ${n#stock-} \
      && timeout 60 python3 $SP/fullsize-check.py cmp $d/ref.npy /tmp/fs21-$n.npy "wan2.1-$n" >> "$OUT/pytorch.jsonl" 2>> "$OUT/logs/fullsize-cmp.err"
    tail -1 "$OUT/pytorch.jsonl" | cut -c1-200; rm -f /tmp/fs21-$n.npy
  done
  rm -rf $d
fi
if [ -z "${SKIP_CLI:-}" ]; then
# 4. Wan2.2 704x1280x121 and Wan2.1 720x1280x81
both w22-tc-f16 90 "$FULL" $S22 --precision f16
F=$STOCK cli w22-stock-f16 120 "$(fresh)" $S22 --precision f16
both w21-720-tc-f16 60 "$FULL" --synthetic 2.1 --latent-size 21x90x160 --precision f16
F=$STOCK cli w22-stock-f32 120 "$(fresh)" $S22 --precision f32
node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const j = JSON.parse(l), r = j.result ?? {};
  const st = r.startup ?? {}, ev = st.events ?? [], at = (re) => (ev.find((e) => re.test(e[1])) ?? [])[0];
  console.log(j.name.padEnd(22), "rc", j.rc, "s", r.seconds, "first", r.firstFrameSeconds, "MiB", r.peakGpuBytes && (r.peakGpuBytes / 2 ** 20).toFixed(0), "planned", r.plannedPeakGpuBytes && (r.plannedPeakGpuBytes / 2 ** 20).toFixed(0),
    "| build ms: ready", st.readyMs, "chunk0-submit", at(/^submit 0 /), "pipelines-compiled", at(/^pipelines compiled$/), "chunk0-placed", at(/^placed 0$/), "overlapped", st.overlappedSubmits); }' "$OUT/cli.jsonl"
# 4b. the first frame on a built decoder (bench-node --timing: decode 0 builds the decoder inside it, decode 1
# reuses it; kept under logs/: the call returns at most 8 files)
F=$STOCK tim w21-stock-f32-timing 60 "$(fresh)" --model 2.1 --latent 21x60x104 --precision f32 --repeat 2 \
  && node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const j = JSON.parse(l);
    console.log(j.name, "run", j.run, "cold", j.cold, "s", j.seconds, "firstFrameMs", j.firstFrameMs, "readyMs", j.build && Math.round(j.build.readyMs), "overlapped", j.build && j.build.overlappedSubmits); }' "$OUT/timing.jsonl"
[ -f "$OUT/timing.jsonl" ] && mv "$OUT/timing.jsonl" "$OUT/logs/"
fi
# 5. a real checkpoint at full size (Wan2.1: a torch.save .pth of encoder + decoder, and safetensors); checkpoint.sh ends the call
[ -f "$OUT/boot.log" ] && mv "$OUT/boot.log" "$OUT/logs/"
F=$STOCK V=${CKV:-2.1} LAT=${CKLAT:-21x60x104} source bench/h200/scenarios/checkpoint.sh
