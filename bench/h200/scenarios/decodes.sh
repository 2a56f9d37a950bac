#!/usr/bin/env bash
# Wan2.1 480x832x81 CLI decodes, f32 whole frames by norm mode, under budgets, f16 (cold processes).
# Env: LAT (21x60x104).
L="--synthetic 2.1 --latent-size ${LAT:-21x60x104}"
dec f32-norm-full 150 $L --tile none --norm full
dec f32-norm-fused 150 $L --tile none --norm fused
dec f32-norm-chunked 150 $L --tile none --norm chunked
dec f32-budget1536 150 $L --budget 1536
dec f16-budget768 150 $L --precision f16 --budget 768
dec f16-norm-fused 150 $L --precision f16 --tile none --norm fused
rm -f /tmp/f*.npy
finish
