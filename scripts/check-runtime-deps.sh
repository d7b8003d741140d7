#!/usr/bin/env bash
#===- check-runtime-deps.sh - the runtime links no MLIR and no LLVM ------===//
#
# Usage: check-runtime-deps.sh SOURCE_DIR BUILD_DIR
# Configures SOURCE_DIR with the compiler off and MLIR_DIR pointing nowhere,
# builds the runtime, strata-run, strata-run-xnnpack (the XNNPACK delegate
# alone) and strata-dump, then fails if a tool needs a shared library of
# MLIR or LLVM, if strata-run-xnnpack needs oneDNN, or if a runtime archive
# refers to an mlir:: or llvm:: symbol. Prints the stripped sizes.
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
cmake --build "$build" --target strata-run strata-run-xnnpack strata-dump StrataRuntime StrataRuntimeIO >"$build.build.log" 2>&1 ||
  { cat "$build.build.log"; exit 1; }

status=0
for tool in strata-run strata-run-xnnpack strata-dump; do
  needed=$(readelf -d "$build/bin/$tool" | awk '/NEEDED/ {print $5}' | tr -d '[]')
  echo "$tool needs: $(echo $needed)"
  if echo "$needed" | grep -Ei 'mlir|llvm'; then
    echo "FAIL: $tool links an MLIR/LLVM shared library"
    status=1
  fi
  if nm -C "$build/bin/$tool" 2>/dev/null | grep -E ' [TtWU] (mlir|llvm)::' | head -5 | grep .; then
    echo "FAIL: $tool holds mlir:: or llvm:: symbols"
    status=1
  fi
  if [ "$tool" = strata-run-xnnpack ] && echo "$needed" | grep -Ei 'dnnl|gomp|omp'; then
    echo "FAIL: $tool links oneDNN or OpenMP"
    status=1
  fi
  size=$(stat -c %s "$build/bin/$tool")
  strip -o "$build/$tool.stripped" "$build/bin/$tool"
  echo "$tool: $size bytes, $(stat -c %s "$build/$tool.stripped") stripped"
done
for archive in "$build/lib/libStrataRuntime.a" "$build/lib/libStrataRuntimeIO.a"; do
  if nm -C "$archive" 2>/dev/null | grep -E ' [UTW] (mlir|llvm)::' | head -5 | grep .; then
    echo "FAIL: $archive refers to mlir:: or llvm:: symbols"
    status=1
  fi
  strip --strip-unneeded -o "$archive.stripped" "$archive"
  echo "$(basename "$archive"): $(stat -c %s "$archive") bytes, $(stat -c %s "$archive.stripped") stripped"
done
[ $status -eq 0 ] && echo "PASS: the runtime links no MLIR and no LLVM"
exit $status
