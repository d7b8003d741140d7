#!/usr/bin/env bash
#===- install-ort.sh - ONNX Runtime (npm onnxruntime-node) for peers/tests -===//
#
# Usage: scripts/install-ort.sh [DIR]
# Installs the onnxruntime-node version pinned in benchmarks/peer/package.json
# and package-lock.json into DIR ($BUILD_DIR/peer/npm by default) with
# --ignore-scripts (its CPU library ships in the package; nothing else is
# fetched), once: a DIR already holding that version and lock file is kept.
# Used by the peer benchmark harness and by scripts/test.sh (the lit tests
# that run Strata's exported ONNX files in ONNX Runtime).
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
here=$root/benchmarks/peer
npm_dir=${1:-$build/peer/npm}
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "install-ort.sh: node (>= 20) and npm are required" >&2; exit 1; }
want=$(node -p "require('$here/package.json').dependencies['onnxruntime-node']")
have=$(node -p "try { require('$npm_dir/node_modules/onnxruntime-node/package.json').version } catch { '' }")
if [ "$have" != "$want" ] || ! cmp -s "$here/package-lock.json" "$npm_dir/package-lock.json"; then
  echo "installing onnxruntime-node $want into $npm_dir"
  mkdir -p "$npm_dir"
  cp "$here/package.json" "$here/package-lock.json" "$npm_dir/"
  npm ci --ignore-scripts --no-audit --no-fund --prefix "$npm_dir" >/dev/null
fi
