#!/usr/bin/env python3
"""Decode speed of a GPT-style decoder (models/decoder.py) on Strata against
ONNX Runtime on the same ONNX file with past_key_values, at given context
lengths and one thread.

Strata: with_past.onnx compiled with --state past-present and a decode
method (one token, the cache of up to CONTEXT - 1 tokens in the program's
state). ONNX Runtime: ort-decode.mjs, the cache given as inputs and the
presents returned, as its users run it.

--mode generate (the default) times the steps of a generation, as a user's
loop runs them: the cache starts at PAST + 1 - (warm-up + runs) random
tokens and every step appends one (Strata: in the program's state; ONNX
Runtime: its presents passed back as the next past), the last step's past
PAST tokens: each step sees a cache length it has not seen before. --mode
repeat times every step on the same cache of PAST tokens (set before each
Strata call, not timed): the shapes repeat, which flatters a runtime that
builds per shape.

With `--weights f32 int4 int8 int4-a8 int8-a8` each weight format is compiled
(--quantize-weights, in groups of --weight-group-size) and timed against the
same ONNX Runtime run; the table gives each program's size beside its
speed, and each format's speed-up over f32.

`--onnx FILE` times another step graph of the folder, e.g. one whose
MatMuls are ONNX Runtime's MatMulNBits (to-matmulnbits.py): both run the
same int4 file.

Every runtime and format is timed once per round (--rounds, 5 by
default, of --runs steps each), so that a round's figures are taken
close together on a machine whose speed drifts; a ratio is the median of
the rounds' ratios, and the worst round's is printed beside it.

`--require-vs-ort R` fails (exit 1) when the f32 program's tokens/s is
under R times ONNX Runtime's at any context; `--require-over-f32
FORMAT=R` when that format's is under R times the f32 program's (the
median ratios).

Usage: decode-speed.py MODEL_DIR [--backend onednn] [--past 127 1023]
       [--runs 30] [--rounds 5] [--threads 1] [--weights f32 int4 int8 int4-a8 int8-a8]
       [--weight-group-size 32] [--onnx with_past.onnx]
       [--mode generate|repeat] [--model-state-layout]
       [--require-vs-ort 1.5] [--require-over-f32 int4-a8=2.0 ...]
Prints a markdown table (and --json FILE the figures).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("STRATA_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))
import onnx  # noqa: E402
import strata  # noqa: E402


def cache_shape(model):
    """(layers, heads, head_dim, context) from the model's past inputs and
    its position table."""
    graph = model.graph
    pasts = [i for i in graph.input if i.name.startswith("past_key_values")]
    dims = pasts[0].type.tensor_type.shape.dim
    context = next(t.dims[0] for t in graph.initializer
                   if t.name.endswith("positions.weight"))
    return len(pasts) // 2, dims[1].dim_value, dims[3].dim_value, context


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--backend", default="onednn")
    parser.add_argument("--past", type=int, nargs="+", default=[127, 1023])
    parser.add_argument("--runs", type=int, default=30,
                        help="timed steps per round")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds, each timing every runtime and format")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--weights", nargs="+", default=["f32"],
                        choices=["f32", "int4", "int8", "int4-a8",
                                 "int8-a8"])
    parser.add_argument("--weight-group-size", type=int, default=32)
    parser.add_argument("--onnx", default="with_past.onnx")
    parser.add_argument("--mode", choices=["generate", "repeat"],
                        default="generate")
    parser.add_argument("--model-state-layout", action="store_true",
                        help="compile with --state-in-place=false (the "
                             "cache in the model's layout, copied per step)")
    parser.add_argument("--json")
    parser.add_argument("--require-vs-ort", type=float)
    parser.add_argument("--require-over-f32", nargs="+", default=[],
                        metavar="FORMAT=RATIO")
    args = parser.parse_args()
    required = {}
    for entry in args.require_over_f32:
        name, _, ratio = entry.partition("=")
        try:
            float(ratio)
        except ValueError:
            sys.exit(f"--require-over-f32 {entry}: want FORMAT=RATIO")
        if name not in args.weights or "f32" not in args.weights:
            sys.exit(f"--require-over-f32 {entry}: time f32 and {name} "
                     "(--weights)")
        required[name] = float(ratio)
    if args.require_vs_ort and "f32" not in args.weights:
        sys.exit("--require-vs-ort needs f32 in --weights")
    onnx_path = os.path.join(args.model_dir, args.onnx)
    layers, heads, head_dim, context = cache_shape(
        onnx.load(onnx_path, load_external_data=False))
    rng = np.random.default_rng(0)
    here = os.path.dirname(os.path.abspath(__file__))

    def time_ort(past):
        return json.loads(subprocess.run(
            ["node", os.path.join(here, "ort-decode.mjs"),
             "--ort-dir", os.path.join(BUILD, "peer", "npm"),
             "--model", onnx_path, "--past", str(past), "--heads", str(heads),
             "--head-dim", str(head_dim), "--threads", str(args.threads),
             "--runs", str(args.runs), "--mode", args.mode],
            check=True, capture_output=True, text=True).stdout)["median_ms"]

    programs = {}
    for weights in args.weights:
        stem = os.path.splitext(args.onnx)[0]
        layout = "-model-layout" if args.model_state_layout else ""
        program_path = os.path.join(
            args.model_dir, f"{stem}-{args.backend}-{weights}{layout}.strata")
        command = [os.path.join(BUILD, "bin", "strata-compile"), onnx_path,
                   "-o", program_path, "--state", "past-present",
                   "--dim", f"past_sequence=0..{context - 1}",
                   "--dim", f"total_sequence=1..{context}",
                   "--input-shape", "input_ids=1x1",
                   "--input-shape", "position_ids=1x1"]
        if args.model_state_layout:
            command.append("--state-in-place=false")
        if args.backend != "portable":
            command += ["--backend", args.backend]
        if args.backend == "onednn":
            # Implementations chosen on the thread count that runs them.
            command += ["--backend-option", f"tune_threads={args.threads}"]
        if weights != "f32":
            # int4-a8: int4 weights with int8 dynamic activations (8da4w).
            command += ["--quantize-weights", weights.split("-")[0],
                        "--weight-group-size", str(args.weight_group_size)]
            if weights.endswith("-a8"):
                command += ["--weight-activations", "int8"]
        subprocess.run(command, check=True)
        program = strata.load(program_path, threads=args.threads)
        programs[weights] = (program_path, program,
                             program.method(program.methods[0]))

    def time_strata(weights, past):
        _, program, method = programs[weights]
        warm = max(1, args.runs // 10)
        grow = args.mode == "generate"
        first = past + 1 - (warm + args.runs) if grow else past
        if first < 0:
            sys.exit(f"--past {past} is shorter than the "
                     f"{warm + args.runs} steps")
        caches = {name: (rng.standard_normal((1, heads, first, head_dim))
                         * 0.1).astype(np.float32)
                  for name in program.state_names}
        token = np.array([[65]])
        times = []
        for name, value in caches.items():
            program.set_state(name, value)
        for i in range(args.runs + warm):
            length = first + (i if grow else 0)
            mask = np.ones((1, length + 1), np.int64)
            position = np.array([[length]])
            if not grow:
                for name, value in caches.items():
                    program.set_state(name, value)
            start = time.perf_counter()
            method(token, mask, position)
            elapsed = (time.perf_counter() - start) * 1e3
            if i >= warm:
                times.append(elapsed)
        return float(np.median(times))

    # Rounds: every runtime and format once per round, so that each round's
    # figures are taken close together; a ratio is the median of the
    # rounds' ratios, the worst round's quoted beside it.
    ort_rounds = {past: [] for past in args.past}
    strata_rounds = {(w, past): [] for w in args.weights for past in args.past}
    for _ in range(args.rounds):
        for past in args.past:
            ort_rounds[past].append(time_ort(past))
        for weights in args.weights:
            for past in args.past:
                strata_rounds[(weights, past)].append(
                    time_strata(weights, past))

    def ratios(numerators, denominators):
        each = [n / d for n, d in zip(numerators, denominators)]
        return float(np.median(each)), min(each)

    rows = []
    for weights in args.weights:
        for past in args.past:
            mine = strata_rounds[(weights, past)]
            vs_ort, vs_ort_worst = ratios(ort_rounds[past], mine)
            row = {"weights": weights, "past": past,
                   "program_bytes": os.path.getsize(programs[weights][0]),
                   "strata_ms": float(np.median(mine)),
                   "ort_ms": float(np.median(ort_rounds[past])),
                   "strata_ms_rounds": mine,
                   "ort_ms_rounds": ort_rounds[past],
                   "vs_ort": vs_ort, "vs_ort_worst_round": vs_ort_worst}
            if "f32" in args.weights:
                row["over_f32"], row["over_f32_worst_round"] = ratios(
                    strata_rounds[("f32", past)], mine)
            row["strata_tokens_per_s"] = 1e3 / row["strata_ms"]
            row["ort_tokens_per_s"] = 1e3 / row["ort_ms"]
            rows.append(row)
    print(f"{args.rounds} rounds of {args.runs} steps; ms: the rounds' "
          f"median; ratios: the median of the rounds' ratios (the worst "
          f"round's in brackets)\n")
    print(f"| weights | program MB | context | Strata ({args.backend}) "
          f"ms/token | tokens/s | ONNX Runtime ms/token | tokens/s | "
          f"Strata / ORT tokens/s | over f32 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        over = (f"{r['over_f32']:.2f}x ({r['over_f32_worst_round']:.2f}x)"
                if "over_f32" in r else "")
        print(f"| {r['weights']} | {r['program_bytes'] / 1e6:.1f} | "
              f"{r['past'] + 1} | {r['strata_ms']:.2f} | "
              f"{r['strata_tokens_per_s']:.0f} | {r['ort_ms']:.2f} | "
              f"{r['ort_tokens_per_s']:.0f} | "
              f"{r['vs_ort']:.2f}x ({r['vs_ort_worst_round']:.2f}x) | "
              f"{over} |")
    misses = []
    for r in rows:
        if (args.require_vs_ort and r["weights"] == "f32" and
                r["vs_ort"] < args.require_vs_ort):
            misses.append(f"f32 at context {r['past'] + 1}: "
                          f"{r['vs_ort']:.2f}x ONNX Runtime, under "
                          f"{args.require_vs_ort}x")
        want = required.get(r["weights"])
        if want and r.get("over_f32", 0) < want:
            misses.append(f"{r['weights']} at context {r['past'] + 1}: "
                          f"{r.get('over_f32', 0):.2f}x f32, under {want}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"layers": layers, "heads": heads, "head_dim": head_dim,
                       "context": context, "threads": args.threads,
                       "backend": args.backend, "mode": args.mode,
                       "model_state_layout": args.model_state_layout,
                       "weight_group_size": args.weight_group_size,
                       "rounds": args.rounds, "runs": args.runs,
                       "rows": rows}, f, indent=2)
    for miss in misses:
        print(f"decode-speed: MISSED: {miss}", file=sys.stderr)
    if misses:
        sys.exit(1)


if __name__ == "__main__":
    main()
