#!/usr/bin/env bash
#===- run-peers.sh - Strata vs ONNX Runtime on the same ONNX files ---------===//
#
# Usage: benchmarks/peer/run-peers.sh [--runs N] [--rounds R]
#                                     [--threads "1 2"] [--min-ms MS] [--smoke]
#                                     [--configs "portable onednn direct xnnpack"]
#                                     [--out FILE] [model ...]
#
# For each model (default list below; names are folders of $MODELS_DIR), in
# one sequential run:
#   - compiles model.onnx with strata-compile for each configuration
#     (portable, onednn, onednn with direct convolutions only for models
#     with convolutions, to show what the default Winograd kernel gives,
#     and xnnpack);
#   - for each thread count, R rounds of: ONNX Runtime (npm onnxruntime-node,
#     pinned in package.json / package-lock.json, installed with
#     --ignore-scripts into $BUILD_DIR/peer/npm) via ort-bench.mjs, then
#     `strata-run --bench N/R --threads T` on each compiled program, both on
#     test_data_set_0/input_0.pb. Rounds interleave the two sides, so that a
#     slow spell of a shared machine falls on both;
#   - writes the raw figures to $BUILD_DIR/peer/results.json and a markdown
#     table with Strata/ORT ratios to docs/performance.md (report.mjs).
# A configuration that fails to compile or run becomes an "n/a (reason)" cell.
#
#   --runs N       timed runs per configuration after max(1, N/10) warm-up (100),
#                  split over the rounds
#   --rounds R     alternations of ORT and Strata per thread count (3)
#   --threads L    thread counts, space-separated ("1 2")
#   --configs L    the Strata configurations, space-separated, of
#                  "portable onednn direct xnnpack" (all; direct only for
#                  models with convolutions)
#   --min-ms MS    time at least MS ms of runs per configuration and round
#                  (0): fast models get more runs than N/R, the count
#                  (the same for ORT and every Strata configuration) from a
#                  3-run probe of the onednn program (else the first
#                  compiled one) at each thread count, so that one slow spell of a shared machine
#                  does not decide a round of 10 short runs
#   --zoo          the model zoo (models/zoo.py, generated into $BUILD_DIR/zoo
#                  by scripts/make-benchmark-models.sh --zoo), 30 runs and
#                  --min-ms 500 unless given, each
#                  configuration compiled twice and compared byte for byte
#                  and checked against PyTorch's outputs (--expect); writes
#                  docs/performance-zoo.md
#   --arch         the architecture set (models/arch.py: segmentation,
#                  detection heads, recurrent, audio, recommendation,
#                  super-resolution, style transfer, transformers outside
#                  the zoo; generated into $BUILD_DIR/arch by
#                  scripts/make-benchmark-models.sh --arch), as --zoo but
#                  6 runs in 2 rounds and --min-ms 300 unless given, the shapes of models
#                  exported with dynamic axes pinned from their
#                  compile-flags file, every program's outputs and ONNX
#                  Runtime's compared with the float64 reference too
#                  (f64-accuracy.py), the portable program profiled as
#                  well; writes docs/performance-arch.md
#   --smoke        digits_cnn only (from models/), 3 runs, 1 thread; writes
#                  $BUILD_DIR/peer/performance-smoke.md, not docs/
#   --out FILE     where the markdown goes (docs/performance.md)
# Environment: BUILD_DIR (build), MODELS_DIR (default $BUILD_DIR/models, the
# full-size models written there by scripts/make-benchmark-models.sh).
#
# Not part of any test suite: it measures, it does not check.
#===----------------------------------------------------------------------===//
set -euo pipefail

# Compiler flags of each Strata configuration (spellings may still change).
PORTABLE_FLAGS=()
ONEDNN_FLAGS=(--backend onednn)
DIRECT_FLAGS=(--backend onednn --backend-option winograd=false)
XNNPACK_FLAGS=(--backend xnnpack)
DEFAULT_MODELS=(resnet18_bn mobilenet_v2_bn transformer_encoder squeezenet1_1
                digits_cnn digits_mlp)

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
models_dir=${MODELS_DIR:-$build/models}
peer=$build/peer

runs=100
rounds=3
min_ms=
threads="1 2"
wanted_configs="portable onednn direct xnnpack"
out=$root/docs/performance.md
models=()
zoo=no
arch=no
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --configs) wanted_configs=$2; shift 2 ;;
    --min-ms) min_ms=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --zoo) zoo=yes; runs=30; out=$root/docs/performance-zoo.md
           models_dir=${MODELS_DIR:-$build/zoo}; shift ;;
    --arch) zoo=yes; arch=yes; runs=6; rounds=2; min_ms=300
            out=$root/docs/performance-arch.md
            models_dir=${MODELS_DIR:-$build/arch}; shift ;;
    --smoke) models=(digits_cnn); runs=3; rounds=1; threads=1
             models_dir=${MODELS_DIR:-$root/models}
             out=$peer/performance-smoke.md; shift ;;
    -h|--help) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run-peers.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
if [ $zoo = yes ]; then
  set_name=zoo
  [ $arch = yes ] && set_name=arch
  [ ${#models[@]} -gt 0 ] ||
    mapfile -t models < <(cd "$root/models" && /usr/bin/python3 $set_name.py --list)
  [ -n "${MODELS_DIR:-}" ] ||
    BUILD_DIR=$build "$root/scripts/make-benchmark-models.sh" --$set_name --out "$models_dir" "${models[@]}"
fi
[ ${#models[@]} -gt 0 ] || models=("${DEFAULT_MODELS[@]}")
[ -n "$min_ms" ] || { [ $zoo = yes ] && min_ms=500 || min_ms=0; }
case $min_ms in
  ''|*[!0-9]*) echo "run-peers.sh: --min-ms takes whole milliseconds" >&2; exit 2 ;;
esac
# The full-size models, generated once (seeded).
[ -n "${MODELS_DIR:-}" ] || [ "$models_dir" = "$root/models" ] || [ $zoo = yes ] ||
  BUILD_DIR=$build "$root/scripts/make-benchmark-models.sh" --out "$models_dir"

for tool in strata-compile strata-run; do
  [ -x "$build/bin/$tool" ] || { echo "run-peers.sh: no $build/bin/$tool (build it first)" >&2; exit 1; }
done
command -v node >/dev/null || { echo "run-peers.sh: node (>= 20) is required" >&2; exit 1; }

# ONNX Runtime: install the pinned version once (lock file => same tree).
npm_dir=$peer/npm
BUILD_DIR=$build "$root/scripts/install-ort.sh" "$npm_dir"

# Does strata-run take --threads yet? Without it, only 1 thread is run.
threads_flag=no
"$build/bin/strata-run" --help 2>&1 | grep -q -- '--threads' && threads_flag=yes

work=$peer/work
rm -rf "$work"
mkdir -p "$work"
manifest=$peer/manifest.tsv
{
  printf 'meta\tstarted\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf 'meta\tloadavg\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf 'meta\truns\t%s\n' "$runs"
  printf 'meta\trounds\t%s\n' "$rounds"
  printf 'meta\tmin_ms\t%s\n' "$min_ms"
  printf 'meta\tthreads_flag\t%s\n' "$threads_flag"
  printf 'meta\tcommit\t%s\n' "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ] && echo ' (with uncommitted changes)')"
} >"$manifest"
row() { (IFS=$'\t'; echo "$*") >>"$manifest"; }

for model in "${models[@]}"; do
  onnx=$models_dir/$model/model.onnx
  input=$models_dir/$model/test_data_set_0/input_0.pb
  if [ ! -f "$onnx" ]; then
    echo "run-peers.sh: no $onnx, skipped" >&2
    continue
  fi
  dir=$work/$model
  mkdir -p "$dir"
  # Shapes pinned for models exported with dynamic axes (models/arch.py).
  pinned=()
  [ -f "$models_dir/$model/compile-flags" ] &&
    mapfile -t pinned <"$models_dir/$model/compile-flags"
  ort_input=() strata_input=()
  if [ -f "$input" ]; then
    ort_input=(--input "$input")
    strata_input=(--inputs "$(dirname "$input")")
  fi

  # Compile every configuration first (compiles are not timed here).
  configs=()
  for config in $wanted_configs; do
    case $config in
      portable|onednn|xnnpack) configs+=("$config") ;;
      direct) LC_ALL=C grep -qa Conv "$onnx" && configs+=(direct) ;;
      *) echo "run-peers.sh: unknown configuration $config" >&2; exit 2 ;;
    esac
  done
  compiled=()
  for config in "${configs[@]}"; do
    case $config in
      portable) flags=("${PORTABLE_FLAGS[@]}") ;;
      onednn) flags=("${ONEDNN_FLAGS[@]}") ;;
      direct) flags=("${DIRECT_FLAGS[@]}") ;;
      xnnpack) flags=("${XNNPACK_FLAGS[@]}") ;;
    esac
    echo "$model: compile $config"
    flags+=("${pinned[@]}")
    if "$build/bin/strata-compile" "$onnx" -o "$dir/$config.strata" "${flags[@]}" \
        >"$dir/$config.compile.log" 2>&1; then
      compiled+=("$config")
      # The zoo checks determinism too: a second compile, byte for byte.
      if [ $zoo = yes ]; then
        if "$build/bin/strata-compile" "$onnx" -o "$dir/$config.again.strata" "${flags[@]}" \
            >/dev/null 2>&1 && cmp -s "$dir/$config.strata" "$dir/$config.again.strata"; then
          row determinism "$model" - "$config" same -
        else
          row determinism "$model" - "$config" differ -
        fi
        rm -f "$dir/$config.again.strata"
      fi
    else
      row compile "$model" - "$config" failed "$dir/$config.compile.log"
    fi
  done
  # The zoo checks accuracy too: each program against the PyTorch
  # reference outputs the generator saved (rel-L2 limit 1e-5).
  if [ $zoo = yes ] && [ -f "$models_dir/$model/test_data_set_0/output_0.pb" ]; then
    for config in "${compiled[@]}"; do
      # The architecture set keeps the outputs for the float64 comparison.
      keep=()
      [ $arch = yes ] && keep=(--output-dir "$dir/$config.out")
      if "$build/bin/strata-run" "$dir/$config.strata" "${strata_input[@]}" "${keep[@]}" \
          --expect "$models_dir/$model/test_data_set_0" --rel-l2 1e-5 \
          >"$dir/$config.expect.log" 2>&1; then
        row accuracy "$model" - "$config" pass "$dir/$config.expect.log"
      else
        row accuracy "$model" - "$config" fail "$dir/$config.expect.log"
      fi
    done
  fi

  base_per_round=$(( (runs + rounds - 1) / rounds ))
  for t in $threads; do
   # Fast models: enough runs per round to fill --min-ms, from a short
   # probe of the onednn program (capped at 1000 runs).
   per_round=$base_per_round
   if [ "$min_ms" -gt 0 ] && [ ${#compiled[@]} -gt 0 ]; then
     probe=${compiled[0]}
     [[ " ${compiled[*]} " == *" onednn "* ]] && probe=onednn
     probe_threads=()
     [ "$threads_flag" = yes ] && probe_threads=(--threads "$t")
     probe_ms=$("$build/bin/strata-run" "$dir/$probe.strata" "${strata_input[@]}" \
         --bench 3 "${probe_threads[@]}" 2>/dev/null |
       sed -n 's/.*runs after .* warm-up: median \([0-9.]*\) ms.*/\1/p' | head -1)
     if [ -n "$probe_ms" ]; then
       per_round=$(awk -v ms="$probe_ms" -v min="$min_ms" -v n="$per_round" \
         'BEGIN { k = ms > 0 ? int(min / ms + 0.999) : 1000;
                  if (k > 1000) k = 1000; print (k > n ? k : n) }')
     fi
   fi
   for round in $(seq 1 "$rounds"); do
    echo "$model: onnxruntime, $t thread(s), round $round"
    ort_keep=()
    [ $arch = yes ] && [ "$round" = 1 ] && [ ! -d "$dir/ort.out" ] &&
      ort_keep=(--output-dir "$dir/ort.out")
    if node "$here/ort-bench.mjs" --ort-dir "$npm_dir" --model "$onnx" \
        "${ort_input[@]}" --threads "$t" --runs "$per_round" "${ort_keep[@]}" \
        >"$dir/ort-t$t-r$round.json" 2>"$dir/ort-t$t-r$round.err"; then
      row ort "$model" "$t" - ok "$dir/ort-t$t-r$round.json"
    else
      row ort "$model" "$t" - failed "$dir/ort-t$t-r$round.err"
    fi
    for config in "${compiled[@]}"; do
      log=$dir/$config-t$t-r$round.log
      thread_arg=()
      if [ "$threads_flag" = yes ]; then
        thread_arg=(--threads "$t")
      elif [ "$t" != 1 ]; then
        row strata "$model" "$t" "$config" no-threads -
        continue
      fi
      echo "$model: strata $config, $t thread(s), round $round"
      if "$build/bin/strata-run" "$dir/$config.strata" "${strata_input[@]}" \
          --bench "$per_round" "${thread_arg[@]}" >"$log" 2>&1; then
        row strata "$model" "$t" "$config" ok "$log"
      else
        row strata "$model" "$t" "$config" failed "$log"
      fi
      # Where the delegate's time goes (the zoo page names it for the
      # slowest models): the per-step profile summed by op and
      # implementation.
      if [ $zoo = yes ] && [ "$round" = 1 ] && { [ "$config" = onednn ] ||
          { [ $arch = yes ] && [ "$config" = portable ]; }; }; then
        "$build/bin/strata-run" "$dir/$config.strata" "${strata_input[@]}" \
          --profile "${thread_arg[@]}" >"$dir/$config-t$t.profile" 2>&1 &&
          row profile "$model" "$t" "$config" ok "$dir/$config-t$t.profile"
      fi
    done
   done
  done
done
{
  printf 'meta\tfinished\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf 'meta\tloadavg_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$manifest"

title=()
[ $zoo = yes ] && title=(--title zoo)
[ $arch = yes ] && title=(--title arch)
node "$here/report.mjs" --manifest "$manifest" --json "$peer/results.json" --md "$out" "${title[@]}"
# The architecture set: every runtime against the float64 reference.
[ $arch = yes ] &&
  /usr/bin/python3 "$here/f64-accuracy.py" --models "$models_dir" --work "$work" \
    "${models[@]}" >>"$out"
echo "wrote $out and $peer/results.json"
