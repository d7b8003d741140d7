#!/usr/bin/env bash
#===- test.sh - install, build and run every Strata test suite ------------===//
#
# The README's test command. Installs missing Debian packages, builds, then
# runs the lit suite (check-strata), every ctest test (gtest suites and the
# runtime link check), the Python package's pytest suite, the aarch64
# runtime under qemu (scripts/cross-aarch64.sh) and
# scripts/check-sanitizers.sh (the suites under
# ASan + UBSan and TSan, the fuzzers). Exits non-zero if anything fails.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
# Warnings in Strata's own code are errors in the test build.
"$root/scripts/build.sh" -DSTRATA_WERROR=ON

start=$(date +%s)
status=0
echo "== ONNX backend node tests (conformance floor in test/Conformance/floor.txt)"
floor=$(grep -v '^#' "$root/test/Conformance/floor.txt" | head -1)
"$build/bin/strata-onnx-conformance" /usr/share/libonnx-testdata/data/node \
  --out-of-scope "$root/test/Import/out-of-scope.txt" \
  --json "$build/conformance.json" --min-passed "$floor" \
  >"$build/conformance.log" || { tail -20 "$build/conformance.log"; status=1; }
# Reworded so that CI's reader does not take the node-test tally (which
# counts known failures by design) for the suites' pass/fail summary.
grep -E '^failure class|passed, ' "$build/conformance.log" |
  sed 's/^conformance: /node tests (floor '"$floor"'): /' || true
echo "== the same node tests through the XNNPACK delegate (same floor)"
"$build/bin/strata-onnx-conformance" /usr/share/libonnx-testdata/data/node \
  --out-of-scope "$root/test/Import/out-of-scope.txt" --backend xnnpack \
  --json "$build/conformance-xnnpack.json" --min-passed "$floor" \
  >"$build/conformance-xnnpack.log" || { tail -20 "$build/conformance-xnnpack.log"; status=1; }
grep -E '^delegated|passed, ' "$build/conformance-xnnpack.log" |
  sed 's/^conformance: /node tests through xnnpack (floor '"$floor"'): /' || true
echo "== ONNX Runtime for the exported-ONNX tests (npm onnxruntime-node)"
# Without it those lit tests report UNSUPPORTED; say so loudly.
BUILD_DIR=$build "$root/scripts/install-ort.sh" ||
  echo "test: WARNING: onnxruntime-node could not be installed; the ONNX Runtime tests will be unsupported"
echo "== lit suite (check-strata)"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test" || status=1
echo "== ctest (gtest suites, link checks)"
(cd "$build" && ctest -j2 --output-on-failure -E '^lit$') || status=1
echo "== the strata Python package (pytest python/tests)"
STRATA_BUILD_DIR=$build /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  "$root/python/tests" || status=1
echo "== the runtime cross-built for aarch64, the bundled models under qemu (scripts/cross-aarch64.sh)"
BUILD_DIR=$build "$root/scripts/cross-aarch64.sh" || status=1
echo "== sanitizers and fuzzers (scripts/check-sanitizers.sh)"
"$root/scripts/check-sanitizers.sh" || status=1
echo "test: done in $(( $(date +%s) - start )) s"
exit $status
