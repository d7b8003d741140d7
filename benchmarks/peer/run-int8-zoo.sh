#!/usr/bin/env bash
#===- run-int8-zoo.sh - int8 against fp32 on the zoo's CNNs, oneDNN --------===//
#
# Usage: benchmarks/peer/run-int8-zoo.sh [--runs N] [--rounds R]
#                                        [--samples S] [--out FILE] [model ...]
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
# Writes docs/int8-zoo.md: per model the two latencies, their ratio, the
# SQNR and whether ORT ran the export; the geometric mean of the ratios.
#
#   --runs N      timed runs per program over all rounds (30)
#   --rounds R    alternations (3)
#   --samples S   random calibration samples (8)
#   --out FILE    the page (docs/int8-zoo.md)
#
# Not part of any test suite: it measures, it does not check.
#===----------------------------------------------------------------------===//
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
models_dir=${MODELS_DIR:-$build/zoo}
runs=30
rounds=3
samples=8
out=$root/docs/int8-zoo.md
models=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '3,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run-int8-zoo.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
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
rows=()

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
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
  sqnr=$( ("$build/bin/strata-run" "$dir/int8.strata" --inputs "$data" \
    --expect "$data" --min-sqnr 0 2>&1 || true) |
    sed -n 's/.*output 0: [A-Z]* .* sqnr \([-0-9.]*\) dB.*/\1/p' | head -1)
  a=() b=()
  for round in $(seq 1 "$rounds"); do
    echo "$model: round $round"
    a+=("$(bench "$dir/fp32.strata" "$data")")
    b+=("$(bench "$dir/int8.strata" "$data")")
  done
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  ratio=$(awk -v x="$mb" -v y="$ma" 'BEGIN { if (y > 0) printf "%.2f", x / y }')
  rows+=("| $model | $ma | $mb | ${ratio}x | ${sqnr:-?} dB | $qdq |")
  printf '%s\t%s\n' "$model" "$ratio" >>"$work/ratios.tsv"
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
} >"$out"
echo "wrote $out"
