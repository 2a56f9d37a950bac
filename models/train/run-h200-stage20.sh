#!/usr/bin/env bash
# Stage 20's single device call: stage 19's run again from stage 19's weights (its moving average, shipped with
# this script), new data keys (offset 1 800 000), the encoder trained, the full 475 s of training; then the blends, the
# chosen model's samples and the ukui set's latents, as stages 9 and 11-19. Written 2026-12-07 after stage 19's call; not run yet.
#
# Why (models/training/stage19.*): stage 19 gained +0.18 dB on the ukui set (28.747 -> 28.927), fast pans +0.19
# (25.604 -> 25.793), with 3,284 steps: per step the rate of stages 13-18, no sign of a plateau. Stages 17-19's rules
# all chose the moving average at alpha 1. The rule, fixed here before the run (stages 12-19's): held-out mean not
# below the start, astronaut-128 at most 0.05 dB below it, then the best video validation mean (blend.py's rule with
# --sample-slack 0.05); base-0 (stage 19's weights) chosen means stage 19 ships.
#
# Run from the repository root with .models-data/photos carried; the commands and results: run-h200-finetune.sh.
# Move test/fixtures/checkpoints out of the tree for the call (the tree and the photos together are too large to
# copy otherwise) and back before the next commit. Results: copy OUT/ema or OUT/trained (whichever the rule chose,
# blend/blend.json "chosen") into models/.
STAGE=20 DATA_OFFSET=1800000 SAMPLE_SLACK=0.05 exec bash "$(dirname "$0")/run-h200-finetune.sh"
