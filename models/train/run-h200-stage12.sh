#!/usr/bin/env bash
# Stage 12's single H200 call (the device tool): stage 11's run again from stage 11's weights (shipped since 6c4a3ee),
# new data keys (offset 1 000 000), the encoder trained; then the blends, the chosen model's samples and the ukui
# set's latents, as stages 9 and 11.
#
# Why (models/training/stage11.*): stage 11 from stage 8's blend gained +0.39 dB on the ukui set and +0.99 on its fast
# pans, the held-out table +0.03, and lost 0.13 dB on astronaut-128; the loss per step had not flattened. The rule,
# fixed here before the run: held-out mean not below the start, astronaut-128 at most 0.05 dB below it (tighter than
# stage 11's 0.15, so the default sample does not drift down stage after stage), then the best video validation mean.
#
# Run from the repository root with .models-data/photos carried (prep_photos.py's folder). Results in $OUT as
# stage 9's script (results.tgz, trained/, ema/; snapshots in $OUT/snap for a run cut short).
# TRAIN_SECONDS (default 475) and TRAIN_DEADLINE (default 500) bound train.py; every step is bounded by $LIMIT
# seconds of the call in all (default 552). PY, WORK, TRAIN_ARGS, BLEND_ARGS: as stage 9's script.
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
W=${WORK:-/tmp/wv12}
LIMIT=${LIMIT:-552}
mkdir -p $W $OUT/snap
D=${TRAIN_DEADLINE:-500}
T=${TRAIN_SECONDS:-475}
left() { echo $((LIMIT - SECONDS > 1 ? LIMIT - SECONDS : 1)); }
timeout $((D + 15)) $PY models/train/train.py --out $W/out --work $W/work --init models --library .models-data/photos \
  --old-frac 0.4 --fast-frac 0.45 --size 128 --lengths 9,17,25,33 --frame-budget 96 --data-offset 1000000 \
  --lr 6e-5 --warmup 200 --schedule wsd --decay-frac 0.3 --mse 2 --photo-frac 0.5 --edge 0.5 --ema 0.998 \
  --cudnn-benchmark 0 --smoke-steps 2 --moment-steps 40 --val-at 0,200,600,1200,1800,2400,3000 --val-ema 1 \
  --deadline $D --train-seconds $T --ckpt-every 120 --snapshot $OUT/snap ${TRAIN_ARGS:-} 2>&1 | tee $W/train.log
# the final exports replace the snapshots (and keep $OUT to 6 files); a run cut short keeps them
if [ -f $W/out/wan21-d32-decoder.safetensors ]; then
  rm -rf $OUT/snap
  O=""
  for d in out:trained:stage12 out/ema:ema:stage12-ema; do
    s=${d%%:*}; t=${d#*:}; t=${t%%:*}
    if [ -f $W/$s/wan21-d32-decoder.safetensors ]; then
      mkdir -p $OUT/$t && cp $W/$s/wan21-d32-decoder.safetensors $W/$s/wan21-d32-encoder.safetensors $OUT/$t/
      O="$O --other ${d##*:}=$W/$s"
    fi
  done
else
  O=""
  [ -f $OUT/snap/wan21-d32-decoder.safetensors ] && O="--other stage12-snapshot=$OUT/snap"
  [ -f $OUT/snap/ema/wan21-d32-decoder.safetensors ] && O="$O --other stage12-snapshot-ema=$OUT/snap/ema"
fi
echo "train.py done at ${SECONDS} s; blends of: ${O:-nothing}"
if [ -n "$O" ]; then
  timeout $(left) $PY models/train/blend.py eval --base models $O --alphas 0.25,0.5,0.75,1 --sample-slack 0.05 --library .models-data/photos \
    --out $W/blend ${BLEND_ARGS:-} 2>&1 | tee $W/blend.log
fi
M=$W/blend/chosen
echo "blend.py done at ${SECONDS} s"
if [ $(left) -gt 25 ] && [ -f $M/wan21-d32-decoder.safetensors ]; then
  timeout $(($(left) - 8)) $PY models/train/evalset.py --photos .models-data/photos --out $W/evalset --models $M --compare models \
    --torch 2>&1 | tail -3
  rm -f $W/evalset/*.source.npy  # remade bit for bit without a GPU (sha1 in index.json)
fi
cd $W
rm -f blend/*/wan21-d32-*.safetensors blend/*/samples/*.source.npy  # the weights: blend.py make; the sources: models/samples
K=""
[ -d blend/base-0/samples ] && K=blend/base-0/samples
cp out/training.json training.json 2>/dev/null
tar czf $OUT/results.tgz train.log training.json blend.log blend/blend.json blend/chosen $K evalset 2>/dev/null
ls -la $OUT $OUT/*/
echo "call: ${SECONDS} s"
