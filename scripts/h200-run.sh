#!/usr/bin/env bash
# The H200 measurements of the README (run through the `device` tool on a bare GPU machine, see
# ../shared/gpu/README.md): carry .gpu-bundle, dist (npm run build:cli) and out/bench
# (npm run bench:node -- --help builds it); results go to $OUT. Sections (each fits one 10-minute call):
#   bash scripts/h200-run.sh decodes   81-frame CLI decodes: whole / budgets / norm modes / Wan2.2
#   bash scripts/h200-run.sh bench     kernels (conv3d incl. fused-norm rows, attention) and the tradeoffs table
#   bash scripts/h200-run.sh mma       cuDNN anchor, conv rows (tensor cores checked against the portable conv), f16 decodes
#   bash scripts/h200-run.sh tuning    conv3d rows and two 81-frame decodes (after a conv tuning change)
# Transfer size (2026-12-01): the device tool sends at most 64 MiB (working tree + carried paths); with
# models/ in the tree (41 MiB) the 28 MiB bundle no longer fits in one call. What worked: build dist and
# out/bench from a clean `git archive` into an ignored folder (.h200/dist, .h200/bench-node.mjs), replace
# .gpu-bundle/node.xz by a stripped node (`strip -o /tmp/node /usr/bin/node && xz -9 -c /tmp/node >
# .gpu-bundle/node.xz`: 24 -> 21 MiB), then two calls back to back on the warm machine (30 s): first
# carry [".gpu-bundle/node.xz"] with a trivial command, then carry [".gpu-bundle/boot.sh",
# ".gpu-bundle/dawn.node.xz", ".gpu-bundle/debs", ".gpu-bundle/webgpu", ".h200"] (ignored files already
# there are kept) with `rm -rf dist && cp -r .h200/dist dist && mkdir -p out/bench && cp
# .h200/bench-node.mjs out/bench/ && COMMIT=<sha> bash scripts/h200-run.sh mma`.
# Session 4 (2026-12-01): the tree alone is ~43 MiB, so even node.xz (21 MiB) no longer fits beside it in one
# call. What worked: `split -b 11000000 .gpu-bundle/node.xz .gpu-bundle/np/node.xz.` here; call 1 carries
# [".gpu-bundle/np/node.xz.aa"] with a trivial command; call 2, at once on the warm machine, carries
# [".gpu-bundle/np/node.xz.ab", ".gpu-bundle/boot.sh", ".gpu-bundle/dawn.node.xz", ".gpu-bundle/debs",
# ".gpu-bundle/webgpu", ".h200/dist", ".h200/bench-node.mjs"] and starts with `cat .gpu-bundle/np/node.xz.aa
# .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && rm -rf dist && cp -r .h200/dist dist && mkdir -p out/bench
# && cp .h200/bench-node.mjs out/bench/ && COMMIT=<sha> bash scripts/h200-run.sh <section>`. Build .h200 from
# `git archive <sha>` (HEAD can be mid-way through another engineer's commits: check tsc on the archive).
# The device tool returns at most 8 files: sections tar the rest.
set -u
source .gpu-bundle/boot.sh >/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
F=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia
d() { # one decode with official-shape generated weights; last stdout line is its JSON summary
  local t0=$SECONDS
  timeout "${TMO:-150}" node bin/wan-vae.mjs decode --dawn-flags "$F" --json --out /tmp/v.npy "$@" > /tmp/d.log 2>&1
  echo "{\"args\":\"$*\",\"rc\":$?,\"wall\":$((SECONDS - t0)),\"result\":$(tail -1 /tmp/d.log | grep '^{' || echo null)}" >> "$OUT/decode.jsonl"
  tail -2 /tmp/d.log
}
summarize_mma() { # one line per tensor-core bench row: GEMM TFLOP/s, error vs the portable conv, each variant (~max |diff| vs shipped)
  for f in "$OUT"/h200-*mma-s5*.json "$OUT"/*.partial.json; do [ -f "$f" ] && node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const x of r.results ?? []) { const e = x.extra ?? {}; console.log(x.name, x.status, "gemm", (e.gemmTflops ?? 0).toFixed(1), "pack", e.packMs, "err", e.maxAbsVsPortable,
      Object.keys(e).filter((k) => k.startsWith("gemmTflops_")).map((k) => k.slice(11) + "=" + e[k].toFixed(1) + (e["maxAbsVsShipped_" + k.slice(11)] ? "~" + e["maxAbsVsShipped_" + k.slice(11)].toExponential(0) : "")).join(" "),
      "rowsOuter pack", e.packMs_rowsOuter, "diff", e.differing_rowsOuter,
      Object.keys(e).filter((k) => k.startsWith("error_")).map((k) => k + ":" + e[k].slice(0, 60)).join(" ")); }' "$f"; done
}
case "${1:-decodes}" in
  decodes)
    L=--synthetic\ 2.1\ --latent-size\ 21x60x104
    d $L --tile none --norm full
    d $L --tile none --norm fused
    d $L --tile none --norm chunked
    d $L --budget 1536
    d $L --precision f16 --budget 768
    d $L --precision f16 --tile none --norm fused
    ;;
  mma)
    # tensor cores (conv3d-mma: pack + blocked GEMM). Carry also .h200 (a copy of ../shared/gpu/cudnn-conv-anchor.py).
    # 1. cuDNN per layer in the same lease; 2. the tensor-core rows at the four ANCHORS shapes (pack + GEMM,
    # each alone, error vs the portable conv on the same inputs; ONLY=conv3d adds the portable rows);
    # 3. 81-frame f16 decodes, portable vs tensor cores (norm full and fused), compared with compare-npy.
    # COMMIT: the commit dist and out/bench were built from (recorded in the bench report); CUDNN=0 skips 1.
    [ "${CUDNN:-1}" = 1 ] && [ -f .h200/cudnn-conv-anchor.py ] && timeout 120 python3 .h200/cudnn-conv-anchor.py > "$OUT/cudnn.jsonl" 2>&1
    timeout ${BENCH_TMO:-400} node out/bench/bench-node.mjs --only ${ONLY:-conv3d/96ch-480x832-mma,conv3d/192ch-240x416-mma,conv3d/384ch-120x208-mma,conv3d/384ch-60x104-mma} --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 --tag mma ${COMMIT:+--commit $COMMIT} > "$OUT/bench-mma.log" 2>&1
    grep -iE "mma|failed|Error|deprecat" "$OUT/bench-mma.log" | cut -c1-300 | head -30
    L=--synthetic\ 2.1\ --latent-size\ ${T:-21}x60x104
    d $L --tile none --precision f16 --tensor-cores off && mv /tmp/v.npy /tmp/portable.npy
    d $L --tile none --precision f16 --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    d $L --tile none --precision f16 --norm fused --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    ls "$OUT"/*-mma.json > /dev/null 2>&1 && rm -f "$OUT"/*.partial.json # keep the partial rows of a run cut short
    rm -f "$OUT"/*.svg
    ;;
  profile)
    # issue 11, session 4: the operand-layout probe, then per-layer GPU profiles (bench-node --profile:
    # one timed pass per dispatch) of whole decodes; everything under $OUT packed into one tarball at the end
    # (the device tool returns at most 8 files). Carry .h200 (bench-node.mjs). PROFILES=0 skips the decodes.
    P="node out/bench/bench-node.mjs --profile --out $OUT --dawn-flags $F ${COMMIT:+--commit $COMMIT}"
    [ "${PROBE:-1}" = 1 ] && timeout ${PROBE_TMO:-200} node bench/probes/mma-layout.mjs "$OUT/mma-layout.jsonl" 2>&1 | grep -v Warning | tee "$OUT/mma-layout.log" | cut -c1-160
    if [ "${PROFILES:-1}" = 1 ]; then
      for a in "2.1 21x60x104 on" "2.1 21x60x104 off" ${EXTRA_PROFILES:-}; do
        set -- $a
        timeout ${PROF_TMO:-150} $P --model $1 --latent $2 --precision ${4:-f16} --tensor-cores $3 --name "profile-wan$1-$2-${4:-f16}-mma-$3" > "$OUT/profile-wan$1-$2-${4:-f16}-mma-$3.log" 2>&1
        grep -E "plain decode|profiled decode|^\| conv |^\| norm |^\| attn |^\| (conv3d|rms|attention)" "$OUT/profile-wan$1-$2-${4:-f16}-mma-$3.log" | head -12
      done
    fi
    (cd "$OUT" && tar czf profile-all.tgz --exclude=profile-all.tgz . && find . -type f ! -name profile-all.tgz -delete)
    ;;
  s4)
    # issue 11, session 4 (carry .h200: dist, bench-node.mjs): per-layer profiles of the Wan2.1 480x832x81 f16
    # decode with and without tensor cores, the tensor-core kernel rows (pack + GEMM vs the portable conv),
    # CLI decodes (portable / tensor cores whole / tensor cores --budget 1536) compared with compare-npy;
    # everything under $OUT packed into one tarball (the device tool returns at most 8 files).
    P="node out/bench/bench-node.mjs --profile --out $OUT --dawn-flags $F ${COMMIT:+--commit $COMMIT}"
    L=--synthetic\ 2.1\ --latent-size\ ${T:-21}x60x104
    for tc in ${PROFILE_TC:-on off}; do
      timeout 150 $P --model 2.1 --latent ${T:-21}x60x104 --precision f16 --tensor-cores $tc --name profile-wan2.1-${T:-21}x60x104-f16-tc-$tc > "$OUT/profile-tc-$tc.log" 2>&1
      grep -E "plain decode|profiled decode|^\| (conv|norm|attn|output|dupadd|crop) \|" "$OUT/profile-tc-$tc.log" | head -9
    done
    timeout ${BENCH_TMO:-200} node out/bench/bench-node.mjs --only ${ONLY:-conv3d/96ch-480x832-mma,conv3d/192ch-240x416-mma,conv3d/384ch-120x208-mma,conv3d/384ch-60x104-mma} --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 --tag mma-s4 ${COMMIT:+--commit $COMMIT} > "$OUT/bench-mma.log" 2>&1
    grep -E "ms \(p10|failed|Error" "$OUT/bench-mma.log" | cut -c1-200 | head -12
    d $L --tile none --precision f16 --tensor-cores off && mv /tmp/v.npy /tmp/portable.npy
    d $L --tile none --precision f16 --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    d $L --budget 1536 --precision f16 --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    rm -f "$OUT"/*.svg
    (cd "$OUT" && tar czf /tmp/s4-all.tgz . && find . -type f -delete && mv /tmp/s4-all.tgz .)
    ;;
  s4final)
    # issue 11, session 4, last call: profiles with tensor cores (norm full and fused), then CLI decodes:
    # Wan2.1 480x832x81 portable f16 (the reference for compare-npy), tensor cores whole / norm fused /
    # --budget 1536, Wan2.1 720x1280x81 and Wan2.2 704x1280x121 with tensor cores. One tarball + decode.jsonl.
    P="node out/bench/bench-node.mjs --profile --out $OUT --dawn-flags $F ${COMMIT:+--commit $COMMIT}"
    L=--synthetic\ 2.1\ --latent-size\ 21x60x104
    for nm in full fused; do
      timeout 120 $P --model 2.1 --latent 21x60x104 --precision f16 --tensor-cores on --norm $nm --name profile-wan2.1-21x60x104-f16-tc-on-norm-$nm > "$OUT/profile-norm-$nm.log" 2>&1
      grep -E "plain decode|profiled decode|^\| (conv|norm|attn) \|" "$OUT/profile-norm-$nm.log" | head -5
    done
    d $L --tile none --precision f16 --tensor-cores off && mv /tmp/v.npy /tmp/portable.npy
    d $L --tile none --precision f16 --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    d $L --tile none --precision f16 --norm fused --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    d $L --budget 1536 --precision f16 --tensor-cores on && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    rm -f /tmp/portable.npy /tmp/v.npy
    d --synthetic 2.1 --latent-size 21x90x160 --tile none --precision f16 --tensor-cores on
    TMO=240 d --synthetic 2.2 --latent-size 31x44x80 --tile none --precision f16 --tensor-cores on
    rm -f /tmp/v.npy
    (cd "$OUT" && tar czf /tmp/s4final.tgz . && mv /tmp/s4final.tgz . && rm -f *.log)
    ;;
  s4last)
    # issue 11, session 4: the default (no --tensor-cores flag) CLI decode, the warm decode of the
    # --budget 1536 plan (2 exact tiles, CPU store) through the profiler, Wan2.2 704x1280x121 with tensor
    # cores (the CLI fits the tiles: the whole-frame operand copy binds > 2 GiB).
    L=--synthetic\ 2.1\ --latent-size\ 21x60x104
    d $L --precision f16 --norm fused
    timeout 120 node out/bench/bench-node.mjs --profile --out $OUT --dawn-flags $F ${COMMIT:+--commit $COMMIT} --model 2.1 --latent 21x60x104 --precision f16 --tensor-cores on --tile exact:60x52:tile-major:cpu --name profile-wan2.1-21x60x104-f16-tc-on-budget1536-tiles > "$OUT/p.log" 2>&1
    grep -E "plain decode|profiled decode" "$OUT/p.log"; rm -f "$OUT/p.log"
    TMO=200 d --synthetic 2.2 --latent-size 31x44x80 --precision f16 --tensor-cores on
    rm -f /tmp/v.npy
    ;;
  s5a)
    # issue 11, session 5, call 1 (carry .h200-tc: dist, bench-node.mjs): timestamps unquantized (Dawn
    # rounds them to 65.536 us by default: every sub-ms kernel row before was quantized); per-layer profile
    # of Wan2.2 704x1280 (T latents, tensor cores, norm full = the CLI default that took 47.8 s at 121
    # frames); the GEMM variant rows (looped 3x2/2x4/4x2, straight-line conv3d-mma-flat in both loop orders
    # at 3x2/4x2/2x4/3x4/4x4) at the four ANCHORS shapes and Wan2.2's three largest layers. One tarball.
    FQ="$F,disable-dawn-features=timestamp_quantization"
    timeout ${PROF_TMO:-150} node out/bench/bench-node.mjs --profile --out "$OUT" --dawn-flags "$F disable-dawn-features=timestamp_quantization" ${COMMIT:+--commit $COMMIT} --model 2.2 --latent ${T:-3}x44x80 --precision f16 --tensor-cores on --name profile-wan2.2-${T:-3}x44x80-f16-tc-on > "$OUT/profile22.log" 2>&1
    grep -E "plain decode|profiled decode|^\| (conv|norm|attn|output|dupadd|crop) \|" "$OUT/profile22.log" | head -9
    grep -E "^\| conv3d-mma" "$OUT/profile22.log" | head -24 | cut -c1-120
    timeout ${BENCH_TMO:-240} node out/bench/bench-node.mjs --only ${ONLY:-conv3d/96ch-480x832-mma,conv3d/192ch-240x416-mma,conv3d/384ch-120x208-mma,conv3d/384ch-60x104-mma,conv3d/wan22} --dawn-flags "$FQ" --out "$OUT" --no-baseline --machine h200 --tag mma-s5 ${COMMIT:+--commit $COMMIT} > "$OUT/bench-mma.log" 2>&1
    grep -E "ms \(p10|failed|Error" "$OUT/bench-mma.log" | cut -c1-200 | head -16
    summarize_mma
    rm -f "$OUT"/*.svg
    (cd "$OUT" && tar czf /tmp/s5a.tgz . && find . -type f -delete && mv /tmp/s5a.tgz .)
    ;;
  s5final)
    # issue 11, session 5, last call (carry .h200-tc: dist, bench-node.mjs, cudnn-conv-anchor.py), with the
    # straight-line cb-tap GEMM as the default, most important first: CLI decodes (cold) of Wan2.1 480x832x81
    # portable f16 (the reference of compare-npy), tensor cores norm full / fused / --budget 1536, Wan2.2
    # 704x1280x121; per-layer profiles of Wan2.1 480x832x81 and Wan2.2 704x1280 (T22 latents), norm fused;
    # cuDNN per layer in this lease (CUDNN=0 skips); the GEMM rows incl. ROWS_OUTER (BENCH=0 skips);
    # Wan2.1 720x1280x81 (HD=0 skips). One tarball + decode.jsonl.
    FQ="$F,disable-dawn-features=timestamp_quantization"
    L=--synthetic\ 2.1\ --latent-size\ 21x60x104
    d $L --tile none --precision f16 --tensor-cores off && mv /tmp/v.npy /tmp/portable.npy
    d $L --tile none --precision f16 && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    d $L --tile none --precision f16 --norm fused && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    d $L --budget 1536 --precision f16 && node scripts/compare-npy.mjs /tmp/portable.npy /tmp/v.npy | tee -a "$OUT/decode.jsonl"
    rm -f /tmp/portable.npy /tmp/v.npy
    TMO=150 d --synthetic 2.2 --latent-size 31x44x80 --precision f16 --norm fused
    rm -f /tmp/v.npy
    P() { timeout ${PROF_TMO:-100} node out/bench/bench-node.mjs --profile --out "$OUT" --dawn-flags "$F disable-dawn-features=timestamp_quantization" ${COMMIT:+--commit $COMMIT} "$@"; }
    P --model 2.1 --latent 21x60x104 --precision f16 --tensor-cores on --norm fused --name profile-wan2.1-21x60x104-f16-tc-on-norm-fused > "$OUT/p21.log" 2>&1
    grep -E "CPU weight|plain decode|profiled decode" "$OUT/p21.log"
    P --model 2.2 --latent ${T22:-3}x44x80 --precision f16 --tensor-cores on --norm fused --name profile-wan2.2-${T22:-3}x44x80-f16-tc-on-norm-fused > "$OUT/p22.log" 2>&1
    grep -E "CPU weight|plain decode|profiled decode" "$OUT/p22.log"
    [ "${CUDNN:-1}" = 1 ] && [ -f .h200-tc/cudnn-conv-anchor.py ] && timeout 100 python3 .h200-tc/cudnn-conv-anchor.py > "$OUT/cudnn.jsonl" 2>&1; grep bfloat16 "$OUT/cudnn.jsonl" | cut -c1-120
    if [ "${BENCH:-1}" = 1 ]; then
      timeout ${BENCH_TMO:-120} node out/bench/bench-node.mjs --only ${ONLY:-conv3d/96ch-480x832-mma,conv3d/192ch-240x416-mma,conv3d/384ch-120x208-mma,conv3d/384ch-60x104-mma,conv3d/wan22} --dawn-flags "$FQ" --out "$OUT" --no-baseline --machine h200 --tag mma-s5final ${COMMIT:+--commit $COMMIT} > "$OUT/bench-mma.log" 2>&1
      summarize_mma | cut -c1-400
    fi
    [ "${HD:-1}" = 1 ] && d --synthetic 2.1 --latent-size 21x90x160 --tile none --precision f16 --norm fused
    rm -f /tmp/v.npy "$OUT"/*.svg
    (cd "$OUT" && tar czf /tmp/s5final.tgz --exclude=decode.jsonl . && find . -type f ! -name decode.jsonl -delete && mv /tmp/s5final.tgz .)
    ;;
  tuning)
    # conv3d per-cout blocks (96 / 16 channels): kernel rows and two decodes
    timeout 240 node out/bench/bench-node.mjs --only conv3d --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 > "$OUT/bench-conv.log" 2>&1
    grep -E "ms \(p10" "$OUT/bench-conv.log" | cut -c1-160
    L=--synthetic\ 2.1\ --latent-size\ 21x60x104
    d $L --tile none --norm full
    d $L --budget 1536
    ;;
  bench)
    timeout 200 node out/bench/bench-node.mjs --only conv3d,attention --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 > "$OUT/bench-kernels.log" 2>&1
    tail -3 "$OUT/bench-kernels.log"
    timeout 360 node out/bench/bench-node.mjs --only tradeoffs --frames 5 --dawn-flags "$F" --out "$OUT" --no-baseline --machine h200 > "$OUT/bench-tradeoffs.log" 2>&1
    tail -3 "$OUT/bench-tradeoffs.log"
    ;;
esac
