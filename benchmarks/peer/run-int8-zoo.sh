#!/usr/bin/env bash
#===- run-int8-zoo.sh - int8 against fp32 on the zoo's CNNs, oneDNN --------===//
#
# Usage: benchmarks/peer/run-int8-zoo.sh [--runs N] [--rounds R]
#                                        [--samples S] [--target-sqnr DB]
#                                        [--out FILE] [model ...]
#
# For each convolutional network of the zoo (models/zoo.py; the
# transformers vit_b_16, swin_t, bert_encoder and gpt_decoder are left out),
# in $MODELS_DIR (default $BUILD_DIR/zoo, written by
# scripts/make-benchmark-models.sh --zoo):
#   - compiles model.onnx with `--backend onednn` (fp32) and with
#     `--backend onednn --quantize --calibration-data random
#     --calibration-samples S` (int8, calibrated on S seeded random images),
#     and exports the int8 model as QDQ ONNX (`--emit onnx-qdq`);
#   - times both programs at 1 thread in R rounds that alternate them
#     (`strata-run --bench N/R`), a cell being the median of the round
#     medians;
#   - measures the int8 program's output SQNR against PyTorch's reference
#     output (`strata-run --expect --min-sqnr`, test_data_set_0);
#   - runs the QDQ export in ONNX Runtime (test/utils/ort-run.mjs; npm
#     onnxruntime-node, installed by scripts/install-ort.sh) on the same
#     input.
#   - with --target-sqnr DB, also compiles the mixed-precision program
#     (`--quantize-target-sqnr DB`, judged on the calibration samples) and
#     times it in the same rounds.
# Writes docs/int8-zoo.md: per model the two latencies, their ratio, the
# SQNR and whether ORT ran the export; the geometric mean of the ratios;
# with --target-sqnr, docs/int8-zoo-mixed.md instead, with a second table:
# per model the tensors kept float and their share of the quantized work,
# the SQNR reached on the calibration samples and on test_data_set_0, and
# the latency against fp32 (its search compiles hundreds of programs for
# the larger models: about an hour in all, against five minutes without).
#
#   --runs N      timed runs per program over all rounds (30)
#   --rounds R    alternations (3)
#   --samples S   random calibration samples (8)
#   --target-sqnr DB  also the mixed-precision program for DB
#   --out FILE    the page (docs/int8-zoo.md; docs/int8-zoo-mixed.md with
#                 --target-sqnr)
#
#   --check       fail (exit 1) unless every model compiled, its int8
#                 program ran faster than its fp32 one and its QDQ export
#                 ran in ONNX Runtime, the geometric mean of int8 / fp32 is
#                 at most 0.45, and, with --target-sqnr, every model's
#                 mixed-precision program compiled and reached the target
#                 on the samples it was judged on
#
# Not part of any test suite: a measurement, with --check its verdict.
#===----------------------------------------------------------------------===//
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
models_dir=${MODELS_DIR:-$build/zoo}
runs=30
rounds=3
samples=8
target=
out=
check=
models=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --target-sqnr) target=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) sed -n '3,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run-int8-zoo.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
if [ -z "$out" ]; then
  if [ -n "$target" ]; then out=$root/docs/int8-zoo-mixed.md
  else out=$root/docs/int8-zoo.md; fi
fi
if [ ${#models[@]} -eq 0 ]; then
  mapfile -t models < <(cd "$root/models" && /usr/bin/python3 zoo.py --list |
    grep -v -x -E 'vit_b_16|swin_t|bert_encoder|gpt_decoder')
fi
[ -n "${MODELS_DIR:-}" ] ||
  BUILD_DIR=$build "$root/scripts/make-benchmark-models.sh" --zoo --out "$models_dir" "${models[@]}"
for tool in strata-compile strata-run; do
  [ -x "$build/bin/$tool" ] || { echo "run-int8-zoo.sh: no $build/bin/$tool (build it first)" >&2; exit 1; }
done
npm_dir=$build/peer/npm
BUILD_DIR=$build "$root/scripts/install-ort.sh" "$npm_dir" >/dev/null

work=$build/peer/int8
rm -rf "$work"
mkdir -p "$work"
per_round=$(( (runs + rounds - 1) / rounds ))
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
rows=() mixed_rows=()

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The output SQNR of program $1 against the reference outputs in $2.
sqnr_of() {
  ("$build/bin/strata-run" "$1" --inputs "$2" --expect "$2" --min-sqnr 0 2>&1 || true) |
    sed -n 's/.*output 0: [A-Z]* .* sqnr \([-0-9.]*\) dB.*/\1/p' | head -1
}
# strata-run --bench's median, in ms.
bench() {
  "$build/bin/strata-run" "$1" --inputs "$2" --bench "$per_round" --threads 1 2>&1 |
    sed -n 's/.*runs after .* warm-up: median \([0-9.]*\) ms.*/\1/p'
}

for model in "${models[@]}"; do
  onnx=$models_dir/$model/model.onnx
  data=$models_dir/$model/test_data_set_0
  [ -f "$onnx" ] || { echo "run-int8-zoo.sh: no $onnx, skipped" >&2; continue; }
  dir=$work/$model
  mkdir -p "$dir"
  echo "$model: compile fp32, int8, QDQ ONNX"
  fp32=ok int8=ok
  "$build/bin/strata-compile" "$onnx" --backend onednn -o "$dir/fp32.strata" \
    >"$dir/fp32.log" 2>&1 || fp32=failed
  quantize=(--backend onednn --quantize --calibration-data random
            --calibration-samples "$samples" --no-progress)
  "$build/bin/strata-compile" "$onnx" "${quantize[@]}" -o "$dir/int8.strata" \
    >"$dir/int8.log" 2>&1 || int8=failed
  qdq="—"
  if "$build/bin/strata-compile" "$onnx" "${quantize[@]}" --emit onnx-qdq \
      -o "$dir/qdq.onnx" >"$dir/qdq.log" 2>&1; then
    if node "$root/test/utils/ort-run.mjs" --ort-dir "$npm_dir" \
        --model "$dir/qdq.onnx" --inputs "$data" >"$dir/ort.log" 2>&1; then
      qdq=runs
    else
      qdq="fails ($(head -c 80 "$dir/ort.log" | tr '\n|' '  '))"
    fi
  else
    qdq="export fails"
  fi
  if [ $fp32 != ok ] || [ $int8 != ok ]; then
    rows+=("| $model | ${fp32} | ${int8} | — | — | $qdq |")
    continue
  fi
  sqnr=$(sqnr_of "$dir/int8.strata" "$data")
  mixed=
  if [ -n "$target" ]; then
    echo "$model: compile mixed precision (target $target dB)"
    start=$(date +%s)
    if "$build/bin/strata-compile" "$onnx" "${quantize[@]}" \
        --quantize-target-sqnr "$target" --report "$dir/mixed.json" \
        -o "$dir/mixed.strata" >"$dir/mixed.log" 2>&1; then
      mixed=ok
    else
      mixed_rows+=("| $model | fails ($(tail -1 "$dir/mixed.log" | head -c 80 | tr '|' ' ')) | | | | | | |")
    fi
    mixed_seconds=$(( $(date +%s) - start ))
  fi
  a=() b=() c=()
  for round in $(seq 1 "$rounds"); do
    echo "$model: round $round"
    a+=("$(bench "$dir/fp32.strata" "$data")")
    b+=("$(bench "$dir/int8.strata" "$data")")
    [ "$mixed" != ok ] || c+=("$(bench "$dir/mixed.strata" "$data")")
  done
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  ratio=$(awk -v x="$mb" -v y="$ma" 'BEGIN { if (y > 0) printf "%.2f", x / y }')
  rows+=("| $model | $ma | $mb | ${ratio}x | ${sqnr:-?} dB | $qdq |")
  printf '%s\t%s\n' "$model" "$ratio" >>"$work/ratios.tsv"
  if [ "$mixed" = ok ]; then
    mc=$(printf '%s\n' "${c[@]}" | median)
    held=$(sqnr_of "$dir/mixed.strata" "$data")
    facts=$(node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
      const q = r.quantization || {}, m = q.mixed_precision || {};
      const kept = m.kept_float || [];
      const share = kept.reduce((s, k) => s + (k.work_share || 0), 0);
      const db = v => (typeof v === "number" ? v.toFixed(2) : "?");
      console.log([kept.length + " / " + (m.tensors ?? "?"),
                   (100 * share).toFixed(1) + "%", db(m.sqnr_db),
                   db(m.all_int8_sqnr_db)].join("\t"));' "$dir/mixed.json")
    IFS=$'\t' read -r kept share reached allint8 <<<"$facts"
    mratio=$(awk -v x="$mc" -v y="$ma" 'BEGIN { if (y > 0) printf "%.2f", x / y }')
    mixed_rows+=("| $model | $kept | $share | $allint8 dB | $reached dB | ${held:-?} dB | $mc | ${mratio}x | $mixed_seconds s |")
    printf '%s\t%s\t%s\n' "$model" "$reached" "$held" >>"$work/mixed.tsv"
  fi
done

geo=$(awk -F'\t' '$2 > 0 { s += log($2); n++ } END { if (n) printf "%.2fx over %d models", exp(s / n), n }' "$work/ratios.tsv" 2>/dev/null || true)
worst=$(sort -t$'\t' -k2 -g "$work/ratios.tsv" 2>/dev/null | tail -1 | awk -F'\t' '{ printf "%.2fx (%s)", $2, $1 }')
cpu=$(sed -n 's/^model name\s*:\s*//p' /proc/cpuinfo | head -1)
mkdir -p "$(dirname "$out")"
{
  echo "# int8 against fp32 on the zoo's CNNs (oneDNN)"
  echo
  echo "Generated by \`benchmarks/peer/run-int8-zoo.sh\`; do not edit by hand: rerun"
  echo "the script."
  echo
  echo "- **Programs**: \`strata-compile --backend onednn\` (fp32: the default"
  echo "  pipeline, Winograd where its rule applies) and the same with \`--quantize"
  echo "  --calibration-data random --calibration-samples $samples\` (int8: tensorrt's QDQ"
  echo "  placement, minmax, calibrated on $samples seeded random images in [0, 1))."
  echo "- **Latency**: 1 thread, $rounds rounds alternating the two programs, each"
  echo "  \`strata-run --bench $per_round\`; a cell is the median of the round medians, ms."
  echo "- **SQNR**: the int8 program's output against PyTorch's float output on"
  echo "  \`test_data_set_0\` (one image the calibration did not see)."
  echo "- **QDQ ONNX**: the same quantized model exported with \`--emit onnx-qdq\`"
  echo "  and run in ONNX Runtime (\`test/utils/ort-run.mjs\`)."
  echo
  echo "$cpu; Strata commit $commit; run $started to $(date -u +%Y-%m-%dT%H:%M:%SZ)."
  echo
  echo "Geometric mean of int8 / fp32: ${geo:-—}; the slowest ratio ${worst:-—}."
  echo
  echo "| model | fp32 ms | int8 ms | int8 / fp32 | output SQNR | QDQ ONNX in ORT |"
  echo "|---|---:|---:|---:|---:|---|"
  printf '%s\n' "${rows[@]}"
  if [ -n "$target" ]; then
    below=$(awk -F'\t' -v t="$target" '$2 < t { n++ } END { print n + 0 }' "$work/mixed.tsv" 2>/dev/null || echo "?")
    held_below=$(awk -F'\t' -v t="$target" '$3 < t { n++ } END { print n + 0 }' "$work/mixed.tsv" 2>/dev/null || echo "?")
    echo
    echo "## With \`--quantize-target-sqnr $target\`"
    echo
    echo "The same int8 compile with \`--quantize-target-sqnr $target\`: mixed precision"
    echo "keeps in float the tensors that bring the output SQNR against the float"
    echo "model to $target dB on the $samples calibration samples (the data it is judged"
    echo "on), with as much int8 as it can. **Float tensors**: kept float / quantized"
    echo "tensors; **float work**: their share of the quantized layers' work (each"
    echo "tensor counted with the layers that read it); **held-out**: the SQNR"
    echo "against PyTorch on \`test_data_set_0\`; latency as above, in the same rounds."
    echo
    echo "Below the target on the calibration samples: $below; on the held-out image: $held_below."
    echo
    echo "| model | float tensors | float work | all int8 | reached (calibration) | held-out | ms | / fp32 | compile |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${mixed_rows[@]}"
  fi
} >"$out"
echo "wrote $out"

if [ -n "$check" ]; then
  failures=0
  fail() { echo "run-int8-zoo.sh: FAIL $*" >&2; failures=$((failures + 1)); }
  timed=$(wc -l <"$work/ratios.tsv" 2>/dev/null || echo 0)
  [ "$timed" -eq "${#models[@]}" ] ||
    fail "$timed of ${#models[@]} models compiled and timed"
  while IFS=$'\t' read -r model ratio; do
    awk -v r="$ratio" 'BEGIN { exit !(r < 1) }' ||
      fail "$model int8 is not faster than fp32 (${ratio}x)"
  done <"$work/ratios.tsv"
  for row in "${rows[@]}"; do
    case $row in *"| runs |") ;; *) fail "QDQ export: $row" ;; esac
  done
  mean=$(awk -F'\t' '$2 > 0 { s += log($2); n++ } END { if (n) printf "%.4f", exp(s / n) }' "$work/ratios.tsv")
  awk -v g="${mean:-9}" 'BEGIN { exit !(g <= 0.45) }' ||
    fail "geometric mean of int8 / fp32 ${mean:-?} > 0.45"
  if [ -n "$target" ]; then
    reached=$(wc -l <"$work/mixed.tsv" 2>/dev/null || echo 0)
    [ "$reached" -eq "${#models[@]}" ] ||
      fail "$reached of ${#models[@]} mixed-precision programs compiled"
    while IFS=$'\t' read -r model db held; do
      awk -v d="$db" -v t="$target" 'BEGIN { exit !(d + 0 >= t) }' ||
        fail "$model mixed precision reached $db dB < $target dB"
    done <"$work/mixed.tsv"
  fi
  [ "$failures" -eq 0 ] || exit 1
  echo "run-int8-zoo.sh: PASS ${#models[@]} models, int8 / fp32 geometric mean ${mean}x"
fi
