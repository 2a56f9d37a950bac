#!/usr/bin/env bash
# One H200 call of the fine-tuning recipe of stages 9, 11 and 12 (the device tool): from the weights in models/, the
# encoder trained too, 45 % fast pans among video.py's clips, data.py's clips 40 % of all, peak lr 6e-5 held then a
# cosine (`--schedule wsd`), a moving average (0.998), AdamW's moments filled at lr 0 first; then stage 6's blends
# (alpha 0.25-1 of the trained weights and of their average) and the rule, the chosen model's samples and the ukui
# set's latents with their PyTorch decodes. Each stage's script sets what differs and says why:
#   STAGE          the stage's number (names: stageN, stageN-ema; scratch /tmp/wvN)
#   DATA_OFFSET    the first data key (new keys per stage)
#   SAMPLE_SLACK   dB astronaut-128 may lose against the start (`blend.py eval --sample-slack`; 0: stage 6's rule)
# Run from the repository root with .models-data/photos carried (prep_photos.py's folder). A run cut short leaves in
# $OUT/snap the weights and their average every 120 s (with progress.json). Results in $OUT (each < 16 MiB):
#   results.tgz     train.log, training.json, blend.log, blend/blend.json, blend/chosen (samples/, samples.json,
#                   training.json), blend/base-0/samples when another candidate is chosen, evalset/ (the chosen
#                   model's ukui latents and index.json; the sources are remade bit for bit here)
#   trained/, ema/  the trained weights and their moving average (f16 decoder + encoder)
# TRAIN_SECONDS (default 475) and TRAIN_DEADLINE (default 500) bound train.py; every step is bounded by $LIMIT
# seconds of the call in all (default 552). PY, WORK, TRAIN_ARGS, BLEND_ARGS: the interpreter, the scratch folder and
# extra arguments (a dry run on a CPU with small settings).
: "${STAGE:?set STAGE}" "${DATA_OFFSET:?set DATA_OFFSET}" "${SAMPLE_SLACK:?set SAMPLE_SLACK}"
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
W=${WORK:-/tmp/wv$STAGE}
LIMIT=${LIMIT:-552}
mkdir -p $W $OUT/snap
D=${TRAIN_DEADLINE:-500}
T=${TRAIN_SECONDS:-475}
left() { echo $((LIMIT - SECONDS > 1 ? LIMIT - SECONDS : 1)); }
timeout $((D + 15)) $PY models/train/train.py --out $W/out --work $W/work --init models --library .models-data/photos \
  --old-frac 0.4 --fast-frac 0.45 --size 128 --lengths 9,17,25,33 --frame-budget 96 --data-offset $DATA_OFFSET \
  --lr 6e-5 --warmup 200 --schedule wsd --decay-frac 0.3 --mse 2 --photo-frac 0.5 --edge 0.5 --ema 0.998 \
  --cudnn-benchmark 0 --smoke-steps 2 --moment-steps 40 --val-at 0,200,600,1200,1800,2400,3000 --val-ema 1 \
  --deadline $D --train-seconds $T --ckpt-every 120 --snapshot $OUT/snap ${TRAIN_ARGS:-} 2>&1 | tee $W/train.log
# the final exports replace the snapshots (and keep $OUT to 6 files); a run cut short keeps them
if [ -f $W/out/wan21-d32-decoder.safetensors ]; then
  rm -rf $OUT/snap
  O=""
  for d in out:trained:stage$STAGE out/ema:ema:stage$STAGE-ema; do
    s=${d%%:*}; t=${d#*:}; t=${t%%:*}
    if [ -f $W/$s/wan21-d32-decoder.safetensors ]; then
      mkdir -p $OUT/$t && cp $W/$s/wan21-d32-decoder.safetensors $W/$s/wan21-d32-encoder.safetensors $OUT/$t/
      O="$O --other ${d##*:}=$W/$s"
    fi
  done
else
  O=""
  [ -f $OUT/snap/wan21-d32-decoder.safetensors ] && O="--other stage$STAGE-snapshot=$OUT/snap"
  [ -f $OUT/snap/ema/wan21-d32-decoder.safetensors ] && O="$O --other stage$STAGE-snapshot-ema=$OUT/snap/ema"
fi
echo "train.py done at ${SECONDS} s; blends of: ${O:-nothing}"
if [ -n "$O" ]; then
  timeout $(left) $PY models/train/blend.py eval --base models $O --alphas 0.25,0.5,0.75,1 --sample-slack $SAMPLE_SLACK --library .models-data/photos \
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
