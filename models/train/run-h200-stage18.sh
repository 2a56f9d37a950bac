#!/usr/bin/env bash
# Stage 18's single device call: stage 17's run again from stage 17's weights (its EMA, the blend's choice), new data
# keys (offset 1 600 000), the encoder trained, for 300 s of training instead of 475 (a shorter
# call); then the blends, the chosen model's samples and the ukui set's latents, as stages 9 and 11-17. Written
# 2026-12-07 after stage 17's call, before this one; run at 15:14 UTC (317 s, 1,686 steps in 238 s; the rule chose the
# moving average at alpha 1, which ships: models/training/stage18.*).
#
# Why (models/training/stage17.*): stage 17 from stage 16's weights gained +0.16 dB on the ukui set (28.494 -> 28.653),
# fast pans 25.302 -> 25.501, held-out table 29.559 -> 29.691, astronaut-128 22.818 -> 22.894; the recipe is unchanged
# (models/training/probe-speed-h100-2026-12-07-3209274.jsonl). The rule, fixed here before the run (stages 12-17's):
# held-out mean not below the start, astronaut-128 at most 0.05 dB below it, then the best video validation mean
# (blend.py's rule with --sample-slack 0.05); base-0 (stage 17's weights) chosen means stage 17 ships.
#
# Run from the repository root with .models-data/photos carried; the commands and results: run-h200-finetune.sh.
STAGE=18 DATA_OFFSET=1600000 SAMPLE_SLACK=0.05 TRAIN_SECONDS=${TRAIN_SECONDS:-300} TRAIN_DEADLINE=${TRAIN_DEADLINE:-320} LIMIT=${LIMIT:-385} \
  exec bash "$(dirname "$0")/run-h200-finetune.sh"
