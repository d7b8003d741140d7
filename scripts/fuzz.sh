#!/usr/bin/env bash
#===- fuzz.sh - run one of Strata's libFuzzer targets for a while ---------===//
#
# Usage: scripts/fuzz.sh importer|program SECONDS [libFuzzer options...]
#   importer  strata-import-fuzzer: ONNX bytes -> checker, shape inference,
#             import, verify, lowering to exec, emission
#   program   strata-program-fuzzer: Program::load, loadMethod, execute
#
# Builds what the fuzzer needs in the ASan + UBSan tree of
# scripts/check-sanitizers.sh (SANITIZE_DIR, default build-sanitize), then
# fuzzes for SECONDS on a corpus kept across runs
# (SANITIZE_DIR/fuzz-corpus/<target>) plus the seeds and the committed
# crash inputs. Inputs that crash, leak, time out (10 s) or run out of
# memory (4 GiB) are copied into the target's fuzz-regressions folder; the
# script then fails: fix the product code and commit the input, which every
# run of check-sanitizers.sh replays from then on. Faults of libonnx's
# shape inference, which the importer contains in a child process, are
# refusals: they are counted and their inputs kept in
# SANITIZE_DIR/contained/importer.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
# shellcheck source=check-sanitizers.sh
source "$(dirname "$0")/check-sanitizers.sh"

usage() {
  echo "usage: scripts/fuzz.sh importer|program SECONDS [libFuzzer options...]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
which=$1 seconds=$2
shift 2
case $which in
importer)
  fuzzer=strata-import-fuzzer regressions=$import_regressions
  sanitize_asan_build strata-import-fuzzer
  seeds() { import_seeds "$1"; }
  ;;
program)
  fuzzer=strata-program-fuzzer regressions=$program_regressions
  sanitize_asan_build strata-program-fuzzer strata-fuzz-seeds strata-opt strata-translate
  seeds() { program_seeds "$1"; }
  ;;
*) usage ;;
esac

corpus=$sanitize_dir/fuzz-corpus/$which
seed_dir=$sanitize_dir/fuzz-seeds/$which
artifacts=$sanitize_dir/artifacts/$which
contained=$sanitize_dir/contained/$which
rm -rf "$seed_dir" "$artifacts" "$contained"
mkdir -p "$corpus" "$artifacts" "$contained"
seeds "$seed_dir"
echo "== $fuzzer for $seconds s (corpus $corpus: $(ls "$corpus" | wc -l) inputs, seeds: $(ls "$seed_dir" | wc -l))"
status=0
STRATA_FUZZ_CONTAINED_DIR=$contained "$sanitize_dir/bin/$fuzzer" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
  $([ "$which" = importer ] && echo "-dict=$sanitize_root/unittests/Import/onnx.dict -max_len=200000") \
  $([ "$which" = program ] && echo "-max_len=65536") \
  "$@" "$corpus" "$seed_dir" "$regressions" 2>&1 | tee "$sanitize_dir/fuzz-$which.log" | tail -25 ||
  status=$?

# Faults of libonnx's shape inference that its child process contained:
# refusals, not crashes, listed so that a check before inference can give
# them a better message.
faults=$(grep -c "contained fault:" "$sanitize_dir/fuzz-$which.log" || true)
if [ "$faults" -gt 0 ]; then
  echo "note: $faults contained shape-inference fault(s) (inputs in $contained):"
  grep "contained fault:" "$sanitize_dir/fuzz-$which.log" | sed 's/.*contained fault: /  /' | sort | uniq -c
fi

found=("$artifacts"/*)
if [ -e "${found[0]}" ]; then
  mkdir -p "$regressions"
  for f in "${found[@]}"; do
    cp "$f" "$regressions/$(basename "$f")"
    echo "new regression input: $regressions/$(basename "$f")"
  done
  echo "FAIL: $fuzzer found ${#found[@]} input(s); fix the product code, then commit them"
  exit 1
fi
[ "$status" -eq 0 ] || { echo "FAIL: $fuzzer exited with $status"; exit 1; }
echo "PASS: $fuzzer found nothing in $seconds s"
