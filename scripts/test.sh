#!/usr/bin/env bash
#===- test.sh - install, build and run every Strata test suite ------------===//
#
# The README's test command. Installs missing Debian packages, builds, then
# runs the lit suite (check-strata) and every ctest test (gtest suites and
# the runtime link check). Exits non-zero if anything fails.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

start=$(date +%s)
status=0
echo "== lit suite (check-strata)"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test" || status=1
echo "== ctest (gtest suites, link checks)"
(cd "$build" && ctest --output-on-failure -E '^lit$') || status=1
echo "test: done in $(( $(date +%s) - start )) s"
exit $status
