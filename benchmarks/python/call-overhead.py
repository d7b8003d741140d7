#!/usr/bin/python3
"""What a call from Python costs over the runtime's own execute.

Usage: call-overhead.py [--build DIR] [--runs N] [MODEL.onnx ...]

For each model (default: the bundled digits CNN and MLP), compiles it with
strata-compile, times strata-run --bench (the runtime's median per execute,
1 thread) and Method.__call__ from Python on the same input (median of the
same number of calls, inputs set and outputs copied to numpy as users get
them), and prints both medians and their difference. The target: the
Python call within 20 microseconds of strata-run's execute.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=ROOT + "/build")
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("models", nargs="*", default=[
        ROOT + "/models/digits_cnn/model.onnx",
        ROOT + "/models/digits_mlp/model.onnx"])
    args = parser.parse_args()
    sys.path.insert(0, args.build + "/python")
    import strata

    print("| model | strata-run execute, median us | Python call, median us "
          "| difference us |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            name = os.path.basename(os.path.dirname(model)) or model
            program_path = os.path.join(tmp, name + ".strata")
            subprocess.run([args.build + "/bin/strata-compile", model, "-o",
                            program_path], check=True, capture_output=True)
            program = strata.load(program_path, threads=1)
            method = program.method(program.default_method)
            shape = [int(d) for d in re.findall(
                r"\d+", method.input_types[0].split("[", 1)[1])]
            x = np.random.default_rng(0).standard_normal(shape).astype(
                np.float32)
            np.save(os.path.join(tmp, "x.npy"), x)
            text = subprocess.run(
                [args.build + "/bin/strata-run", program_path, "--input",
                 os.path.join(tmp, "x.npy"), "--threads", "1", "--bench",
                 str(args.runs)], check=True, capture_output=True,
                text=True).stdout
            runtime_us = float(re.search(r"median ([0-9.]+) ms", text)
                               .group(1)) * 1e3
            for _ in range(200):
                method(x)
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                method(x)
                times.append(time.perf_counter() - start)
            python_us = float(np.median(times)) * 1e6
            print("| %s | %.1f | %.1f | %.1f |" % (
                name, runtime_us, python_us, python_us - runtime_us))


if __name__ == "__main__":
    main()
