#!/usr/bin/env bash
# The Winograd conv (--conv winograd / winograd4) against the direct conv: per-layer rows and cold CLI decodes.
# STEPS (default "rows decode profile"): rows = the -tiled rows (direct conv, TILED_CANDIDATES, Winograd
# wino2 / wino4: the 3 kernels over all bands and each alone, effective TFLOP/s = direct FLOPs / time, max
# |err| against direct); decode = cold f32 portable decodes (--tensor-cores off, whole frames) with each conv
# of CONVS (default "direct winograd winograd4"), each compared with the direct one; default = the same decode
# with default options (what --conv auto picks); profile = bench-node --profile with each conv of PCONVS.
# Env: VAE (2.1) and LAT (21x60x104) pick the model and latent, ROWS the rows' --only list. Wan2.2's widths:
#   ROWS=conv3d/256ch-352x640-tiled,conv3d/512ch-176x320-tiled,conv3d/1024ch-88x160-tiled STEPS=rows
#   STEPS=decode VAE=2.2 LAT=3x44x80 CONVS="direct winograd4"    (PSNR), then LAT=31x44x80 CONVS=winograd4
S=" ${STEPS:-rows decode profile} "
L="--synthetic ${VAE:-2.1} --latent-size ${LAT:-21x60x104} --tile none --tensor-cores off"
[[ $S == *" rows "* ]] && rows wino 240 --only "${ROWS:-conv3d/96ch-480x832-tiled,conv3d/192ch-240x416-tiled,conv3d/384ch-120x208-tiled,conv3d/384ch-60x104-tiled}" --runs 20
if [[ $S == *" decode "* ]]; then
  for c in ${CONVS:-direct winograd winograd4}; do dec f32-$c 90 $L --precision f32 --conv $c; done
  for c in ${CONVS:-direct winograd winograd4}; do [ "$c" != direct ] && [ -f /tmp/f32-direct.npy ] && [ -f /tmp/f32-$c.npy ] && cmp f32-direct f32-$c; done
fi
if [[ $S == *" default "* ]]; then
  dec f32-default 90 $L
  [ -f /tmp/f32-direct.npy ] && cmp f32-direct f32-default
fi
rm -f /tmp/f32-*.npy
if [[ $S == *" profile "* ]]; then
  for pc in ${PCONVS:-winograd}; do prof wan${VAE:-2.1}-f32-$pc 150 "$(fresh)" --model ${VAE:-2.1} --latent ${LAT:-21x60x104} --precision f32 --tensor-cores off --conv $pc; done
fi
finish
