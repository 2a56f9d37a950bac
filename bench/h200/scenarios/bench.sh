#!/usr/bin/env bash
# Kernel rows (conv3d incl. fused-norm rows, attention) and the trade-offs table (5 frames) through bench-node.
rows kernels 200 --only conv3d,attention
rows tradeoffs 360 --only tradeoffs --frames 5
finish
