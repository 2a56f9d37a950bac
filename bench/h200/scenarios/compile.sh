#!/usr/bin/env bash
# Pipeline compiles: all at once, one at a time, or across worker devices, empty and filled driver cache.
# bench/probes/compile-parallel.mjs on a plan's own WGSL (constants written in), dumped on the development
# machine into .h200/compile/<plan>/ by `wan-vae shaders --dump` (docs/gpu-runs.md), e.g.
#   tc   node bin/wan-vae.mjs shaders --dump .h200/compile/tc --adapter h200 --precision f16
#   f32  node bin/wan-vae.mjs shaders --dump .h200/compile/f32 --adapter h200 --tensor-cores off
# Each way in a new process with an empty NVIDIA shader cache; `all` once more on the cache its first run
# filled (what is left: Tint, Dawn and the driver's cache lookups). One JSON line per run in compile.jsonl.
for plan in ${PLANS:-tc f32}; do
  D=.h200/compile/$plan
  [ -f $D/index.json ] || { echo "compile: $D was not carried"; continue; }
  for way in serial all "workers 2" "workers 4" "workers 8"; do
    late "compile-$plan-$way" && break
    C=$(fresh)
    __GL_SHADER_DISK_CACHE_PATH=$C timeout 60 node bench/probes/compile-parallel.mjs $D $way --flags "$F" 2>> "$OUT/logs/compile.log" | grep '^{' >> "$OUT/compile.jsonl"
    [ "$way" = all ] && __GL_SHADER_DISK_CACHE_PATH=$C timeout 60 node bench/probes/compile-parallel.mjs $D all --flags "$F" 2>> "$OUT/logs/compile.log" | grep '^{' | sed 's/"way":"all"/"way":"all-filled"/' >> "$OUT/compile.jsonl"
  done
done
[ -f "$OUT/compile.jsonl" ] && node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) { const r = JSON.parse(l);
  console.log(r.dir.split("/").pop().padEnd(4), (r.way + (r.workers ? " " + r.workers : "")).padEnd(11), String(r.totalMs).padStart(6), "ms", r.doneMs ? "done at " + r.doneMs.join(",") : r.perWorker.map((w) => w.deviceMs + "+" + w.compileMs).join(" ")); }' "$OUT/compile.jsonl"
finish
