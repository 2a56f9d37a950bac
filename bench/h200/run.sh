#!/usr/bin/env bash
# bench/h200/run.sh <scenario> [args...]: the H200 measurements, one maintained runner (docs/gpu-runs.md).
# Each scenario is a file bench/h200/scenarios/<scenario>.sh, sourced after bench/h200/lib.sh (shared steps:
# dec, cmp, tim, cli, prof, rows, late, fresh, finish). `bench/h200/run.sh list` prints them with their
# first comment line. Run on the device machine from the checkout root (or anywhere: the runner changes
# to the checkout root itself):
#   OUT   where results go (required)
#   COMMIT the commit the build was made from (default: the content of .h200/COMMIT, written by build.sh);
#          recorded in $OUT/gpu.txt and passed to bench reports
#   SKIPBOOT=1 skips the Node + Dawn bundle (a local dry run on lavapipe, with node and dist/ already here)
#   STOP_AFTER no timed step starts after this many seconds (default 480; docs/gpu-runs.md)
# Before the scenario: the split node of the bundle is joined (.gpu-bundle/np/node.xz.a? -> node.xz), the
# bundle is booted (.gpu-bundle/boot.sh), and .h200/dist (bench/h200/build.sh) replaces dist/.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
H200_DIR=bench/h200
name=${1:-}
if [ -z "$name" ] || [ "$name" = list ] || [ "$name" = -h ] || [ "$name" = --help ]; then
  echo "usage: OUT=DIR [COMMIT=sha] bash bench/h200/run.sh <scenario> [args...]"
  for f in $H200_DIR/scenarios/*.sh; do
    printf '  %-16s %s\n' "$(basename "$f" .sh)" "$(sed -n '2{s/^# *//;p}' "$f" | cut -c1-110)"
  done
  [ -n "$name" ]; exit $?
fi
scenario=$H200_DIR/scenarios/$name.sh
if [ ! -f "$scenario" ]; then
  echo "bench/h200/run.sh: no scenario '$name' (bench/h200/scenarios/$name.sh); 'bench/h200/run.sh list' names them" >&2
  exit 2
fi
if [ -z "${OUT:-}" ]; then echo "bench/h200/run.sh: OUT is not set (the folder results go to)" >&2; exit 2; fi
mkdir -p "$OUT"
shift
[ -z "${COMMIT:-}" ] && [ -f .h200/COMMIT ] && COMMIT=$(cat .h200/COMMIT)
export OUT COMMIT=${COMMIT:-}
if [ -z "${SKIPBOOT:-}" ]; then
  if [ ! -f .gpu-bundle/node.xz ] && ls .gpu-bundle/np/node.xz.a? > /dev/null 2>&1; then cat .gpu-bundle/np/node.xz.a? > .gpu-bundle/node.xz; fi
  if [ ! -f .gpu-bundle/boot.sh ]; then echo "bench/h200/run.sh: .gpu-bundle/boot.sh was not carried (docs/gpu-runs.md)" >&2; exit 2; fi
  source .gpu-bundle/boot.sh > "$OUT/boot.log" 2>&1 || { echo "bench/h200/run.sh: the bundle did not boot: $(tail -2 "$OUT/boot.log")" >&2; exit 2; }
fi
if [ -d .h200/dist ]; then rm -rf dist && cp -r .h200/dist dist; fi
source $H200_DIR/lib.sh
source "$scenario" "$@"
