#!/usr/bin/env bash
# Tensor cores: cuDNN per layer (same lease), tensor-core GEMM rows at the ANCHORS shapes, f16 decodes compared.
# 1. .h200/cudnn-conv-anchor.py (bench/h200/build.sh copies it; CUDNN=0 skips); 2. the tensor-core rows
# (pack + GEMM, each alone, error against the portable conv on the same inputs; ONLY picks rows, e.g.
# ONLY=conv3d adds the portable rows, ...,conv3d/wan22 Wan2.2's three largest layers); 3. Wan2.1
# 480x832xT f16 CLI decodes: portable (the reference), tensor cores norm full, norm fused, --budget 1536.
if [ "${CUDNN:-1}" = 1 ] && [ -f .h200/cudnn-conv-anchor.py ]; then timeout 120 python3 .h200/cudnn-conv-anchor.py > "$OUT/cudnn.jsonl" 2>&1; grep bfloat16 "$OUT/cudnn.jsonl" | cut -c1-120; fi
rows mma 300 --only "${ONLY:-conv3d/96ch-480x832-mma,conv3d/192ch-240x416-mma,conv3d/384ch-120x208-mma,conv3d/384ch-60x104-mma}"
L="--synthetic 2.1 --latent-size ${T:-21}x60x104 --tile none --precision f16"
dec portable 60 $L --tensor-cores off
dec tc 60 $L --tensor-cores on && cmp portable tc
dec tc-fused 60 $L --tensor-cores on --norm fused && cmp portable tc-fused
dec tc-budget1536 60 --synthetic 2.1 --latent-size ${T:-21}x60x104 --precision f16 --budget 1536 --tensor-cores on && cmp portable tc-budget1536
rm -f /tmp/portable.npy /tmp/tc*.npy
finish
