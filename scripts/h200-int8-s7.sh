#!/usr/bin/env bash
# Issue 14, session 7 (2026-12-01): int8 weights on the straight-line tensor-core GEMM (dequant-int8 expands
# each conv's int8 weights to f16 just before its GEMM, src/kernels/dequant-int8.ts). One call of ~4-5 min.
# Run through the `device` tool like scripts/h200-run.sh (its header: the stripped node split in two, two
# calls back to back on a warm machine): call 1 carries .gpu-bundle/np/node.xz.aa with a trivial command;
# call 2 carries .gpu-bundle/np/node.xz.ab, .gpu-bundle/{boot.sh,dawn.node.xz,debs,webgpu} and .h200-int8
# (dist/ built from a `git archive` of the commit measured) and runs
#   cat .gpu-bundle/np/node.xz.aa .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-int8/dist dist && COMMIT=<sha> bash scripts/h200-int8-s7.sh
# Every decode: official-shape generated weights and latents (--synthetic), its JSON line in
# $OUT/decode.jsonl (planned = measured: plannedPeakGpuBytes vs peakGpuBytes; the plan's reason with its
# expected time), PSNR / max |err| against the exact f32 decode of the same latents in $OUT/compare.jsonl
# (scripts/compare-npy.mjs), as scripts/h200-levers.sh ROWS=s6 measured the s6 rows. Rows in priority order,
# each with a timeout. Dry run on lavapipe (no tensor cores: the int8 rows then run portable; tiny sizes):
#   OUT=/tmp/o SKIPBOOT=1 L22F=2x4x4 L22S3=2x4x4 L21S=2x8x8 B21=24 B22=48 bash scripts/h200-int8-s7.sh
set -u
[ -n "${SKIPBOOT:-}" ] || source .gpu-bundle/boot.sh >/dev/null
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown} $(date -u +%FT%TZ)" >> "$OUT/gpu.txt"
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
d() { # d NAME TIMEOUT ARGS...: one decode into /tmp/NAME.npy; last stdout line is its JSON summary
  local name=$1 tmo=$2 t0=$SECONDS
  shift 2
  timeout "$tmo" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --out "/tmp/$name.npy" "$@" > "/tmp/$name.log" 2>&1
  echo "{\"name\":\"$name\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "/tmp/$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  echo "== $name $((SECONDS - t0)) s"
  grep -v '^{' "/tmp/$name.log" | grep -v Warning | tail -3 | cut -c1-400
}
c() { # c REF NAME: PSNR / max |err| of NAME against REF
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-300
}
L21="--synthetic 2.1 --latent-size ${L21S:-21x60x104}"
L22F="--synthetic 2.2 --latent-size ${L22F:-31x44x80}"
L22S3="--synthetic 2.2 --latent-size ${L22S3:-3x44x80}"
# int8 weights, f16 storage, tensor cores on (where the planner expects them faster: src/plan/auto.ts fitPlan)
I8="--precision f16 --weights-precision int8 --tensor-cores on"
AUTO="--weights-stream auto --norm auto --tile-store auto"
# 1. the issue's target: Wan2.2 704x1280x121 under 1 GiB (s6: 7 tiles, int8 streamed, portable, 1015.7 MiB,
#    142.8 s). Now the planner may take int8 on tensor cores: planned 36 tiles of 11x9, resident, 1016 MiB,
#    expected ~114 s (against ~147 s for the portable 7-tile plan)
d w22f-1g ${T22F:-200} $L22F --budget ${B22:-1024} $I8 $AUTO
# 2. its quality at 3 latent frames (the GPU bytes and tiling do not depend on the length; an f32 decode of
#    121 frames would take ~95 s): the same options against the exact f32 whole-frame decode
d w22s-exact 40 $L22S3 --tile none --precision f32 --weights-stream off
d w22s-1g 50 $L22S3 --budget ${B22:-1024} $I8 $AUTO && c w22s-exact w22s-1g
# 3. Wan2.1 480x832x81: exact f32 (reference), int8 on tensor cores whole frames (s6: 24.1 s on the looped
#    int8 GEMM, 14.1 s portable), int8 under 512 MiB (s6: 489.7 MiB, 20.6 s portable)
d w21-exact 30 $L21 --tile none --precision f32 --weights-stream off
d w21-int8tc 25 $L21 --tile none $I8 --weights-stream off && c w21-exact w21-int8tc
d w21-512-int8 35 $L21 --budget ${B21:-512} $I8 $AUTO && c w21-exact w21-512-int8
cd "$OUT" && tar czf logs.tgz -C /tmp $(cd /tmp && ls w2*.log) && cd - >/dev/null
ls -la "$OUT"
