#!/usr/bin/env bash
# int8 weights on tensor cores (dequant-int8 + the straight-line GEMM) under budgets, with PSNR against f32.
# 1. Wan2.2 704x1280x121 under 1 GiB; 2. its quality at 3 latent frames (the GPU bytes and tiling do not
# depend on the length) against the exact f32 whole-frame decode; 3. Wan2.1 480x832x81: exact f32, int8 on
# tensor cores whole frames, int8 under 512 MiB. PORTABLE=1 runs the int8 rows on the portable conv
# (--tensor-cores off) instead. Dry run: SKIPBOOT=1 L22F=2x4x4 L22S3=2x4x4 L21S=2x8x8 B21=24 B22=48.
TCF="--tensor-cores on"; [ -n "${PORTABLE:-}" ] && TCF="--tensor-cores off"
L21="--synthetic 2.1 --latent-size ${L21S:-21x60x104}"
L22F="--synthetic 2.2 --latent-size ${L22F:-31x44x80}"
L22S3="--synthetic 2.2 --latent-size ${L22S3:-3x44x80}"
I8="--precision f16 --weights-precision int8 $TCF"
AUTO="--weights-stream auto --norm auto --tile-store auto"
dec w22f-1g ${T22F:-200} $L22F --budget ${B22:-1024} $I8 $AUTO
dec w22s-exact 40 $L22S3 --tile none --precision f32 --weights-stream off
dec w22s-1g 50 $L22S3 --budget ${B22:-1024} $I8 $AUTO && cmp w22s-exact w22s-1g
dec w21-exact 30 $L21 --tile none --precision f32 --weights-stream off
dec w21-int8tc 25 $L21 --tile none $I8 --weights-stream off && cmp w21-exact w21-int8tc
dec w21-512-int8 35 $L21 --budget ${B21:-512} $I8 $AUTO && cmp w21-exact w21-512-int8
rm -f /tmp/w2*.npy
finish
