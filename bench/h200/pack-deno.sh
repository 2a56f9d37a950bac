#!/usr/bin/env bash
# bench/h200/pack-deno.sh [COMMIT]: what the wgpu scenario (bench/h200/scenarios/wgpu.sh) needs beside the
# Node + Dawn bundle, in .h200-deno/ (git-ignored through .git/info/exclude). Run on the development
# machine, from anywhere in the checkout, after `npm install` (the deno binary is the devDependency's):
#   .h200-deno/deno.xz.aa, .ab, ...  the deno binary (node_modules/@deno/linux-x64-glibc/deno) as xz, in
#                                   pieces of at most 11 MB (a device call carries ~15 MB beside the tree)
#   .h200-deno/lib/                 dist/lib (the library wgpu-decode.ts imports), built from a clean
#                                   `git archive` of COMMIT (default HEAD), never from the working tree
#   .h200-deno/COMMIT               the short commit of that build
# Carry one piece per call, in back-to-back calls on the warm machine (docs/gpu-runs.md); the scenario
# joins them (cat .h200-deno/deno.xz.a? | xz -dc). The piece count and sizes are printed last.
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
commit=$(git rev-parse --short "${1:-HEAD}")
bin=node_modules/@deno/linux-x64-glibc/deno
[ -x "$bin" ] || { echo "pack-deno.sh: $bin is missing (npm install: deno is a devDependency)" >&2; exit 2; }
grep -qx '/.h200-deno/' .git/info/exclude 2>/dev/null || echo '/.h200-deno/' >> .git/info/exclude
rm -rf .h200-deno && mkdir -p .h200-deno
xz -T2 -9 -c "$bin" > .h200-deno/deno.xz
split -b 11000000 -a 2 .h200-deno/deno.xz .h200-deno/deno.xz.
rm .h200-deno/deno.xz
tmp=$(mktemp -d /tmp/h200-deno.XXXX)
git archive "$commit" | tar -x -C "$tmp"
ln -s "$root/node_modules" "$tmp/node_modules"
(cd "$tmp" && npx vite build --config vite.worker.config.ts --logLevel warn && npx vite build --config vite.lib.config.ts --logLevel warn)
cp -r "$tmp/dist/lib" .h200-deno/lib
echo "$commit" > .h200-deno/COMMIT
rm -rf "$tmp"
echo "packed .h200-deno from $commit ($("$bin" --version | head -1)):"
ls -l .h200-deno | awk 'NR > 1 {print "  " $5 "  " $9}'
echo "  $(ls .h200-deno/deno.xz.a? | wc -l) pieces of the deno binary; lib: $(du -sb .h200-deno/lib | cut -f1) bytes"
