#!/usr/bin/env bash
#===- build.sh - configure and build Strata into build/ -------------------===//
#
# Usage: scripts/build.sh [extra cmake -D options...]
# The options configure a fresh build directory, or are applied to an
# existing one.
# Environment: BUILD_DIR (default build), BUILD_TYPE (default Release).
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
export CCACHE_BASEDIR=$root
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/strata-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}

start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
elif [ $# -gt 0 ]; then
  # Options for a build directory configured before: apply them to it.
  cmake -S "$root" -B "$build" "$@" >/dev/null
fi
cmake --build "$build"
echo "build: done in $(( $(date +%s) - start )) s ($build)"
