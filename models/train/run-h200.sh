#!/usr/bin/env bash
# One H200 call (the device tool, ~10 min): train from the shipped model on video.py's clips, export, and make
# everything the evaluation needs afterwards without a GPU. Run from the repository root with .models-data/
# carried (prep_photos.py's folder as .models-data/photos, ../shared/golden/wan21-tiny.safetensors as
# .models-data/golden/); results go to $OUT:
#   wan21-d32-decoder.safetensors, wan21-d32-encoder.safetensors   the new weights (f16)
#   results.tgz   training.json, train.log, samples/ (sources identical to models/samples/ left out),
#                 evalset/ (ukui clips: latents + index with PyTorch PSNR of the new and the shipped model),
#                 evalset256/index.json (the same moves at 256x256, PyTorch only)
#   heldout.tgz   heldout.py's 32 clips (sources + latents of the new encoder, PyTorch PSNR)
# TRAIN_DEADLINE (s, default 470) bounds train.py; snapshots of the weights every 90 s in $OUT/snap.
set -u
export PYTHONUNBUFFERED=1
R=$(pwd)
W=/tmp/wv
mkdir -p $W $OUT/snap
D=${TRAIN_DEADLINE:-470}
timeout $((D + 60)) python3 models/train/train.py --out $W/out --work $W/work --golden .models-data/golden/wan21-tiny.safetensors \
  --init models --library .models-data/photos --old-frac 0.15 --size 128 --lengths 9,17,25,33 --frame-budget 96 \
  --data-offset 400000 --lr 3e-4 --warmup 50 --mse 2 --photo-frac 0.5 --edge 0.5 \
  --probe 1.5e-4:0.5,4e-4:0.5,4e-4:0 --probe-seconds 20 --video-val-clips 12 \
  --smoke-steps 4 --deadline $D --train-seconds $D --ckpt-every 90 --snapshot $OUT/snap 2>&1 | tee $W/train.log
M=$W/out
if [ -f $M/wan21-d32-decoder.safetensors ] && [ -f $M/samples/samples.json ]; then
  cp $M/wan21-d32-decoder.safetensors $M/wan21-d32-encoder.safetensors $OUT/
  rm -rf $OUT/snap
else
  echo "export missing: the snapshot in \$OUT/snap is what is left"; M=$OUT/snap
fi
python3 models/train/evalset.py --photos .models-data/photos --out $W/evalset --models $M --compare models --torch 2>&1 | tail -3
python3 models/train/evalset.py --photos .models-data/photos --out $W/evalset256 --size 256 --models $M --compare models --torch 2>&1 | tail -3
rm -f $W/evalset/*.source.npy $W/evalset256/*.npy  # sources are remade bit for bit without a GPU (sha1 in index.json)
python3 models/train/heldout.py --out $W/heldout --models $M --torch 2>&1 | tail -2
cd $W
for f in out/samples/*.source.npy; do cmp -s $f $R/models/samples/$(basename $f) 2>/dev/null && rm $f; done
cp train.log out/ 2>/dev/null
tar czf $OUT/results.tgz out/training.json out/train.log out/samples evalset evalset256/index.json 2>/dev/null
tar czf heldout.tgz heldout && split -b 15m heldout.tgz $OUT/heldout.tgz.
ls -la $OUT
