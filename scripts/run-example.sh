#!/usr/bin/env bash
#===- run-example.sh - the README's main job ------------------------------===//
#
# Installs missing dependencies, builds Strata, then runs the bundled example
# model (examples/digits_cnn) through what the pipeline has so far.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

model=$root/examples/digits_cnn
echo "== Strata example: $model/model.onnx"
echo "The ONNX importer, lowering and runtime are not built yet: this step"
echo "shows the dialects and passes that exist."
"$build/bin/strata-opt" --help | grep -E '^ +--strata-' || true
