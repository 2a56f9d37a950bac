#!/usr/bin/env bash
# Stage 6's single H200 call (the device tool): from the shipped model, train on video.py's clips with data.py's
# (the old distribution) at 40 % against the held-out regression of stage 5, with a moving average of the weights;
# then blend.py scores blends shipped <-> new and shipped <-> average on the validation sets and keeps the best by
# its rule (held-out table and default sample not below the shipped model, then the highest validation split);
# the evaluation set and held-out latents of the chosen one, and every figure, into $OUT.
# Run from the repository root with .models-data/photos carried (prep_photos.py's folder; no golden file: the
# 64 MiB per call holds the tree and the photographs but not both with it, and the architecture code is unchanged
# since stage 5's check). Results in $OUT:
#   wan21-d32-decoder.safetensors, wan21-d32-encoder.safetensors   the chosen weights (f16), when not the shipped ones
#   results.tgz   train.log, training.json, blend.log, blend.json, chosen/ (samples, training.json), evalset/
#                 (ukui clips: latents + index with PyTorch PSNR of the chosen and the shipped model), evalset256/index.json
#   heldout.tgz.* heldout.py's 32 clips (sources + latents of the chosen encoder, PyTorch PSNR)
# TRAIN_SECONDS (default 130) and TRAIN_DEADLINE (default 165) bound train.py; snapshots every 60 s in $OUT/snap.
set -u
export PYTHONUNBUFFERED=1
R=$(pwd)
W=/tmp/wv6
mkdir -p $W $OUT/snap
D=${TRAIN_DEADLINE:-165}
T=${TRAIN_SECONDS:-130}
timeout $((D + 40)) python3 models/train/train.py --out $W/out --work $W/work --init models --library .models-data/photos \
  --old-frac 0.4 --size 128 --lengths 9,17,25,33 --frame-budget 96 --data-offset 500000 --lr 1.5e-4 --warmup 100 --mse 2 \
  --photo-frac 0.5 --edge 0.5 --ema 0.995 --cudnn-benchmark 0 --smoke-steps 2 --deadline $D --train-seconds $T \
  --ckpt-every 60 --snapshot $OUT/snap 2>&1 | tee $W/train.log
O=""
[ -f $W/out/wan21-d32-decoder.safetensors ] && O="--other stage6=$W/out"
[ -f $W/out/ema/wan21-d32-decoder.safetensors ] && O="$O --other stage6-ema=$W/out/ema"
[ -z "$O" ] && [ -f $OUT/snap/wan21-d32-decoder.safetensors ] && O="--other stage6-snapshot=$OUT/snap"
python3 models/train/blend.py eval --base models $O --alphas 0.5,0.75,1 --library .models-data/photos --out $W/blend 2>&1 | tee $W/blend.log
M=$W/blend/chosen
if [ -f $M/wan21-d32-decoder.safetensors ] && ! cmp -s $M/wan21-d32-decoder.safetensors models/wan21-d32-decoder.safetensors; then
  cp $M/wan21-d32-decoder.safetensors $M/wan21-d32-encoder.safetensors $OUT/
fi
[ -f $W/blend/blend.json ] && rm -rf $OUT/snap
[ -f $M/wan21-d32-decoder.safetensors ] || M=models
python3 models/train/evalset.py --photos .models-data/photos --out $W/evalset --models $M --compare models --torch 2>&1 | tail -2
python3 models/train/evalset.py --photos .models-data/photos --out $W/evalset256 --size 256 --models $M --compare models --torch 2>&1 | tail -2
rm -f $W/evalset/*.source.npy $W/evalset256/*.npy  # sources are remade bit for bit without a GPU (sha1 in index.json)
python3 models/train/heldout.py --out $W/heldout --models $M --torch 2>&1 | tail -2
cd $W
rm -f blend/chosen/wan21-d32-*.safetensors
for f in blend/chosen/samples/*.source.npy; do cmp -s $f $R/models/samples/$(basename $f) 2>/dev/null && rm $f; done
cp out/training.json training.json 2>/dev/null
tar czf $OUT/results.tgz train.log training.json blend.log blend/blend.json blend/chosen evalset evalset256/index.json 2>/dev/null
tar czf heldout.tgz heldout && split -b 15m heldout.tgz $OUT/heldout.tgz.
ls -la $OUT
