#!/usr/bin/env bash
#===- compare-programs.sh - byte identity of two compilers' programs -----===//
#
# Usage: scripts/compare-programs.sh [--int8] REF NEW MODEL_DIR...
# Compiles every MODEL_DIR/model.onnx with two strata-compile binaries (REF,
# e.g. one built from the commit before a refactoring, and NEW) for the
# portable runtime and each backend (tensorrt, onednn, xnnpack,
# onednn,xnnpack), and compares the programs byte for byte. --int8 also
# compiles each quantized (random calibration, 4 samples) for tensorrt,
# onednn and xnnpack. Prints one line per model and a total; exits 1 when a
# pair differs, or the two compiles end differently (or either crashes).
# The check behind "no behaviour change" in refactorings (docs/pipeline.md).
#
#===----------------------------------------------------------------------===//
set -uo pipefail
int8=no
if [ "${1:-}" = --int8 ]; then int8=yes; shift; fi
if [ $# -lt 3 ]; then
  echo "usage: compare-programs.sh [--int8] REF NEW MODEL_DIR..." >&2
  exit 2
fi
ref=$1 new=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
same=0 differ=0 refused=0

# Compiles $1 with both binaries and the flags after it; one word of result.
compare() {
  local model=$1
  shift
  "$ref" "$model" -o "$work/ref.strata" "$@" >/dev/null 2>"$work/ref.err"
  local r1=$?
  "$new" "$model" -o "$work/new.strata" "$@" >/dev/null 2>"$work/new.err"
  local r2=$?
  # A refusal is an exit status of 1 or 2 with a message; a crash (128 and
  # up) or a different status is a difference.
  if [ $r1 -ne 0 ] && [ $r1 -eq $r2 ] && [ $r1 -lt 128 ]; then
    refused=$((refused + 1)); echo "both-refuse"
  elif [ $r1 -ne 0 ] || [ $r2 -ne 0 ]; then
    differ=$((differ + 1)); echo "EXIT($r1,$r2)"
  elif cmp -s "$work/ref.strata" "$work/new.strata"; then
    same=$((same + 1)); echo "same"
  else
    differ=$((differ + 1)); echo "DIFFER"
  fi
  rm -f "$work/ref.strata" "$work/new.strata"
}

for dir in "$@"; do
  model=$dir/model.onnx
  [ -f "$model" ] || continue
  line="$(basename "$dir"):"
  for backend in portable tensorrt onednn xnnpack onednn,xnnpack; do
    flags=()
    [ $backend = portable ] || flags=(--backend "$backend")
    result=$(compare "$model" "${flags[@]}"; echo "$same $differ $refused")
    read -r same differ refused <<<"$(tail -1 <<<"$result")"
    line+=" $backend=$(head -1 <<<"$result")"
  done
  if [ $int8 = yes ]; then
    for backend in tensorrt onednn xnnpack; do
      result=$(compare "$model" --backend "$backend" --quantize \
        --calibration-data random --calibration-samples 4 --no-progress
        echo "$same $differ $refused")
      read -r same differ refused <<<"$(tail -1 <<<"$result")"
      line+=" int8-$backend=$(head -1 <<<"$result")"
    done
  fi
  echo "$line"
done
echo "identical: $same, different: $differ, refused by both: $refused"
[ $differ -eq 0 ]
