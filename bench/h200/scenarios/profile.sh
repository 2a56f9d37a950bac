#!/usr/bin/env bash
# Per-layer GPU profiles (bench-node --profile: one timed pass per dispatch) of whole decodes.
# PROFILES lists "model latent precision tensor-cores norm" entries (default: Wan2.1 480x832x81 f16 with and
# without tensor cores, norm fused; Wan2.2 704x1280x3 f16 tensor cores); PROBE=1 first runs the
# operand-layout probe bench/probes/mma-layout.mjs.
[ "${PROBE:-0}" = 1 ] && timeout 200 node bench/probes/mma-layout.mjs "$OUT/mma-layout.jsonl" 2>&1 | grep -v Warning > "$OUT/logs/mma-layout.log"
C=$(fresh)
while read -r m lat p tc nm; do
  [ -z "$m" ] && continue
  prof "wan$m-$lat-$p-tc-$tc-norm-$nm" 150 "$C" --model "$m" --latent "$lat" --precision "$p" --tensor-cores "$tc" --norm "$nm"
done <<< "${PROFILES:-2.1 21x60x104 f16 on fused
2.1 21x60x104 f16 off fused
2.2 3x44x80 f16 on fused}"
finish
