#!/usr/bin/python3
"""Fits the partitioner's cost calibration from measured profiles.

Usage: fit-partition-cost.py --out FILE --machine TEXT --threads N
                             MODEL REPORT PORTABLE_TSV DELEGATE_TSV ...

Each model contributes its compile report (`strata-compile --report` with
the delegate taking every group: the class and work units of each edge op,
by ONNX node) and two profiles (`strata-run --profile-tsv`): the portable
program's instructions and the delegated program's steps. Instructions or
steps serving the same set of nodes are summed into one sample, whose work
is those nodes' work by class plus one unit of "op" per edge op (its fixed
cost). Per side, nanoseconds per unit of each class
are fitted by non-negative least squares on relative error, so that small
ops weigh as much as large ones, then scaled so that each side's total
matches the measured total. The delegate's call cost is the intercept of
its calls' time outside their steps against their step count; a byte
crossing a partition's boundary is priced as a byte of portable data
movement (a layout conversion is a copy).
"""
import argparse
import collections
import json
import os
import sys

import numpy as np


def read_report(path):
    """node -> {class: units}, from the delegation report's ops."""
    work = collections.defaultdict(lambda: collections.defaultdict(float))
    with open(path) as f:
        report = json.load(f)
    for op in report["delegation"]["ops"]:
        work[op["node"]][op["class"]] += float(op["work"])
        # Each op's fixed cost (dispatch, a primitive's start) is fitted as
        # one unit of the pseudo-class "op".
        work[op["node"]]["op"] += 1.0
    return work


def read_tsv(path):
    instructions, steps = [], []
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "instruction":
                _, index, label, ns, nodes = fields
                instructions.append((int(index), label, int(ns),
                                     tuple(n for n in nodes.split("|") if n)))
            elif fields[0] == "step":
                _, index, _, op, impl, layout, ns, nodes = fields
                steps.append((int(index), op, int(ns),
                              tuple(n for n in nodes.split("|") if n)))
    return instructions, steps


def samples(timed, work):
    """(time, {class: units}) per set of nodes; a node's work is split
    evenly between the sets it appears in."""
    by_set = collections.defaultdict(int)
    for ns, nodes in timed:
        if nodes:
            by_set[frozenset(nodes)] += ns
    appearances = collections.Counter(n for s in by_set for n in s)
    out = []
    for nodes, ns in by_set.items():
        units = collections.defaultdict(float)
        for node in nodes:
            for cls, u in work.get(node, {}).items():
                units[cls] += u / appearances[node]
        if ns > 0 and any(u > 0 for u in units.values()):
            out.append((ns, units))
    return out


def nnls_relative(rows, classes):
    """min sum ((t - u.a) / t)^2 over a >= 0, by coordinate descent."""
    t = np.array([ns for ns, _ in rows], dtype=float)
    u = np.array([[units.get(c, 0.0) for c in classes] for _, units in rows])
    a_mat = u / t[:, None]
    b = np.ones(len(rows))
    coef = np.zeros(len(classes))
    for c in range(len(classes)):
        col = a_mat[:, c]
        if col @ col > 0:
            coef[c] = max(0.0, (col @ b) / (col @ col)) / len(classes)
    for _ in range(2000):
        for c in range(len(classes)):
            col = a_mat[:, c]
            norm = col @ col
            if norm == 0:
                continue
            residual = b - a_mat @ coef + col * coef[c]
            coef[c] = max(0.0, (col @ residual) / norm)
    predicted = u @ coef
    error = np.abs(predicted - t) / t
    return coef, float(np.median(error)), float(np.sum(predicted) / np.sum(t))


def call_cost(calls):
    """The fixed part of a delegate call's time outside its steps: the
    intercept of outside = call + per_step * steps (profiling itself costs
    a little per step), at least 0."""
    if not calls:
        return 0.0
    outside = np.array([o for o, _ in calls], dtype=float)
    steps = np.array([n for _, n in calls], dtype=float)
    if len(calls) < 3 or np.ptp(steps) == 0:
        return float(np.min(outside))
    design = np.stack([np.ones_like(steps), steps], axis=1)
    (intercept, _), *_ = np.linalg.lstsq(design, outside, rcond=None)
    return float(max(0.0, intercept))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--machine", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()
    if len(args.inputs) % 4:
        sys.exit("fit-partition-cost.py: inputs come in fours: "
                 "MODEL REPORT PORTABLE_TSV DELEGATE_TSV")
    portable_rows, delegate_rows, call_ns, models = [], [], [], []
    for i in range(0, len(args.inputs), 4):
        model, report, portable_tsv, delegate_tsv = args.inputs[i:i + 4]
        models.append(model)
        work = read_report(report)
        instructions, _ = read_tsv(portable_tsv)
        portable_rows += samples([(ns, nodes) for _, _, ns, nodes in instructions],
                                 work)
        d_instructions, d_steps = read_tsv(delegate_tsv)
        delegate_rows += samples([(ns, nodes) for _, _, ns, nodes in d_steps], work)
        for index, label, ns, _ in d_instructions:
            if label.startswith("delegate"):
                own = [s_ns for s_index, _, s_ns, _ in d_steps if s_index == index]
                call_ns.append((max(0, ns - sum(own)), len(own)))
    classes = sorted({c for _, units in portable_rows + delegate_rows
                      for c in units})
    p_coef, p_err, p_ratio = nnls_relative(portable_rows, classes)
    d_coef, d_err, d_ratio = nnls_relative(delegate_rows, classes)

    def prices(coef, rows):
        # A class no sample of this side exercised is left out (the cost
        # model then prices it as on the other side, or as "other").
        seen = {c for _, units in rows for c, u in units.items() if u > 0}
        return {c: float(f"{v:.6g}") for c, v in zip(classes, coef)
                if c in seen and c != "op"}

    def op_ns(coef):
        return float(f"{coef[classes.index('op')]:.6g}") if "op" in classes else 0.0

    portable = prices(p_coef, portable_rows)
    # "other": the most expensive element-wise-like price, for classes the
    # calibration never saw.
    portable["other"] = max(portable.get("eltwise", 0.0),
                            portable.get("data", 0.0), 1e-3)
    data_per_byte = portable.get("data", portable["other"]) / 4
    calibration = {
        "format": "strata-partition-cost",
        "version": 1,
        "machine": args.machine,
        "threads": args.threads,
        "models": models,
        "fit": {
            "portable_samples": len(portable_rows),
            "delegate_samples": len(delegate_rows),
            "portable_median_relative_error": round(p_err, 3),
            "delegate_median_relative_error": round(d_err, 3),
            "portable_predicted_over_measured": round(p_ratio, 3),
            "delegate_predicted_over_measured": round(d_ratio, 3),
        },
        # The scales make each side's total over all samples match the
        # measured total (the relative fit favours the many small ops).
        "portable": {"scale": round(1 / p_ratio, 4), "ns_per_unit": portable,
                     "op_ns": op_ns(p_coef)},
        "delegate": {
            "scale": round(1 / d_ratio, 4),
            "op_ns": op_ns(d_coef),
            "ns_per_unit": prices(d_coef, delegate_rows),
            "call_ns": float(f"{call_cost(call_ns):.6g}"),
            "boundary_ns_per_byte": float(f"{data_per_byte:.6g}"),
        },
    }
    with open(args.out + ".tmp", "w") as f:
        json.dump(calibration, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(args.out + ".tmp", args.out)
    print(json.dumps(calibration["fit"]))


if __name__ == "__main__":
    main()
