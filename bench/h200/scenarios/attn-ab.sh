#!/usr/bin/env bash
# Attention A/B: the shipped shaders/attention.wgsl (.h200/dist-shipped) against a candidate build (.h200/dist).
# Build the candidate with the probe (e.g. bench/probes/attention-blocked64.wgsl) copied over
# shaders/attention.wgsl into .h200/dist, and the shipped one into .h200/dist-shipped (bench/h200/build.sh,
# then move its dist); both kernel rows in one lease, then the candidate's cold CLI decode (portable f32).
W21=${W21:-21x60x104}
for d in dist-shipped dist; do
  [ -f .h200/$d/bench-node.js ] || { echo "attn-ab: .h200/$d/bench-node.js was not carried"; continue; }
  rm -rf dist && cp -r .h200/$d dist
  rows "attn-$d" 60 --only attention --runs 20
done
cli port-f32-fresh 40 "$(fresh)" --synthetic 2.1 --latent-size "$W21" --precision f32 --tensor-cores off
finish
