#!/usr/bin/env bash
#===- check-runtime-sanitizers.sh - runtime tests under ASan/UBSan + fuzz --===//
#
# Usage: check-runtime-sanitizers.sh SOURCE_DIR BUILD_DIR [TOOLS_DIR]
# Builds the runtime (compiler off) with clang, -fsanitize=address,undefined,
# runs the runtime gtests (loader corruption, kernels, delegates) so that any
# out-of-bounds read fails them, then runs the libFuzzer target for
# Program::load for FUZZ_SECONDS (default 5) on a seed corpus: programs
# written by strata-fuzz-seeds, past crashes
# (unittests/Runtime/Inputs/fuzz-regressions) plus, when TOOLS_DIR holds strata-opt and
# strata-translate, the exec MLIR lit inputs emitted as programs.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
src=$1
build=$2
tools=${3:-}
seconds=${FUZZ_SECONDS:-5}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# Coverage instrumentation of everything (the runtime library included), so
# that libFuzzer is guided by the loader's branches, not only the target's.
cov="-fsanitize=fuzzer-no-link"

mkdir -p "$build"
CC=clang CXX=clang++ cmake -G Ninja -S "$src" -B "$build" \
  -DSTRATA_BUILD_COMPILER=OFF -DSTRATA_BUILD_BENCHMARKS=OFF \
  -DSTRATA_BUILD_FUZZER=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$san $cov" -DCMAKE_EXE_LINKER_FLAGS="$san" \
  -DMLIR_DIR=/nonexistent -DLLVM_DIR=/nonexistent \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j2 --target StrataRuntimeTests strata-program-fuzzer \
  strata-fuzz-seeds >"$build.build.log" 2>&1 || { tail -50 "$build.build.log"; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== runtime gtests under ASan + UBSan"
"$build/bin/StrataRuntimeTests" --gtest_brief=1

echo "== seed corpus"
corpus="$build/fuzz-corpus"
rm -rf "$corpus"
mkdir -p "$corpus"
"$build/bin/strata-fuzz-seeds" "$corpus"
# Inputs that once crashed the loader stay in the corpus as regressions.
cp "$src"/unittests/Runtime/Inputs/fuzz-regressions/* "$corpus"/ 2>/dev/null || true
if [ -n "$tools" ] && [ -x "$tools/strata-translate" ]; then
  for f in "$src"/test/Emit/*.mlir "$src"/test/Runtime/*.mlir; do
    out="$corpus/$(basename "$f" .mlir).strata"
    "$tools/strata-translate" --emit-program "$f" -o "$out" 2>/dev/null ||
      { "$tools/strata-opt" --strata-exec-plan-memory --mlir-print-debuginfo "$f" 2>/dev/null |
          "$tools/strata-translate" --emit-program -o "$out" 2>/dev/null; } ||
      rm -f "$out"
  done
fi
echo "seeds: $(ls "$corpus" | wc -l) ($(ls "$corpus" | tr '\n' ' '))"
[ "$(ls "$corpus" | wc -l)" -ge 2 ] || { echo "FAIL: no seeds"; exit 1; }

echo "== libFuzzer on Program::load for ${seconds}s"
"$build/bin/strata-program-fuzzer" -max_total_time="$seconds" \
  -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 "$corpus" 2>&1 | tail -15
echo "PASS: sanitizer tests and fuzzing found nothing"
