#!/usr/bin/env bash
#===- check-sanitizers.sh - the suites under ASan/UBSan and TSan, fuzzing -===//
#
# Usage: check-sanitizers.sh [STEP...]   (steps: asan lit fuzz tsan; all four
#                                          when none is named)
# Environment: SANITIZE_DIR (build-sanitize), TSAN_DIR (build-tsan),
#   FUZZ_SECONDS (program fuzzer, 5), IMPORT_FUZZ_SECONDS (importer
#   fuzzer, 60).
#
#  asan  one clang tree, compiler on, -fsanitize=address,undefined, the
#        project's code with libFuzzer coverage (the Debian LLVM/MLIR,
#        oneDNN and protobuf libraries are prebuilt and uninstrumented):
#        the runtime and compiler gtest suites.
#  lit   the lit tests of Import, Conversion, Dialect, Emit, Pipelines,
#        Runtime and Delegation with that tree's tools.
#  fuzz  the committed crash inputs of both fuzzers replayed, then
#        strata-program-fuzzer (Program::load) for FUZZ_SECONDS and
#        strata-import-fuzzer (ONNX bytes -> .strata) for IMPORT_FUZZ_SECONDS
#        on their seed corpora.
#  tsan  a runtime-only tree under -fsanitize=thread: methods of one
#        program executing on eight threads (MethodThreadsTest).
#
# scripts/fuzz.sh sources this file for its functions and runs the fuzzers
# for longer.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
sanitize_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sanitize_dir=${SANITIZE_DIR:-$sanitize_root/build-sanitize}
tsan_dir=${TSAN_DIR:-$sanitize_root/build-tsan}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$sanitize_root}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/strata-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}

# LeakSanitizer stays on: the compiler tools and both fuzzers are leak-clean
# (MLIR's and libonnx's registries are reachable statics, not leaks).
# allow_user_poisoning=0: libMLIR is not instrumented, but the templates of
# llvm::BumpPtrAllocator are instantiated in our instrumented code too, and
# that copy poisons each new slab it starts. MLIR's storage uniquer shares
# one allocator between both copies, so an attribute that libMLIR later
# places in such a slab (an ArrayAttr after a custom `#edge.post_op`) reads
# as use-after-poison although it is live. The manual annotations are
# therefore off; ASan's own redzones and heap checks stay on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1}
ASAN_OPTIONS+=:allow_user_poisoning=0
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

# The gtest suites of the ASan tree (the fuzzers and tools come on top).
sanitize_gtests=(StrataRuntimeTests StrataOneDNNDelegateTests StrataXNNPACKDelegateTests
  StrataSupportTests StrataExecTests StrataImportTests StrataBackendsTests
  StrataQuantizationTests StrataEdgeTests)
sanitize_lit_dirs="Import|Conversion|Dialect|Emit|Pipelines|Runtime|Delegation"
import_regressions=$sanitize_root/unittests/Import/Inputs/fuzz-regressions
program_regressions=$sanitize_root/unittests/Runtime/Inputs/fuzz-regressions

# Configures a clang tree at $1 with sanitizer flags $2 and cmake options
# after them; the log lands in it.
sanitize_configure() {
  local dir=$1 flags=$2
  shift 2
  [ -f "$dir/build.ninja" ] && return 0
  mkdir -p "$dir"
  CC=clang CXX=clang++ cmake -G Ninja -S "$sanitize_root" -B "$dir" \
    -DSTRATA_BUILD_BENCHMARKS=OFF -DSTRATA_BUILD_PYTHON=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags" \
    "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags" \
    "$@" >"$dir/sanitize-configure.log" 2>&1 || { cat "$dir/sanitize-configure.log"; return 1; }
}

# Builds targets $2... of tree $1 on two cores; prints the time taken.
sanitize_build() {
  local dir=$1 start
  shift
  start=$(date +%s)
  cmake --build "$dir" -j2 --target "$@" >"$dir/sanitize-build.log" 2>&1 ||
    { tail -50 "$dir/sanitize-build.log"; return 1; }
  echo "built $(basename "$dir") ($*) in $(( $(date +%s) - start )) s"
}

# The ASan + UBSan tree, with targets $@.
sanitize_asan_build() {
  # Coverage instrumentation of all the project's code (the libraries too),
  # so that libFuzzer is guided by the loader's and importer's branches.
  sanitize_configure "$sanitize_dir" \
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -fsanitize=fuzzer-no-link" \
    -DSTRATA_BUILD_FUZZER=ON
  sanitize_build "$sanitize_dir" "$@"
}

# Fills $1 with the program fuzzer's seeds: programs from strata-fuzz-seeds
# and the exec lit inputs emitted by the tree's strata-translate.
program_seeds() {
  local corpus=$1 bin=$sanitize_dir/bin f out
  mkdir -p "$corpus"
  "$bin/strata-fuzz-seeds" "$corpus"
  for f in "$sanitize_root"/test/Emit/*.mlir "$sanitize_root"/test/Runtime/*.mlir; do
    out="$corpus/$(basename "$f" .mlir).strata"
    "$bin/strata-translate" --emit-program "$f" -o "$out" 2>/dev/null ||
      { "$bin/strata-opt" --strata-exec-plan-memory --mlir-print-debuginfo "$f" 2>/dev/null |
          "$bin/strata-translate" --emit-program -o "$out" 2>/dev/null; } ||
      rm -f "$out"
  done
}

# Fills $1 with the importer fuzzer's seeds: every ONNX node test model, the
# bundled example and the models/ folder when there is one.
import_seeds() {
  local corpus=$1 f name
  mkdir -p "$corpus"
  for f in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
    [ -f "$f" ] || continue
    name=$(basename "$(dirname "$f")")
    cp "$f" "$corpus/$name.onnx"
  done
  for f in "$sanitize_root"/examples/*/model.onnx "$sanitize_root"/models/*/model.onnx; do
    [ -f "$f" ] || continue
    cp "$f" "$corpus/bundled-$(basename "$(dirname "$f")").onnx"
  done
}

# Replays the committed crash inputs $2 of fuzzer $1, each once.
replay_regressions() {
  local fuzzer=$1 dir=$2
  local inputs=("$dir"/*)
  [ -e "${inputs[0]}" ] || { echo "no regression inputs in $dir"; return 0; }
  "$fuzzer" -rss_limit_mb=4096 -timeout=30 "${inputs[@]}" >"$sanitize_dir/replay.log" 2>&1 ||
    { tail -40 "$sanitize_dir/replay.log"; return 1; }
  echo "replayed ${#inputs[@]} regression inputs of $(basename "$fuzzer")"
}

# Runs fuzzer $1 for $2 seconds on corpus $3 (new inputs are written there)
# and read-only corpora after it; crash inputs go to $SANITIZE_DIR/artifacts.
run_fuzzer() {
  local fuzzer=$1 seconds=$2
  shift 2
  local extra=()
  [ "$(basename "$fuzzer")" = strata-import-fuzzer ] &&
    extra=(-dict="$sanitize_root/unittests/Import/onnx.dict" -max_len=200000)
  mkdir -p "$sanitize_dir/artifacts"
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$sanitize_dir/artifacts/" \
    "${extra[@]}" "$@"
}

sanitize_main() {
  local steps=("$@") start targets
  [ ${#steps[@]} -gt 0 ] || steps=(asan lit fuzz tsan)
  start=$(date +%s)
  targets=("${sanitize_gtests[@]}" strata-program-fuzzer strata-fuzz-seeds
    strata-import-fuzzer strata-opt strata-translate strata-run strata-dump
    strata-compile strata-onnx-build)
  if [[ " ${steps[*]} " =~ \ (asan|lit|fuzz)\  ]]; then
    echo "== ASan + UBSan tree ($sanitize_dir)"
    sanitize_asan_build "${targets[@]}"
  fi
  local bin=$sanitize_dir/bin step t step_start
  for step in "${steps[@]}"; do
    step_start=$(date +%s)
    case $step in
    asan)
      echo "== gtest suites under ASan + UBSan"
      for t in "${sanitize_gtests[@]}"; do
        "$bin/$t" --gtest_brief=1 >"$sanitize_dir/$t.log" 2>&1 ||
          { tail -40 "$sanitize_dir/$t.log"; echo "FAIL: $t"; return 1; }
        echo "$t: $(grep -E '^\[  PASSED  \]' "$sanitize_dir/$t.log")"
      done
      ;;
    lit)
      echo "== lit ($sanitize_lit_dirs) under ASan + UBSan"
      python3 /usr/lib/llvm-19/build/utils/lit/lit.py -s \
        --filter "^STRATA :: ($sanitize_lit_dirs)/" "$sanitize_dir/test"
      ;;
    fuzz)
      echo "== fuzzers: regression inputs, then seeds"
      replay_regressions "$bin/strata-program-fuzzer" "$program_regressions"
      replay_regressions "$bin/strata-import-fuzzer" "$import_regressions"
      local pc=$sanitize_dir/fuzz-seeds/program ic=$sanitize_dir/fuzz-seeds/import
      rm -rf "$pc" "$ic"
      program_seeds "$pc"
      import_seeds "$ic"
      echo "seeds: $(ls "$pc" | wc -l) programs, $(ls "$ic" | wc -l) models"
      echo "-- strata-program-fuzzer for ${FUZZ_SECONDS:-5} s"
      run_fuzzer "$bin/strata-program-fuzzer" "${FUZZ_SECONDS:-5}" \
        -max_len=65536 "$pc" "$program_regressions" 2>&1 | tail -12
      echo "-- strata-import-fuzzer for ${IMPORT_FUZZ_SECONDS:-60} s"
      run_fuzzer "$bin/strata-import-fuzzer" "${IMPORT_FUZZ_SECONDS:-60}" \
        "$ic" "$import_regressions" 2>&1 | tail -12
      ;;
    tsan)
      echo "== runtime under ThreadSanitizer ($tsan_dir)"
      sanitize_configure "$tsan_dir" "-fsanitize=thread -fno-omit-frame-pointer" \
        -DSTRATA_BUILD_COMPILER=OFF -DMLIR_DIR=/nonexistent -DLLVM_DIR=/nonexistent
      sanitize_build "$tsan_dir" StrataRuntimeThreadTests
      "$tsan_dir/bin/StrataRuntimeThreadTests" --gtest_brief=1
      ;;
    *)
      echo "check-sanitizers: unknown step '$step'" >&2
      return 2
      ;;
    esac
    echo "-- $step: $(( $(date +%s) - step_start )) s"
  done
  echo "PASS: sanitizers and fuzzers found nothing ($(( $(date +%s) - start )) s)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  sanitize_main "$@"
fi
