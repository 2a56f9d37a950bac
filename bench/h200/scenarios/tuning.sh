#!/usr/bin/env bash
# After a conv tuning change: every conv3d kernel row and two Wan2.1 480x832x81 decodes (whole, --budget 1536).
rows conv 240 --only conv3d
L="--synthetic 2.1 --latent-size ${LAT:-21x60x104}"
dec f32-whole 150 $L --tile none --norm full
dec f32-budget1536 150 $L --budget 1536
rm -f /tmp/f32-*.npy
finish
