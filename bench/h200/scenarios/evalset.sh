#!/usr/bin/env bash
# Trained decoders through the WebGPU decoder (Dawn, stock f32 default) on the reserved ukui evaluation set: the clips and latents models/train/run-h200-stage10.sh left on this machine.
# W (default .models-tmp/stage10): that script's work folder, with evalset/ (sources, latents of the shipped
# encoder, index.json) and blend-ARM/chosen/ (the chosen candidate of each ARM). MODELS (default "hr64 d32"): the
# arms decoded, each into $OUT/webgpu-ARM.json (scripts/heldout-webgpu.mjs's report: PSNR / SSIM per clip and set,
# next to PyTorch's figure of the same weights); "shipped" decodes models/wan21-d32-decoder.safetensors.
# Dry run: SKIPBOOT=1 W=/tmp/w10 MODELS=shipped OUT=/tmp/o bash bench/h200/run.sh evalset
W=${W:-.models-tmp/stage10}
for m in ${MODELS:-hr64 d32}; do
  late "evalset-$m" && break
  if [ "$m" = shipped ]; then wt=models/wan21-d32-decoder.safetensors; else wt=$W/blend-$m/chosen/wan21-$m-decoder.safetensors; fi
  [ -f "$wt" ] || { echo "== $m: no $wt"; continue; }
  t0=$SECONDS
  timeout $((STOP_AFTER - SECONDS + 60)) node scripts/heldout-webgpu.mjs --dir "$W/evalset" --weights "$wt" --dawn-flags "$F" \
    --timeout 60 --out "$OUT/webgpu-$m.json" > "$OUT/logs/evalset-$m.log" 2>&1
  echo "== $m rc $? $((SECONDS - t0)) s"; tail -8 "$OUT/logs/evalset-$m.log"
done
finish
