#!/usr/bin/env bash
# Memory levers: int8 weights on tensor cores, weight streaming, budgets; PSNR against the exact f32 decode.
# Every decode: generated official-shape weights and latents, its JSON line in decode.jsonl (planned =
# measured: plannedPeakGpuBytes vs peakGpuBytes), its PSNR / max |err| against the exact f32 decode of the
# same latents in compare.jsonl. Wan2.2 704x1280 at 2 latent frames (5 frames: the plan's GPU bytes do not
# depend on the length). Dry run on lavapipe (no tensor cores, tiny sizes):
#   SKIPBOOT=1 TC= L21S=2x8x8 L22S=2x4x4 B21=24 B22=48 bash bench/h200/run.sh levers
TC=${TC---tensor-cores on}
L21="--synthetic 2.1 --latent-size ${L21S:-21x60x104}"
L22="--synthetic 2.2 --latent-size ${L22S:-2x44x80}"
I8="--precision f16 --weights-precision int8 $TC"
AUTO="--norm auto --tile-store auto"
dec w21-exact 40 $L21 --tile none --precision f32 --weights-stream off
dec w21-int8tc 30 $L21 --tile none $I8 --weights-stream off && cmp w21-exact w21-int8tc
dec w22-exact 40 $L22 --tile none --precision f32 --weights-stream off
dec w22-1g-int8tc 70 $L22 --budget ${B22:-1024} $I8 --weights-stream on $AUTO && cmp w22-exact w22-1g-int8tc
dec w21-512-int8tc 45 $L21 --budget ${B21:-512} $I8 --weights-stream on $AUTO && cmp w21-exact w21-512-int8tc
dec w21-512-int8tc-res 45 $L21 --budget ${B21:-512} $I8 --weights-stream off $AUTO && cmp w21-exact w21-512-int8tc-res
# the streaming rule (fitPlan, src/plan/expected-time.ts) at 512 MiB with f16 weights
dec w21-512-f16-auto 45 $L21 --budget ${B21:-512} --precision f16 --weights-precision f16 $TC --weights-stream auto $AUTO && cmp w21-exact w21-512-f16-auto
dec w21-f16tc 25 $L21 --tile none --precision f16 $TC --weights-stream off && cmp w21-exact w21-f16tc
# the bus: writeBuffer whole / in pieces / mapped staging
late upload-bw || timeout 40 node bench/probes/upload-bw.mjs 64 1024 "$OUT/upload-bw.jsonl" 2>&1 | grep -v Warning | cut -c1-200
rm -f /tmp/w2*.npy
finish
