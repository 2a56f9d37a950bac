#!/usr/bin/env bash
# f16 tensor-core decode times, cold and warm (bench-node --timing), then the CLI itself, cold.
# timing: Wan2.2 704x1280x121, Wan2.1 480x832x81, the same under --budget 1536, Wan2.1 720x1280x81, Wan2.2 one
# latent frame with --prep js and --prep gpu (the weight preparation on the CPU / on the GPU); cli: Wan2.1 f16,
# Wan2.2 f16, Wan2.1 with no flag (f32). Dry run: W21=2x2x3 W22=1x2x2 W720=2x2x4 W22ONE=1x2x2 SKIPBOOT=1.
W21=${W21:-21x60x104} W22=${W22:-31x44x80} W720=${W720:-21x90x160} W22ONE=${W22ONE:-1x44x80}
C=$(fresh)
tim wan22 150 "$C" --model 2.2 --latent "$W22" --precision f16
tim wan21 60 "$C" --model 2.1 --latent "$W21" --precision f16
tim wan21-budget1536 60 "$C" --model 2.1 --latent "$W21" --precision f16 --budget 1536
tim wan21-720p 90 "$C" --model 2.1 --latent "$W720" --precision f16
tim wan22-1frame-js 90 "$C" --model 2.2 --latent "$W22ONE" --precision f16 --repeat 1 --prep js
tim wan22-1frame-gpu 60 "$C" --model 2.2 --latent "$W22ONE" --precision f16 --repeat 1 --prep gpu
cli wan21 60 "$C" --synthetic 2.1 --latent-size "$W21" --precision f16
cli wan22 120 "$C" --synthetic 2.2 --latent-size "$W22" --precision f16
cli wan21-default-f32 60 "$C" --synthetic 2.1 --latent-size "$W21"
finish
