#!/usr/bin/env bash
# The portable conv (conv3d-tiled and its candidate shapes) per layer, and the Wan2.1 480x832x81 f32 portable decode.
# STEPS (default "tiled decode profile"): tiled = the -tiled rows at the four ANCHORS shapes and the 96 -> 3
# head, the decoder's conv and every TILED_CANDIDATES shape on the same inputs (bench/lib/conv-candidates.ts);
# decode = the cold CLI decode (--tensor-cores off, whole frames, f32); decodeB = the same with .h200/distB (a
# second build, e.g. another conv table) where carried; profile = bench-node --profile of that decode;
# f16 = the decode in f16 storage on the portable conv. Env: LAT (21x60x104).
S=" ${STEPS:-tiled decode profile} "
L="--synthetic 2.1 --latent-size ${LAT:-21x60x104} --tile none --tensor-cores off"
secs() { grep "\"name\":\"$1\"" "$OUT/decode.jsonl" | grep -o '"seconds":[0-9.]*' | cut -d: -f2; }
[[ $S == *" tiled "* ]] && rows tiled 150 --only "conv3d/96ch-480x832-tiled,conv3d/192ch-240x416-tiled,conv3d/384ch-120x208-tiled,conv3d/384ch-60x104-tiled,conv3d/96to3ch-480x832-tiled" --runs 20
[[ $S == *" decode "* ]] && dec f32-portable 60 $L --precision f32
if [[ $S == *" decodeB "* && -d .h200/distB ]]; then
  mv dist distA && cp -r .h200/distB dist && dec f32-portable-B 60 $L --precision f32
  a=$(secs f32-portable) b=$(secs f32-portable-B)
  if [ -n "$b" ] && [ -n "$a" ] && [ "$(node -e "console.log(+process.argv[1] < +process.argv[2])" "$b" "$a")" = true ]; then echo "profile: B"; rm -rf distA; else rm -rf dist && mv distA dist; fi
fi
[[ $S == *" profile "* ]] && prof wan2.1-f32-portable 120 "$(fresh)" --model 2.1 --latent ${LAT:-21x60x104} --precision f32 --tensor-cores off
[[ $S == *" f16 "* ]] && dec f16-portable 60 $L --precision f16
rm -f /tmp/f32-portable*.npy /tmp/f16-portable.npy
finish
