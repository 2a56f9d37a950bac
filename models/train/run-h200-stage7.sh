#!/usr/bin/env bash
# Stage 7's single H200 call (the device tool): stage 6's recipe step for step (same start, data keys, schedule of
# 1008 steps stopped at 1007, moving average, blends and rule) with one change: 40 steps at learning rate 0 first
# fill AdamW's moment estimates (--moment-steps), so the first updates are not a fresh optimiser's (every weight
# moved by about the learning rate). The smoke runs twice (a fresh optimiser, then one filled first: the same 2
# steps at lr 3e-5 and 6e-5 that took stage 6's held-out table from 28.32 to 27.70 dB), and the held-out table and
# validation split are scored during training (--val-at). Then blend.py scores blends shipped <-> trained and
# shipped <-> average with stage 6's rule (held-out table and default sample not below the shipped model, then the
# highest validation split); the ukui evaluation set is scored for the record.
# Run from the repository root with .models-data/photos carried (prep_photos.py's folder). Results in $OUT:
#   results.tgz   train.log, training.json, blend.log, blend.json, blend/chosen (samples, training.json)
#   trained/, ema/  the trained weights and their moving average (f16 decoder + encoder): blends and the int8
#                 difference (`blend.py delta`) are made from them without a GPU
# TRAIN_SECONDS (default 150) and TRAIN_DEADLINE (default 195) bound train.py; every step is bounded by $LIMIT
# seconds of the call in all (default 218). PY, TRAIN_ARGS, BLEND_ARGS: the interpreter and extra arguments (a
# dry run on a CPU with small settings).
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
W=${WORK:-/tmp/wv7}
LIMIT=${LIMIT:-218}
mkdir -p $W $OUT
D=${TRAIN_DEADLINE:-195}
T=${TRAIN_SECONDS:-150}
left() { echo $((LIMIT - SECONDS > 1 ? LIMIT - SECONDS : 1)); }
timeout $((D + 15)) $PY models/train/train.py --out $W/out --work $W/work --init models --library .models-data/photos \
  --old-frac 0.4 --size 128 --lengths 9,17,25,33 --frame-budget 96 --data-offset 500000 --lr 1.5e-4 --warmup 100 --mse 2 \
  --photo-frac 0.5 --edge 0.5 --ema 0.995 --cudnn-benchmark 0 --smoke-steps 2 --steps 1008 --stop-step 1007 \
  --moment-steps 40 --val-at 0,25,50,100,250,500 --deadline $D --train-seconds $T --ckpt-every 1000 ${TRAIN_ARGS:-} 2>&1 | tee $W/train.log
O=""
[ -f $W/out/wan21-d32-decoder.safetensors ] && O="--other stage7=$W/out"
[ -f $W/out/ema/wan21-d32-decoder.safetensors ] && O="$O --other stage7-ema=$W/out/ema"
if [ -n "$O" ]; then
  timeout $(left) $PY models/train/blend.py eval --base models $O --alphas 0.5,0.75,1 --library .models-data/photos \
    --out $W/blend ${BLEND_ARGS:-} 2>&1 | tee $W/blend.log
fi
for d in out:trained out/ema:ema; do
  if [ -f $W/${d%%:*}/wan21-d32-decoder.safetensors ]; then
    mkdir -p $OUT/${d##*:} && cp $W/${d%%:*}/wan21-d32-decoder.safetensors $W/${d%%:*}/wan21-d32-encoder.safetensors $OUT/${d##*:}/
  fi
done
cd $W
rm -f blend/chosen/wan21-d32-*.safetensors blend/chosen/samples/*.npy  # remade from the weights; sources are the shipped ones
cp out/training.json training.json 2>/dev/null
tar czf $OUT/results.tgz train.log training.json blend.log blend/blend.json blend/chosen 2>/dev/null
ls -la $OUT $OUT/*/
echo "call: ${SECONDS} s"
