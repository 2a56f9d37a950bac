#!/usr/bin/env bash
# bench/h200/build.sh [COMMIT] [--pool]: builds what the H200 runs into .h200/ (git-ignored,
# .gitignore), from a clean `git archive` of COMMIT (default HEAD), never from the working tree
# (it may hold uncommitted work). Run on the development machine, from anywhere in the checkout:
#   .h200/dist/     dist/cli.js, dist/chunks/, dist/bench-node.js (vite.cli.config.ts)
#   .h200/COMMIT    the short commit, read by bench/h200/run.sh
#   .h200/cudnn-conv-anchor.py   the same-lease cuDNN anchor (../shared/gpu), where that file exists
#   --into DIR: DIR/dist and DIR/COMMIT instead of .h200/dist and .h200/COMMIT (a second build beside the first,
#           e.g. .h200/ab/NAME for bench/h200/scenarios/abn.sh; nothing else written)
#   --pool: .h200/pool/pool-throughput.js (bench/levers/vite.pool.config.ts) and .h200/pool/vk/ (Mesa's
#           device-select Vulkan layer with the libraries it needs; the pool-x2 scenario installs it)
# Then carry ".h200" in the device call (docs/gpu-runs.md); its size is printed last.
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
rev=HEAD pool= into=
while [ $# -gt 0 ]; do
  case $1 in
    --pool) pool=1 ;;
    --into) into=$2; shift ;;
    *) rev=$1 ;;
  esac
  shift
done
commit=$(git rev-parse --short "$rev")
grep -qx '/.h200/' .git/info/exclude 2>/dev/null || echo '/.h200/' >> .git/info/exclude
tmp=$(mktemp -d /tmp/h200-build.XXXX)
git archive "$commit" | tar -x -C "$tmp"
ln -s "$root/node_modules" "$tmp/node_modules"
(cd "$tmp" && npx vite build --config vite.cli.config.ts --logLevel warn)
if [ -n "$into" ]; then
  rm -rf "$into/dist" && mkdir -p "$into" && cp -r "$tmp/dist" "$into/dist" && echo "$commit" > "$into/COMMIT"
  rm -rf "$tmp"
  echo "built $into from $commit: $(du -sb "$into" | cut -f1) bytes"
  exit 0
fi
rm -rf .h200/dist && mkdir -p .h200 && cp -r "$tmp/dist" .h200/dist
echo "$commit" > .h200/COMMIT
[ -f ../shared/gpu/cudnn-conv-anchor.py ] && cp ../shared/gpu/cudnn-conv-anchor.py .h200/
if [ -n "$pool" ]; then
  (cd "$tmp" && npx vite build --config bench/levers/vite.pool.config.ts --logLevel warn)
  rm -rf .h200/pool && mkdir -p .h200/pool/vk/lib && cp "$tmp"/.h200-levers/pool-throughput.js .h200/pool/
  cp /usr/lib/x86_64-linux-gnu/libVkLayer_MESA_device_select.so /usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json .h200/pool/vk/
  for l in $(ldd .h200/pool/vk/libVkLayer_MESA_device_select.so | awk '/=> \//{print $3}' | grep -v -E 'libc\.so|libm\.so|libpthread|libdl\.so|libgcc|libstdc|ld-linux'); do cp -L "$l" .h200/pool/vk/lib/; done
fi
rm -rf "$tmp"
echo "built .h200 from $commit: $(du -sb .h200 | cut -f1) bytes (tracked tree: $(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1) bytes)"
