#!/usr/bin/env bash
#===- run-wild.sh - compile, check and time the wild-model corpus ----------===//
#
# Usage: benchmarks/wild/run-wild.sh [OUT] [ID...]     (OUT: build/wild)
# Env:   BIN (build/bin), PIPELINES ("default onednn"), TIMEOUT (300 s per
#        step), ORT=0 to reuse the ORT references and timings already in OUT,
#        DOC (docs/wild-models.md), THREADS (1: ORT's intra-op threads and
#        strata-run --threads, for the timed runs).
# Expects fetch.sh and make-inputs.py to have run (the corpus and inputs in
# OUT/<id>/). For each model:
#   1. ort-ref.mjs: ONNX Runtime's outputs (the reference) and its median
#      latency at 1 thread, in this same run (graph optimisation 'all');
#      strata-translate --import-onnx --coverage: the op types the importer
#      lacks (OUT/<id>/coverage.txt);
#   2. per pipeline (default: no --backend; onednn: --backend onednn):
#      strata-compile with the model's input shapes pinned (--input-shape),
#      logs in OUT/<id>/<pipeline>/compile.log;
#   3. strata-run --inputs/--expect on every test_data_set_N against ORT:
#      pass when each output's rel-L2 <= 1e-4 (quantized models:
#      SQNR >= 30 dB; models.json "criterion" may say otherwise, e.g. the
#      fp16 model: SQNR >= 40 dB); a model that fails is also checked against ORT at
#      'basic' optimisation (ORT 'all' is wrong on some graphs);
#   4. VAD models: vad-stream.py, the utterance chunk by chunk, state carried;
#   5. strata-run --bench N --threads THREADS (N: ORT's number of runs);
# then report.py: the task-level checks (VAD speech/silence, OCR decoded
# text, top boxes, argmax, ...), OUT/results.json and DOC.
# One model's crash or timeout never stops the run. Run one heavy process
# at a time: this script runs everything sequentially.
#
#===----------------------------------------------------------------------===//
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/wild
if [ $# -gt 0 ] && [ -d "$1" ] && [ ! -f "$1/model.onnx" ]; then out=$(cd "$1" && pwd); shift; fi
bin=${BIN:-$root/build/bin}
pipelines=${PIPELINES:-default onednn}
limit=${TIMEOUT:-300}
threads=${THREADS:-1}
export OMP_NUM_THREADS=1
py=/usr/bin/python3

# id | --input-shape and --input-value flags | criterion (models.json:
# "rel-l2 1e-4" unless it says) | the inputs models.json freezes
# ("input_values": a Silero VAD's sample rate, with --input-value)
list=$(node -e '
  const only = new Set(process.argv.slice(2));
  for (const m of require(process.argv[1])) {
    if (only.size && !only.has(m.id)) continue;
    const shapes = Object.entries(m.input_shapes || {}).map(([k, v]) => `--input-shape=${k}=${v}`);
    const values = Object.entries(m.input_values || {}).map(([k, v]) => `--input-value=${k}=${v}`);
    const crit = m.criterion || (m.quantized ? "min-sqnr 30" : "rel-l2 1e-4");
    console.log([m.id, shapes.concat(values).join(" "), crit, Object.keys(m.input_values || {}).join(",")].join("|"));
  }' "$here/models.json" "$@") || { echo "run-wild.sh: cannot read models.json" >&2; exit 1; }

# A copy of input set $1 without the inputs that --input-value froze (they
# left the program's signature), renumbered, with the outputs, in $2.
strip_frozen() {
  "$py" - "$1" "$2" "$frozen" "$dir/model.onnx" <<'PY'
import os, shutil, sys
import onnx
src, dst, frozen, model = sys.argv[1], sys.argv[2], set(filter(None, sys.argv[3].split(','))), sys.argv[4]
graph = onnx.load(model, load_external_data=False).graph
inits = {t.name for t in graph.initializer}
names = [i.name for i in graph.input if i.name not in inits]
shutil.rmtree(dst, ignore_errors=True)
os.makedirs(dst)
k = 0
for i, name in enumerate(names):
    if name in frozen:
        continue
    shutil.copy(os.path.join(src, f'input_{i}.pb'), os.path.join(dst, f'input_{k}.pb'))
    k += 1
for f in os.listdir(src):
    if f.startswith('output_'):
        shutil.copy(os.path.join(src, f), os.path.join(dst, f))
PY
}

for tool in strata-compile strata-run strata-translate; do
  [ -x "$bin/$tool" ] || echo "run-wild.sh: $bin/$tool missing; every model will be recorded as not compiled" >&2
done

while IFS="|" read -r id shapes criterion frozen; do
  dir=$out/$id
  if [ ! -f "$dir/model.onnx" ] || [ ! -d "$dir/test_data_set_0" ]; then
    echo "$id: no model or inputs (run fetch.sh and make-inputs.py)"; continue
  fi
  echo "== $id"
  if [ "${ORT:-1}" != 0 ] || [ ! -f "$dir/ort.json" ]; then
    timeout 900 node "$here/ort-ref.mjs" "$out" --threads "$threads" "$id" >"$dir/ort.log" 2>&1
  fi
  rm -f "$dir/ort-basic.json"; rm -rf "$dir/ort-basic"
  # the importer's op coverage: which op types (domain::type-opset) it lacks
  timeout "$limit" "$bin/strata-translate" --import-onnx --coverage "$dir/model.onnx" \
    -o /dev/null >"$dir/coverage.txt" 2>&1
  runs=$(node -p "try { require('$dir/ort.json').runs || 10 } catch { 10 }")
  case $criterion in
    min-sqnr*) crit=(--min-sqnr "${criterion#min-sqnr }") ;;
    *) crit=(--rel-l2 "${criterion#rel-l2 }" --atol 1e30 --rtol 0) ;;   # rel-L2 alone decides
  esac
  for pipe in $pipelines; do
    p=$dir/$pipe
    rm -rf "$p"; mkdir -p "$p"
    backend=(); [ "$pipe" != default ] && backend=(--backend "$pipe")
    # shellcheck disable=SC2086  # $shapes: one --input-shape=... per pinned input
    timeout "$limit" "$bin/strata-compile" "$dir/model.onnx" -o "$p/model.strata" \
      "${backend[@]}" $shapes --report "$p/report.json" >"$p/compile.log" 2>&1
    echo $? >"$p/compile.rc"
    if [ "$(cat "$p/compile.rc")" != 0 ] || [ ! -f "$p/model.strata" ]; then
      echo "  $pipe: compile failed: $(grep -m1 -iE 'error|fail|abort|unsupported' "$p/compile.log" || head -1 "$p/compile.log")"
      continue
    fi
    for set in "$dir"/test_data_set_*; do
      s=$(basename "$set")
      if [ -n "$frozen" ]; then                       # the program's inputs only
        strip_frozen "$set" "$p/in/$s"
        set=$p/in/$s
      fi
      mkdir -p "$p/out/$s"
      t0=$(date +%s.%N)
      timeout "$limit" "$bin/strata-run" "$p/model.strata" --threads 1 --inputs "$set" \
        --expect "$set" "${crit[@]}" --output-dir "$p/out/$s" >"$p/run-$s.log" 2>&1
      echo $? >"$p/run-$s.rc"
      rm -f "$p/out/$s"/*.npy                          # report.py reads the .pb copies
      echo "$(date +%s.%N) - $t0" | bc >"$p/run-$s.seconds"   # wall time, load included
      if [ "$(cat "$p/run-$s.rc")" = 1 ]; then      # mismatch: is ORT 'all' the one that is wrong?
        [ -f "$dir/ort-basic.json" ] || timeout 900 node "$here/ort-ref.mjs" "$out" --opt basic --time-ms 1 "$id" >>"$dir/ort.log" 2>&1
        [ -d "$dir/ort-basic/$s" ] && timeout "$limit" "$bin/strata-run" "$p/model.strata" --threads 1 \
          --inputs "$set" --expect "$dir/ort-basic/$s" "${crit[@]}" >"$p/basic-$s.log" 2>&1
      fi
    done
    echo "  $pipe: run $(cat "$p"/run-*.rc | tr '\n' ' ')"
    if [ -f "$dir/stream/meta.json" ]; then          # VAD: the whole utterance, state carried
      timeout "$limit" "$py" "$here/vad-stream.py" "$dir" "$p/model.strata" "$p/stream.json" \
        --frozen "$frozen" \
        --strata-run "$bin/strata-run" >"$p/stream.log" 2>&1
    fi
    if grep -qxE '124|137' "$p"/run-*.rc; then      # a run that timed out: no bench either
      echo "bench skipped: a run timed out after ${limit} s" >"$p/bench.log"; echo 124 >"$p/bench.rc"
      continue
    fi
    # fewer runs where one run is slow: the first, the warm-up and N runs must fit in the limit
    n=$(awk -v n="$runs" -v t="$(cat "$p/run-test_data_set_0.seconds")" -v l="$limit" \
      'BEGIN { m = int(0.8 * l / (t > 0 ? t : 1e-3)) - 2; if (m < n) n = m; if (n < 1) n = 0; print n }')
    if [ "$n" = 0 ]; then
      echo "bench skipped: one run takes $(cat "$p/run-test_data_set_0.seconds") s" >"$p/bench.log"; echo 124 >"$p/bench.rc"
      continue
    fi
    benchin=$dir/test_data_set_0; [ -n "$frozen" ] && benchin=$p/in/test_data_set_0
    timeout "$limit" "$bin/strata-run" "$p/model.strata" --threads "$threads" --inputs "$benchin" \
      --bench "$n" >"$p/bench.log" 2>&1
    echo $? >"$p/bench.rc"
  done
done <<<"$list"

"$py" "$here/report.py" "$out" --doc "${DOC:-$root/docs/wild-models.md}"
