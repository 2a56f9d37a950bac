#!/usr/bin/env bash
# bench/probes/stock-build.sh NAME COMMIT [PATCH]: the CLI build (vite.cli.config.ts) of a `git archive` of COMMIT, with
# PATCH applied where given (a variant measured beside the commit), into .h200-stock/NAME/dist (ignored through
# .git/info/exclude), without bench-node.js and source maps (what bench/h200/scenarios/stock.sh decodes with);
# .h200-stock/NAME/COMMIT says what it was built from. Run on the development machine, from anywhere in the checkout.
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
name=$1
commit=$(git rev-parse --short "$2")
patch=${3:-}
grep -qx '/.h200-stock/' .git/info/exclude 2>/dev/null || echo '/.h200-stock/' >> .git/info/exclude
tmp=$(mktemp -d /tmp/stock-build.XXXX)
git archive "$commit" | tar -x -C "$tmp"
[ -n "$patch" ] && (cd "$tmp" && git apply "$root/$patch")
ln -s "$root/node_modules" "$tmp/node_modules"
(cd "$tmp" && npx vite build --config vite.cli.config.ts --logLevel warn)
rm -rf ".h200-stock/$name" && mkdir -p ".h200-stock/$name" && cp -r "$tmp/dist" ".h200-stock/$name/dist"
rm -f ".h200-stock/$name/dist/bench-node.js" && find ".h200-stock/$name/dist" -name '*.map' -delete
echo "$commit${patch:+ + $patch}" > ".h200-stock/$name/COMMIT"
rm -rf "$tmp"
echo "built .h200-stock/$name from $(cat ".h200-stock/$name/COMMIT"): $(du -sb ".h200-stock/$name" | cut -f1) bytes"
