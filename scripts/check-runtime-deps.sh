#!/usr/bin/env bash
#===- check-runtime-deps.sh - the runtime links no MLIR and no LLVM ------===//
#
# Usage: check-runtime-deps.sh SOURCE_DIR BUILD_DIR
# Configures SOURCE_DIR with the compiler off and MLIR_DIR pointing nowhere,
# builds the runtime and strata-run, then fails if strata-run needs a shared
# library of MLIR or LLVM or if the runtime archive refers to an mlir:: or
# llvm:: symbol.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
src=$1
build=$2
rm -rf "$build"
cmake -G Ninja -S "$src" -B "$build" -DSTRATA_BUILD_COMPILER=OFF \
  -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_BENCHMARKS=OFF \
  -DMLIR_DIR=/nonexistent -DLLVM_DIR=/nonexistent >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target strata-run StrataRuntime >"$build.build.log" 2>&1 ||
  { cat "$build.build.log"; exit 1; }

status=0
needed=$(readelf -d "$build/bin/strata-run" | awk '/NEEDED/ {print $5}' | tr -d '[]')
echo "strata-run needs: $(echo $needed)"
if echo "$needed" | grep -Ei 'mlir|llvm'; then
  echo "FAIL: strata-run links an MLIR/LLVM shared library"
  status=1
fi
archive="$build/lib/libStrataRuntime.a"
if nm -C "$archive" 2>/dev/null | grep -E ' [UTW] (mlir|llvm)::' | head -5 | grep .; then
  echo "FAIL: $archive refers to mlir:: or llvm:: symbols"
  status=1
fi
size=$(stat -c %s "$build/bin/strata-run")
strip -o "$build/strata-run.stripped" "$build/bin/strata-run"
echo "strata-run: $size bytes, $(stat -c %s "$build/strata-run.stripped") stripped"
[ $status -eq 0 ] && echo "PASS: the runtime links no MLIR and no LLVM"
exit $status
