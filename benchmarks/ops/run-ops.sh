#!/usr/bin/env bash
#===- run-ops.sh - every op family: Strata's configurations vs ONNX Runtime -===//
#
# Usage: benchmarks/ops/run-ops.sh [--smoke] [--runs N] [--rounds R]
#                                  [--min-ms MS] [--threads T] [--out FILE]
#                                  [--work DIR] [--configs LIST] [--stat p10]
#                                  [FAMILY|CASE ...]
#
# In one sequential run:
#   - make-models.py writes the cases of table.py (all, or the given
#     families or case ids) as one-node ONNX models with seeded inputs into
#     WORK/models;
#   - time-ops.mjs, case by case: strata-compile for every configuration
#     (portable, --backend onednn, --backend xnnpack; a failure is an n/a
#     cell), then R rounds alternating ONNX Runtime (in
#     process, ort-bench.mjs's method) and `strata-run --bench N --threads T`
#     on each program, the same run count for all; round 1 also checks each
#     program's outputs against ORT's (rel-L2) and profiles the delegated
#     programs (reference implementations, portable fallbacks);
#   - report.mjs writes the page (docs/performance-ops.md) and
#     WORK/results.json.
#
#   --runs N      timed runs per round at least (5)
#   --rounds R    alternations of ORT and Strata per case (3)
#   --min-ms MS   more runs for fast cases: each round times at least MS ms
#                 per side (30), from a 3-run probe of ORT
#   --threads T   intra-op threads of ORT and the delegates (1)
#   --stat p10    cells from each round's 10th percentile instead of its
#                 median (a machine busy with other work)
#   --configs L   the Strata configurations, space-separated, of
#                 "portable onednn xnnpack" (all)
#   --smoke       a handful of small families, 1 round, 3 runs; the page goes
#                 to WORK/performance-ops-smoke.md (seconds)
#   --out FILE    the page (docs/performance-ops.md)
#   --work DIR    models, programs, logs ($BUILD_DIR/ops)
# Environment: BUILD_DIR (build): bin/strata-compile and bin/strata-run;
# ONNX Runtime is installed by scripts/install-ort.sh into
# $BUILD_DIR/peer/npm (STRATA_ORT_DIR: another one).
#
# A measurement: scripts/test.sh runs only --smoke (test/Benchmarks).
#===----------------------------------------------------------------------===//
set -euo pipefail

# Compiler flags of each Strata configuration.
PORTABLE_FLAGS=()
ONEDNN_FLAGS=(--backend onednn)
XNNPACK_FLAGS=(--backend xnnpack)
# Small and quick, one of each kind of kernel: elementwise, a reduction,
# a delegated conv, data movement.
SMOKE=(Relu ReduceMean Conv/depthwise Transpose)

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
work=$build/ops

runs=5 rounds=3 min_ms=30 threads=1 smoke=no stat=median
configs="portable onednn xnnpack"
out=
selected=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-ms) min_ms=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --stat) stat=$2; shift 2 ;;
    --smoke) smoke=yes; shift ;;
    -h|--help) sed -n '3,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run-ops.sh: unknown option $1" >&2; exit 2 ;;
    *) selected+=("$1"); shift ;;
  esac
done
if [ $smoke = yes ]; then
  [ ${#selected[@]} -gt 0 ] || selected=("${SMOKE[@]}")
  runs=3 rounds=1 min_ms=0
  out=${out:-$work/performance-ops-smoke.md}
fi
out=${out:-$root/docs/performance-ops.md}
for n in "$runs" "$rounds" "$min_ms" "$threads"; do
  case $n in ''|*[!0-9]*) echo "run-ops.sh: counts are whole numbers, got '$n'" >&2; exit 2 ;; esac
done
for tool in strata-compile strata-run; do
  [ -x "$build/bin/$tool" ] || { echo "run-ops.sh: no $build/bin/$tool (build it first)" >&2; exit 1; }
done
command -v node >/dev/null || { echo "run-ops.sh: node (>= 20) is required" >&2; exit 1; }
ort_dir=${STRATA_ORT_DIR:-$build/peer/npm}
[ -n "${STRATA_ORT_DIR:-}" ] || BUILD_DIR=$build "$root/scripts/install-ort.sh" "$ort_dir"

models=$work/models
rm -rf "$work/models" "$work/cases"
mkdir -p "$work/cases"
/usr/bin/python3 "$here/make-models.py" "$models" "${selected[@]}"
: >"$work/cases/results.jsonl"
{
  printf 'started\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf 'loadavg\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf 'runs\t%s\nrounds\t%s\nmin_ms\t%s\nthreads\t%s\n' "$runs" "$rounds" "$min_ms" "$threads"
  printf 'commit\t%s\n' "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ] && echo ' (with uncommitted changes)')"
} >"$work/meta.tsv"

# _floor first: a one-element Add, each side's per-run overhead.
mapfile -t ids < <(echo _floor; cut -f1 "$models/cases.tsv")
config_args=()
for config in $configs; do
  case $config in
    portable) config_args+=(--config "portable=${PORTABLE_FLAGS[*]}") ;;
    onednn) config_args+=(--config "onednn=${ONEDNN_FLAGS[*]}") ;;
    xnnpack) config_args+=(--config "xnnpack=${XNNPACK_FLAGS[*]}") ;;
    *) echo "run-ops.sh: unknown configuration $config (portable, onednn, xnnpack)" >&2; exit 2 ;;
  esac
done
node "$here/time-ops.mjs" --work "$work/cases" --models "$models" --bin "$build/bin" \
  --ort-dir "$ort_dir" --threads "$threads" --rounds "$rounds" --runs "$runs" --min-ms "$min_ms" \
  --timeout-s 120 \
  "${config_args[@]}" "${ids[@]}"
printf 'finished\t%s\nloadavg_end\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/meta.tsv"

node "$here/report.mjs" --cases "$models/cases.tsv" --results "$work/cases/results.jsonl" \
  --meta "$work/meta.tsv" --json "$work/results.json" --md "$out" --stat "$stat"
echo "wrote $out and $work/results.json"
