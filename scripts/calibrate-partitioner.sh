#!/usr/bin/env bash
#===- calibrate-partitioner.sh - measure the partitioner's cost prices ----===//
#
# Usage: scripts/calibrate-partitioner.sh [--out FILE] [--runs N]
#                                         [--threads N] [MODEL_DIR...]
#
# Compiles each model (MODEL_DIR/model.onnx; default: every float model in
# models/) twice, for the portable kernels and with the oneDNN delegate
# taking every group it supports (--partition-cost=false), profiles both
# (strata-run --profile-runs N, medians) and fits nanoseconds per unit of
# work per op class for each side (scripts/fit-partition-cost.py). The
# result is the calibration strata-compile reads with
# --partition-calibration FILE; written to
# lib/Backends/OneDNN/partition-cost.json (the delegate's built-in one,
# compiled into the tools) unless --out says otherwise. Measure on an idle
# machine: the fit is only as good as the timings.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$root/lib/Backends/OneDNN/partition-cost.json
runs=15
threads=1
dirs=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h|--help) sed -n 3,17p "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
if [ ${#dirs[@]} -eq 0 ]; then
  for d in "$root"/models/*/; do
    [ -f "$d/model.onnx" ] && dirs+=("${d%/}")
  done
fi
for tool in strata-compile strata-run; do
  [ -x "$build/bin/$tool" ] || { echo "calibrate-partitioner.sh: no $build/bin/$tool (run scripts/build.sh)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fit_args=()
for dir in "${dirs[@]}"; do
  name=$(basename "$dir")
  m=$work/$name
  mkdir -p "$m"
  echo "== $name"
  "$build/bin/strata-compile" "$dir/model.onnx" -o "$m/portable.strata" >/dev/null
  "$build/bin/strata-compile" "$dir/model.onnx" --backend onednn \
    --partition-cost=false --report "$m/report.json" -o "$m/onednn.strata" >/dev/null
  "$build/bin/strata-run" "$m/portable.strata" --profile-runs "$runs" \
    --profile-tsv "$m/portable.tsv" >/dev/null
  "$build/bin/strata-run" "$m/onednn.strata" --threads "$threads" \
    --profile-runs "$runs" --profile-tsv "$m/onednn.tsv" >/dev/null
  fit_args+=("$name" "$m/report.json" "$m/portable.tsv" "$m/onednn.tsv")
done
machine=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name\s*:\s*//')
isa=$(grep -m1 '^flags' /proc/cpuinfo | grep -o 'avx512f\|avx2' | sort -u | tr '\n' ' ')
/usr/bin/python3 "$root/scripts/fit-partition-cost.py" --out "$out" \
  --machine "$machine (${isa% })" --threads "$threads" "${fit_args[@]}"
echo "wrote $out"
