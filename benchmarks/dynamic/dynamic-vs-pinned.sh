#!/usr/bin/env bash
#===- dynamic-vs-pinned.sh - one dynamic program against pinned ones ------===//
#
# Usage: dynamic-vs-pinned.sh MODEL.onnx INPUT LO HI REST BATCH...
# Compiles MODEL once with --input-shape INPUT=batch:LO..HIxREST (a dynamic
# batch; REST is the other extents, e.g. 3x224x224) and once per BATCH with
# the batch pinned, then times both on the same seeded input at each BATCH
# (strata-run --bench, 1 thread; medians) and compares their outputs and
# their arenas. Prints a markdown table: batch, dynamic ms, pinned ms,
# dynamic / pinned, outputs equal, and the arenas (the dynamic program's
# at its bound, the pinned program's) with the report's lower bound.
# Environment: BUILD_DIR (build), BACKEND (portable), RUNS (10).
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
backend=${BACKEND:-portable}
runs=${RUNS:-10}
if [ $# -lt 6 ]; then
  sed -n 4,13p "$0" >&2
  exit 2
fi
model=$1 input=$2 lo=$3 hi=$4 rest=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

compile() { # OUT SHAPE
  "$build/bin/strata-compile" "$model" --backend "$backend" \
    --input-shape "$input=$2" --report "$1.json" -o "$1" >/dev/null
}
median() { # PROGRAM INPUT
  "$build/bin/strata-run" "$1" --input "$2" --threads 1 --bench "$runs" |
    sed -n 's/^bench: .* median \([0-9.]*\) ms.*/\1/p' | head -1
}
arena() { # REPORT
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["memory_plans"][0]; print(p["arena_bytes"], p["lower_bound_bytes"])' "$1"
}

compile "$tmp/dynamic.strata" "batch:$lo..${hi}x$rest"
read -r dyn_arena dyn_bound < <(arena "$tmp/dynamic.strata.json")
echo "dynamic program ($backend, batch $lo..$hi): arena $dyn_arena bytes, lower bound $dyn_bound bytes at the bound"
echo
echo "| batch | dynamic ms | pinned ms | dynamic / pinned | outputs equal | pinned arena bytes |"
echo "|---:|---:|---:|---:|---|---:|"
for batch in "$@"; do
  /usr/bin/python3 - "$tmp/x$batch.npy" "$batch" "$rest" <<'PY'
import sys
import numpy as np
shape = [int(sys.argv[2])] + [int(d) for d in sys.argv[3].split("x")]
np.save(sys.argv[1], np.random.default_rng(0).standard_normal(shape).astype(np.float32))
PY
  compile "$tmp/pinned-$batch.strata" "${batch}x$rest"
  read -r pin_arena _ < <(arena "$tmp/pinned-$batch.strata.json")
  for p in dynamic pinned-$batch; do
    "$build/bin/strata-run" "$tmp/$p.strata" --input "$tmp/x$batch.npy" \
      --output-dir "$tmp/out-$p-$batch" >/dev/null
  done
  same=$(cmp -s "$tmp/out-dynamic-$batch/output_0.npy" \
           "$tmp/out-pinned-$batch-$batch/output_0.npy" && echo yes || echo no)
  d=$(median "$tmp/dynamic.strata" "$tmp/x$batch.npy")
  p=$(median "$tmp/pinned-$batch.strata" "$tmp/x$batch.npy")
  ratio=$(python3 -c "print('%.3f' % ($d / $p))")
  echo "| $batch | $d | $p | $ratio | $same | $pin_arena |"
done
