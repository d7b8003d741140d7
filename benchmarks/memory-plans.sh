#!/usr/bin/env bash
#===- memory-plans.sh - memory-plan figures of every shared model ---------===//
#
# Compiles each model under ../shared/models with --report and prints a
# markdown table: arena bytes, the lower bound (largest total of
# simultaneously live bytes), the naive sum, and arena / lower bound.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
models=${MODELS_DIR:-$root/../shared/models}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| model | arena bytes | lower bound | naive sum | arena / lower bound | compile ms |"
echo "|---|---:|---:|---:|---:|---:|"
for dir in "$models"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/model.onnx" ] || continue
  if ! "$build/bin/strata-compile" "$dir/model.onnx" -o "$tmp/$name.strata" \
      --report "$tmp/$name.json" 2>"$tmp/$name.err"; then
    echo "| $name | compile failed: $(head -1 "$tmp/$name.err") | | | | |"
    continue
  fi
  python3 - "$tmp/$name.json" "$name" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
plan = report["memory_plans"][0]
print(f"| {sys.argv[2]} | {plan['arena_bytes']} | {plan['lower_bound_bytes']} "
      f"| {plan['naive_bytes']} | {plan['arena_over_lower_bound']:.3f} "
      f"| {report['total_milliseconds']:.0f} |")
PY
done
