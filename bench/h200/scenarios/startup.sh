#!/usr/bin/env bash
# Where the cold start of a decode goes (build phase split), cold against warm, the head conv and attention.
# The NVIDIA driver keeps compiled pipelines in a disk cache across processes (__GL_SHADER_DISK_CACHE_PATH):
# a "fresh" step gets an empty cache directory (a user's first run on the machine), a "cached" step the
# directory of an earlier step (every later run). timing = bench-node --timing (decode 1 cold: build +
# decode with the phase split; decode 2 warm on the same decoder); cli = what a user runs; profile = per-layer
# GPU time (head.2 and middle.1.attn rows); the attention kernel alone at c 384, N 6240.
# Dry run: W21=2x2x3 W22=1x2x2 SKIPBOOT=1.
W21=${W21:-21x60x104} W22=${W22:-31x44x80}
L21="--model 2.1 --latent $W21"
CACHE=$(fresh)
tim port-f32 60 "$(fresh)" $L21 --precision f32 --tensor-cores off --repeat 2
cli port-f32-fresh 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f32 --tensor-cores off
cli port-f32-cached 40 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f32 --tensor-cores off
tim tc-f16 40 "$(fresh)" $L21 --precision f16 --repeat 2
prof wan2.1-f32-portable 60 "$CACHE" $L21 --precision f32 --tensor-cores off
tim port-f32-js 40 "$(fresh)" $L21 --precision f32 --tensor-cores off --repeat 1 --prep js
cli tc-f16-cached 30 "$CACHE" --synthetic 2.1 --latent-size "$W21" --precision f16
tim wan22 70 "$(fresh)" --model 2.2 --latent "$W22" --precision f16 --repeat 1
late attention-row || rows attn 60 --only attention --runs 20
prof wan2.1-f16-tc 40 "$CACHE" $L21 --precision f16 --tensor-cores on --norm fused
finish
