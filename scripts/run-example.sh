#!/usr/bin/env bash
#===- run-example.sh - the README's main job ------------------------------===//
#
# Installs missing dependencies, builds Strata, compiles the bundled digits
# CNN (models/digits_cnn, trained on scikit-learn's digits) to a .strata
# program, checks it against its PyTorch reference output, runs it on the
# 450 bundled test images and prints the accuracy.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

model=$root/models/digits_cnn
out=$build/examples
mkdir -p "$out"
echo "== strata-compile $model/model.onnx"
"$build/bin/strata-compile" "$model/model.onnx" -o "$out/digits_cnn.strata" \
  --report "$out/digits_cnn.report.json" \
  --verify --verify-data "$model/test_data_set_0"
echo "== strata-run (reference input, PyTorch output)"
"$build/bin/strata-run" "$out/digits_cnn.strata" \
  --inputs "$model/test_data_set_0" --expect "$model/test_data_set_0"
echo "== strata-eval on the 450 test images (PyTorch float32: 0.99333)"
"$build/bin/strata-eval" "$out/digits_cnn.strata" \
  --images "$model/test_images.npy" --labels "$model/test_labels.npy"
