#!/usr/bin/env bash
# Issue 14's H200 rows (int8 weights on tensor cores, weight streaming, budgets): ~2-3 min of decodes.
# Run through the `device` tool like scripts/h200-run.sh (its header: transfer size, the stripped node,
# two calls back to back on a warm machine): carry .gpu-bundle/np/node.xz.aa with a trivial command,
# then .gpu-bundle/np/node.xz.ab, .gpu-bundle/{boot.sh,dawn.node.xz,debs,webgpu} and .h200-levers
# (dist/cli.js + chunks built from a `git archive` of the commit measured) with
#   cat .gpu-bundle/np/node.xz.a? > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200-levers/dist dist && COMMIT=<sha> bash scripts/h200-levers.sh
# Every decode: official-shape generated weights and latents (--synthetic), its JSON line in
# $OUT/decode.jsonl (planned = measured: plannedPeakGpuBytes vs peakGpuBytes), its PSNR / max |err|
# against the exact f32 decode of the same latents in $OUT/compare.jsonl. Rows in priority order; each
# has a timeout so the call ends inside its limit. Dry run on lavapipe (no tensor cores, tiny sizes):
#   OUT=/tmp/o TC= L21S=2x8x8 L22S=2x4x4 B21=24 B22=48 SKIPBOOT=1 bash scripts/h200-levers.sh
set -u
[ -n "${SKIPBOOT:-}" ] || source .gpu-bundle/boot.sh >/dev/null
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${COMMIT:-unknown}" >> "$OUT/gpu.txt"
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
TC=${TC---tensor-cores on}
d() { # d NAME TIMEOUT ARGS...: one decode into /tmp/NAME.npy; last stdout line is its JSON summary
  local name=$1 tmo=$2 t0=$SECONDS
  shift 2
  timeout "$tmo" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --out "/tmp/$name.npy" "$@" > "/tmp/$name.log" 2>&1
  echo "{\"name\":\"$name\",\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 "/tmp/$name.log" | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  echo "== $name $((SECONDS - t0)) s"
  grep -v '^{' "/tmp/$name.log" | grep -v Warning | tail -3 | cut -c1-300
}
c() { # c REF NAME: PSNR / max |err| of NAME against REF
  echo "{\"ref\":\"$1\",\"name\":\"$2\",\"compare\":\"$(node scripts/compare-npy.mjs "/tmp/$1.npy" "/tmp/$2.npy" 2>&1 | tr '\n"' ' _')\"}" >> "$OUT/compare.jsonl"
  tail -1 "$OUT/compare.jsonl" | cut -c1-300
}
L21="--synthetic 2.1 --latent-size ${L21S:-21x60x104}"
L22="--synthetic 2.2 --latent-size ${L22S:-2x44x80}"
I8="--precision f16 --weights-precision int8 $TC"
# Wan2.1 480x832x81: the exact f32 decode (reference); int8 weights on tensor cores, whole frames (the
# kernel conv3d-mma-wq on real tensor cores: time, PSNR). Wan2.2 704x1280 with 2 latent frames (5 frames:
# the call's time; the plan's GPU bytes do not depend on the length) exact and under 1 GiB with int8 on
# tensor cores and streamed int8 weights (20 tiles planned). Wan2.1 under 512 MiB with int8 on tensor
# cores, streamed (14 tiles, 8.3 GB over the bus) and resident (20 tiles, no bus): the bus against the
# tile recompute, for the auto rule. Last the f16 tensor-core whole-frame decode for the pair's time.
if [ "${ROWS:-all}" = pool ]; then
  # kind nvidia-h200-x2: 8 queued Wan2.1 480x832x81 decodes (f16, tensor cores) on one GPU, then on two
  # (DecoderPool, one host copy of the weights); .h200-levers/pool-throughput.js from
  # `npx vite build --config bench/levers/vite.pool.config.ts` (bench/levers/pool-throughput.ts)
  nvidia-smi -L >> "$OUT/gpu.txt"
  for m in 1 2; do MEMBERS=$m ITEMS=8 timeout 200 node .h200-levers/pool-throughput.js "$OUT/pool.jsonl" 2>&1 | grep -v Warning | cut -c1-300; done
  exit 0
fi
if [ "${ROWS:-all}" = s6 ]; then
  # 2026-12-01 s6: shrinking tile windows (src/plan/tile-windows.ts). The call at 7b0cf0f failed every
  # shrinking f16 plan (odd windows: ring copies not 4-byte aligned; fixed in 2b1bfe3) and measured int8
  # weights on tensor cores slower than the portable int8 conv (24.1 vs 14.1 s), so the int8 rows here run
  # portable (--tensor-cores off). First the issue's target: Wan2.2 704x1280x121 under 1 GiB (planned 7
  # tiles of 44x12, int8 streamed through 3 slots, 139 GB over the bus, 1016 MiB, expected ~147 s); then the
  # same plan's quality at 3 latent frames (an f32 decode of 121 frames would take ~95 s) against the f32
  # and the int8 whole-frame decodes of the same latents (tiles + streaming exact: max |err| vs int8 whole
  # frames = 0 expected); Wan2.1 480x832x81 under 512 MiB (f16 weights on tensor cores: 8 tiles, expected
  # 9.4 s; int8 portable); the upload probe last. ~5 min of decodes.
  P8="--precision f16 --weights-precision int8 --tensor-cores off"
  L22F="--synthetic 2.2 --latent-size ${L22F:-31x44x80}"
  L22S3="--synthetic 2.2 --latent-size ${L22S3:-3x44x80}"
  d w22f-1g-int8 ${T22F:-240} $L22F --budget ${B22:-1024} $P8 --weights-stream auto --norm auto --tile-store auto
  d w22s-exact 40 $L22S3 --tile none --precision f32 --weights-stream off
  d w22s-int8 60 $L22S3 --tile none $P8 --weights-stream off && c w22s-exact w22s-int8
  d w22s-1g-int8 60 $L22S3 --budget ${B22:-1024} $P8 --weights-stream auto --norm auto --tile-store auto && c w22s-exact w22s-1g-int8 && c w22s-int8 w22s-1g-int8
  d w21-exact 40 $L21 --tile none --precision f32 --weights-stream off
  d w21-512-auto 45 $L21 --budget ${B21:-512} --precision f16 --weights-precision auto $TC --weights-stream auto --norm auto --tile-store auto && c w21-exact w21-512-auto
  d w21-512-int8 60 $L21 --budget ${B21:-512} $P8 --weights-stream auto --norm auto --tile-store auto && c w21-exact w21-512-int8
  cd "$OUT" && tar czf logs.tgz -C /tmp $(cd /tmp && ls w2*.log) && cd - >/dev/null
  exit 0
fi
if [ "${ROWS:-all}" = int8tc ]; then
  # the int8 tensor-core rows alone (after 6d3f487: the facade had dropped tensor cores for int8 weights)
  d w21-exact 40 $L21 --tile none --precision f32 --weights-stream off
  d w21-int8tc 30 $L21 --tile none $I8 --weights-stream off && c w21-exact w21-int8tc
  d w22-exact 40 $L22 --tile none --precision f32 --weights-stream off
  d w22-1g-int8tc 70 $L22 --budget ${B22:-1024} $I8 --weights-stream on --norm auto --tile-store auto && c w22-exact w22-1g-int8tc
  d w21-512-int8tc 45 $L21 --budget ${B21:-512} $I8 --weights-stream on --norm auto --tile-store auto && c w21-exact w21-512-int8tc
  # the bus: writeBuffer whole / in pieces / mapped staging (bench/probes/upload-bw.mjs)
  timeout 40 node bench/probes/upload-bw.mjs 64 1024 "$OUT/upload-bw.jsonl" 2>&1 | grep -v Warning | cut -c1-200
  cd "$OUT" && tar czf logs.tgz -C /tmp $(cd /tmp && ls w2*.log) && cd - >/dev/null
  exit 0
fi
d w21-exact 40 $L21 --tile none --precision f32 --weights-stream off
d w21-int8tc 30 $L21 --tile none $I8 --weights-stream off && c w21-exact w21-int8tc
d w22-exact 40 $L22 --tile none --precision f32 --weights-stream off
d w22-1g-int8tc 70 $L22 --budget ${B22:-1024} $I8 --weights-stream on --norm auto --tile-store auto && c w22-exact w22-1g-int8tc
d w21-512-int8tc 45 $L21 --budget ${B21:-512} $I8 --weights-stream on --norm auto --tile-store auto && c w21-exact w21-512-int8tc
d w21-512-int8tc-res 45 $L21 --budget ${B21:-512} $I8 --weights-stream off --norm auto --tile-store auto && c w21-exact w21-512-int8tc-res
# the streaming rule (fitPlan, src/plan/expected-time.ts) at 512 MiB with f16 weights: resident weights in
# 40 tiles, expected 17.7 s against 23.4 s for streaming in 14 tiles (measured 19.6 s at 5ae0879)
d w21-512-f16-auto 45 $L21 --budget ${B21:-512} --precision f16 --weights-precision f16 $TC --weights-stream auto --norm auto --tile-store auto && c w21-exact w21-512-f16-auto
d w21-f16tc 25 $L21 --tile none --precision f16 $TC --weights-stream off && c w21-exact w21-f16tc
cd "$OUT" && tar czf logs.tgz -C /tmp $(cd /tmp && ls w2*.log) && cd - >/dev/null
ls -la "$OUT"
