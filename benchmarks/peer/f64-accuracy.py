#!/usr/bin/env python3
"""Accuracy against a float64 reference, for the architecture set's page.

For each model folder MODELS/<name> with reference_f64/output_N.pb (the
network run by PyTorch in float64, models/arch.py), prints a markdown
section: the rel-L2 (largest over the outputs) against that reference of
PyTorch's float32 outputs (test_data_set_0), ONNX Runtime's (WORK/<name>/
ort.out/, ort-bench.mjs --output-dir) and each Strata program's (WORK/
<name>/<config>.out/, strata-run --output-dir), and each program's error as
a multiple of ONNX Runtime's own. A missing file is an empty cell.

Usage: f64-accuracy.py --models DIR --work DIR MODEL...
"""

import argparse
import os

import numpy as np
import onnx
from onnx import numpy_helper

CONFIGS = ["portable", "onednn", "direct", "xnnpack"]


def outputs(folder):
    """The output_N.pb arrays of `folder` in order (None if none)."""
    if not os.path.isdir(folder):
        return None
    arrays = []
    while os.path.exists(os.path.join(folder, f"output_{len(arrays)}.pb")):
        t = onnx.load_tensor(os.path.join(folder, f"output_{len(arrays)}.pb"))
        arrays.append(numpy_helper.to_array(t).astype(np.float64))
    return arrays or None


def rel_l2(got, want):
    if got is None or len(got) != len(want):
        return None
    worst = 0.0
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return None
        norm = np.linalg.norm(w)
        worst = max(worst, np.linalg.norm(g - w) / (norm if norm else 1.0))
    return worst


def cell(x):
    return "" if x is None else f"{x:.1e}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("names", nargs="+")
    args = p.parse_args()
    rows = []
    for name in args.names:
        ref = outputs(os.path.join(args.models, name, "reference_f64"))
        if ref is None:
            continue
        torch32 = rel_l2(outputs(os.path.join(args.models, name,
                                              "test_data_set_0")), ref)
        ort = rel_l2(outputs(os.path.join(args.work, name, "ort.out")), ref)
        strata = {c: rel_l2(outputs(os.path.join(args.work, name,
                                                 f"{c}.out")), ref)
                  for c in CONFIGS}
        rows.append((name, torch32, ort, strata))
    if not rows:
        return
    used = [c for c in CONFIGS if any(r[3][c] is not None for r in rows)]
    print("\n## Accuracy against float64\n")
    print("Each runtime's rel-L2 (largest over the outputs) against the "
          "network run by PyTorch in float64 on the same input "
          "(`reference_f64/`), and in parentheses each Strata program's "
          "error as a multiple of ONNX Runtime's own.\n")
    print("| model | PyTorch fp32 | ONNX Runtime | "
          + " | ".join(used) + " |")
    print("|---|---:|---:|" + "---:|" * len(used))
    for name, torch32, ort, strata in rows:
        cells = []
        for c in used:
            x = strata[c]
            ratio = (f" ({x / ort:.1f}x)" if x is not None and ort
                     else "")
            cells.append(cell(x) + ratio)
        print(f"| {name} | {cell(torch32)} | {cell(ort)} | "
              + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
