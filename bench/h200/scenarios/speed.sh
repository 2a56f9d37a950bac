#!/usr/bin/env bash
# Speed on the stock feature set and on subgroup matrices, with the official PyTorch decode in the same call.
# What a user runs (CLI decode --json: seconds, firstFrameSeconds, planned = measured peak), each decode once
# with an empty NVIDIA shader cache ("empty": a fresh __GL_SHADER_DISK_CACHE_PATH) and once with it filled by
# that run ("filled"); the per-layer GPU profile of both VAEs on both paths; the full-size fidelity of the
# stock f16 path (and the f32 default) against the official fp32 decode without TF32 (../shared/gpu/fullsize-check.py).
# Results: cli.jsonl (decodes), pytorch.jsonl (official times, fidelity), tables.tar.gz (profiles, kernel rows), decode.jsonl, logs.tar.gz.
# Flag sets (Dawn of npm webgpu 0.6.2):
#   STOCK  enable-dawn-features=vulkan_enable_f16_on_nvidia: no allow_unsafe_apis, so what a browser offers
#          without flags (core WebGPU, shader-f16, subgroups; no subgroup matrices). Dawn's Vulkan backend
#          withholds shader-f16 on NVIDIA unless that toggle is set (the features this Dawn lists with no
#          toggle at all: bench/results/h200/probe-f16-wino-2026-12-01-8afd812/features.txt); Chrome sets no
#          such toggle on Linux, and uses D3D12 on Windows, where NVIDIA GPUs offer shader-f16.
#   FULL   enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia (+ subgroup matrices: tensor cores)
# Build (on the development machine, from the checkout root), then carry ".h200" with the bundle:
#   bash bench/h200/build.sh <commit>          # .h200/dist, .h200/COMMIT
#   mkdir -p .h200/speed/wan-ref .h200/speed/whl
#   cp ../shared/gpu/fullsize-check.py bench/probes/official-decode-time.py .h200/speed/
#   # the official modules (fetch github:Wan-Video/Wan2.1 and github:Wan-Video/Wan2.2; measured with 9737cba / 42bf4cf):
#   git --git-dir=<Wan2.1 mirror> show HEAD:wan/modules/vae.py > .h200/speed/wan-ref/vae21.py
#   git --git-dir=<Wan2.2 mirror> show HEAD:wan/modules/vae2_2.py > .h200/speed/wan-ref/vae22.py
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp -d .h200/speed/whl einops==0.8.2
# Run: OUT=... bash bench/h200/run.sh speed (STOP_AFTER, default 480 s: steps are ordered by need; the
# Wan2.2 fidelity check and the Wan2.2 f32 decode come last and are skipped when the time is up).
# Dry run on lavapipe: SKIPBOOT=1 W21=2x8x13 W21B=2x12x20 W22=1x4x8 FS=0 OUT=/tmp/o bash bench/h200/run.sh speed
STOCK=enable-dawn-features=vulkan_enable_f16_on_nvidia
FULL=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
W21=${W21:-21x60x104} W21B=${W21B:-21x90x160} W22=${W22:-31x44x80} W22P=${W22P:-11x44x80}
SP=.h200/speed
S21="--synthetic 2.1 --latent-size $W21"
# fits NAME N: true where a step of N seconds at most still ends inside the call (570 s after the start), else noted as skipped
fits() { [ $((SECONDS + $2)) -le ${CALL_END:-570} ] || { echo "skipped $1: $SECONDS s + $2 s > ${CALL_END:-570} s" | tee -a "$OUT/skipped.txt"; false; }; }
both() { # both NAME TMO FLAGS ARGS...: the decode with an empty driver cache, then again with it filled
  local n=$1 t=$2 fl=$3; shift 3
  local c; c=$(fresh)
  F=$fl cli "$n-empty" "$t" "$c" "$@"
  F=$fl cli "$n-filled" "$t" "$c" "$@"
}
# 1. the official decode, same call (PyTorch on cuDNN; fp32 = its default TF32 convs, bf16 autocast)
if [ -f $SP/official-decode-time.py ]; then
  python3 -c 'import einops' 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $SP/whl/*.whl > "$OUT/logs/pip.log" 2>&1; export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}; }
  late official || WAN_REF_DIR=$SP/wan-ref timeout 150 python3 $SP/official-decode-time.py 2.1:fp32:21:60:104 2.1:bf16:21:60:104 2.1:bf16:21:90:160 2.2:bf16:31:44:80 >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/official.err"
  cut -c1-200 "$OUT/pytorch.jsonl"
fi
# 2. Wan2.1 480x832x81: stock f32 (the default), stock f16, subgroup matrices (f16)
both w21-stock-f32 60 "$STOCK" $S21 --precision f32
both w21-stock-f16 60 "$STOCK" $S21 --precision f16
both w21-tc-f16 60 "$FULL" $S21 --precision f16
# 3. Wan2.1 720x1280x81 and Wan2.2 704x1280x121 on subgroup matrices, Wan2.2 stock f16
both w21-720-tc-f16 60 "$FULL" --synthetic 2.1 --latent-size "$W21B" --precision f16
both w22-tc-f16 90 "$FULL" --synthetic 2.2 --latent-size "$W22" --precision f16
both w22-stock-f16 120 "$STOCK" --synthetic 2.2 --latent-size "$W22" --precision f16
# 4. per-layer GPU time (bench-node --profile: cold + warm + one pass per dispatch), both VAEs, both paths
PC=$(fresh)
FP="$STOCK disable-dawn-features=timestamp_quantization" prof w21-stock-f16 90 "$PC" --model 2.1 --latent "$W21" --precision f16 --tensor-cores off
FP="$FULL disable-dawn-features=timestamp_quantization" prof w21-tc-f16 90 "$PC" --model 2.1 --latent "$W21" --precision f16
FP="$FULL disable-dawn-features=timestamp_quantization" prof w22-tc-f16 120 "$PC" --model 2.2 --latent "$W22P" --precision f16
FP="$STOCK disable-dawn-features=timestamp_quantization" prof w22-stock-f16 120 "$PC" --model 2.2 --latent "$W22P" --precision f16 --tensor-cores off
# 5. full-size fidelity against the official fp32 decode without TF32 (same random weights and latents)
fs() { # fs VERSION T H W NAME...: make the reference, then each NAME's CLI decode of it compared (PSNR, max |err|)
  local v=$1 T=$2 H=$3 W=$4; shift 4
  local d=/tmp/fs$v
  late "fullsize-$v" && return
  WAN_REF_DIR=$SP/wan-ref timeout 200 python3 $SP/fullsize-check.py make "$v" "$T" "$H" "$W" "$d" >> "$OUT/pytorch.jsonl" 2> "$OUT/logs/fullsize-make-$v.err"
  tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
  for n in "$@"; do
    local fl=$STOCK args="--precision f16 --tensor-cores off"
    [ "$n" = stock-f32 ] && args="--precision f32"
    [ "$n" = tc-f16 ] && fl=$FULL && args="--precision f16"
    F=$fl dec "fs$v-$n" 150 --weights "$d/w.safetensors" --latents "$d/z.npy" --latent-stats none $args \
      && timeout 90 python3 $SP/fullsize-check.py cmp "$d/ref.npy" "/tmp/fs$v-$n.npy" "wan$v-$n" >> "$OUT/pytorch.jsonl" 2>> "$OUT/logs/fullsize-cmp.err"
    tail -1 "$OUT/pytorch.jsonl" | cut -c1-200
    rm -f "/tmp/fs$v-$n.npy"
  done
  rm -rf "$d"
}
if [ "${FS:-1}" = 1 ] && [ -f $SP/fullsize-check.py ]; then
  fits fullsize-2.1 150 && fs 2.1 21 60 104 stock-f16 stock-f32
  fits fullsize-2.2 260 && fs 2.2 31 44 80 stock-f16
fi
# 6. Wan2.2 stock f32 (the default precision), cache filled by nothing of its own: one run
fits w22-stock-f32 60 && F=$STOCK cli w22-stock-f32 60 "$(fresh)" --synthetic 2.2 --latent-size "$W22" --precision f32
# 7. per-layer rows of the Winograd variants in f16 storage (f32 / f16 scratch, h16 sums) and f32 (scratch caps), stock set,
# after the decodes (a warm GPU: 5-run rows of a cold one measured its clock, probe of 2026-12-01)
fits rows 100 && FQ="$STOCK,disable-dawn-features=timestamp_quantization" rows wino 100 --only conv3d/96ch-480x832-tiled,conv3d/192ch-240x416-tiled,conv3d/384ch-120x208-tiled --runs 20
# summary: one line per CLI decode
node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const j = JSON.parse(l), r = j.result ?? {};
  console.log(j.name.padEnd(22), "rc", j.rc, "s", r.seconds, "first", r.firstFrameSeconds, "MiB", r.peakGpuBytes && (r.peakGpuBytes / 2 ** 20).toFixed(0), "planned", r.plannedPeakGpuBytes && (r.plannedPeakGpuBytes / 2 ** 20).toFixed(0), (r.plan ?? "").slice(0, 70)); }' "$OUT/cli.jsonl"
cut -c1-220 "$OUT/pytorch.jsonl"
# at most 8 files come back: the profiles in one archive, the runner's boot log with the logs
(cd "$OUT" && ls profile-* h200-* > /dev/null 2>&1; tar -czf tables.tar.gz $(ls profile-* h200-* 2>/dev/null) && rm -f profile-* h200-*)
[ -f "$OUT/boot.log" ] && mv "$OUT/boot.log" "$OUT/logs/"
finish
