#!/usr/bin/env bash
#===- zoo-dynamic-batch.sh - models made batch-dynamic, checked per row ---===//
#
# Usage: zoo-dynamic-batch.sh MODEL_DIR...
# Each MODEL_DIR holds model.onnx and test_data_set_0/{input_0,output_0}.pb
# exported at batch 1 (the zoo, shared/models). The script marks the first
# input's and the outputs' dimension 0 as the symbol 'batch', compiles once
# with batch bounded 1..4, and runs the program at batch 1 and at batch 3
# (the reference input in rows 0 and 2, half of it in row 1): rows 0 and 2
# must match the reference output as batch 1 does, and row 1 must differ.
# Prints one markdown row per model (rel-L2 of batch 1 and of rows 0 and 2,
# or why it did not compile) and a count. A model whose own Reshape fixes
# the batch (an export at batch 1) is refused by design.
# Environment: BUILD_DIR (build), BACKEND (portable).
#
#===----------------------------------------------------------------------===//
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
backend=${BACKEND:-portable}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok=0 total=0
echo "| model | batch 1 rel-L2 | batch 3 rows 0, 2 rel-L2 | note |"
echo "|---|---:|---:|---|"
for dir in "$@"; do
  name=$(basename "$dir")
  total=$((total + 1))
  w=$tmp/$name
  mkdir -p "$w"
  if ! spec=$(/usr/bin/python3 - "$dir" "$w" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
src, out = sys.argv[1], sys.argv[2]
model = onnx.load(src + "/model.onnx")
first = model.graph.input[0]
first.type.tensor_type.shape.dim[0].dim_param = "batch"
for output in model.graph.output:
    output.type.tensor_type.shape.dim[0].dim_param = "batch"
onnx.save(model, out + "/model.onnx")
def read(path):
    t = onnx.TensorProto()
    t.ParseFromString(open(path, "rb").read())
    return numpy_helper.to_array(t)
x = read(src + "/test_data_set_0/input_0.pb")
np.save(out + "/x1.npy", x)
np.save(out + "/x3.npy", np.concatenate([x, x * 0.5, x]).astype(x.dtype))
np.save(out + "/y.npy", read(src + "/test_data_set_0/output_0.pb"))
dims = [d.dim_value for d in first.type.tensor_type.shape.dim[1:]]
print(first.name + "=batch:1..4x" + "x".join(map(str, dims)))
PY
  ); then
    echo "| $name | | | could not prepare the model |"
    continue
  fi
  if ! "$build/bin/strata-compile" "$w/model.onnx" --backend "$backend" \
      --input-shape "$spec" -o "$w/p.strata" >/dev/null 2>"$w/err"; then
    why=$(grep -m1 -o "error: .*" "$w/err" | cut -c8-160)
    echo "| $name | | | refused: $why |"
    continue
  fi
  for b in 1 3; do
    "$build/bin/strata-run" "$w/p.strata" --input "$w/x$b.npy" \
      --output-dir "$w/o$b" >/dev/null 2>"$w/err$b" || true
  done
  if /usr/bin/python3 - "$w" "$name" <<'PY'
import sys
import numpy as np
w, name = sys.argv[1], sys.argv[2]
try:
    y = np.load(w + "/y.npy").astype(np.float64)
    one = np.load(w + "/o1/output_0.npy")
    three = np.load(w + "/o3/output_0.npy")
except OSError as e:
    print("| %s | | | did not run: %s |" % (name, e))
    sys.exit(1)
err = lambda got, want: np.linalg.norm(got - want) / np.linalg.norm(want)
rows = max(err(three[0:1], y), err(three[2:3], y))
ok = err(one, y) < 1e-4 and rows < 1e-4 and not np.allclose(three[1:2], y)
print("| %s | %.2e | %.2e | %s |" % (name, err(one, y), rows,
                                     "" if ok else "MISMATCH"))
sys.exit(0 if ok else 1)
PY
  then ok=$((ok + 1)); fi
done
echo
echo "$ok of $total models run at a dynamic batch and match the reference in every row"
