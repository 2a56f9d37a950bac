#!/usr/bin/env bash
# The README's headline rows: the user-facing CLI decodes of one build (default f32, f16 tensor cores, int8, Wan2.2).
# CLI default (f32 portable, --conv auto) with an empty driver shader cache and then with the cache it
# filled; f16 tensor cores (cache holds only the portable pipelines); bench-node --timing cold + warm for
# f16 tensor cores (fresh cache) and f32 portable (cached); int8 weights on tensor cores; Wan2.2 704x1280x121
# f16 tensor cores. Then the attention kernel rows of .h200/dist-shipped and .h200/dist where both are
# carried (the attn-ab scenario builds). Dry run: W21=2x2x3 W22=1x2x2 SKIPBOOT=1.
W21=${W21:-21x60x104} W22=${W22:-31x44x80}
L21="--model 2.1 --latent $W21"
CACHE=$(fresh)
cli default-fresh 40 "$CACHE" --synthetic 2.1 --latent-size "$W21"
cli default-cached 40 "$CACHE" --synthetic 2.1 --latent-size "$W21"
cli tc-f16-cached 30 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f16
tim tc-f16 40 "$(fresh)" $L21 --precision f16 --repeat 2
tim port-f32 40 "$CACHE" $L21 --precision f32 --tensor-cores off --repeat 2
cli int8-tc-cached 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --weights-precision int8 --precision f16
tim wan22 70 "$CACHE" --model 2.2 --latent "$W22" --precision f16 --repeat 1
for d in dist-shipped dist; do
  [ -f .h200/$d/bench-node.js ] || continue; late "attention-$d" && break
  timeout 40 node .h200/$d/bench-node.js --dawn-flags "$FQ" --out "$OUT" --no-baseline --machine h200 ${COMMIT:+--commit $COMMIT} --only attention --runs 20 --tag "attn-$d" > "$OUT/logs/bench-attention-$d.log" 2>&1
  echo "attention $d rc $?"; grep -E "attention/" "$OUT/logs/bench-attention-$d.log" | head -2 | cut -c1-160
done
finish
