#!/usr/bin/python3
"""The wild models that declare dynamic axes, compiled once for a batch range.

Usage: wild-dynamic-batch.py [--build DIR] [--wild DIR] [BACKEND...]

For each model of benchmarks/wild/models.json whose inputs declare dynamic
axes (fetched by benchmarks/wild/fetch.sh into build/wild), compiles one
program with the batch bounded (the other extents pinned as run-wild.sh
pins them, inputs frozen as it freezes them) and one program per tested
batch with every extent pinned, runs both on the same seeded inputs at the
smallest, the largest and an odd batch, and prints a markdown row per model
and backend: bit-equal, or the largest rel-L2 between the two programs'
outputs, or the compiler's refusal. Backends as strata-compile names them
(portable by default). The pinned programs are the ones run-wild.sh checks
against ONNX Runtime, so agreement with them carries that check over to
every batch of the one dynamic program.
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# id: (bounded input shapes, pinned shapes with {b} for the batch, frozen
# inputs); the first input's bound gives the largest batch tested.
SILERO_V5 = ({"input": "batch:1..4x576", "state": "2xbatch:1..4x128"},
             {"input": "{b}x576", "state": "2x{b}x128"})
CASES = {
    "oww-embedding": ({"input_1": "batch:1..8x76x32x1"},
                      {"input_1": "{b}x76x32x1"}, {}),
    "ppocr-mobile-v2-cls": ({"x": "batch:1..8x3x48x192"},
                            {"x": "{b}x3x48x192"}, {}),
    "ppocr-v4-rec": ({"x": "batch:1..4x3x48x320"}, {"x": "{b}x3x48x320"}, {}),
    "ppocr-v4-det": ({"x": "batch:1..4x3x160x480"}, {"x": "{b}x3x160x480"}, {}),
    "silero-vad-v4": ({"input": "batch:1..4x1536", "h": "2xbatch:1..4x64",
                       "c": "2xbatch:1..4x64"},
                      {"input": "{b}x1536", "h": "2x{b}x64", "c": "2x{b}x64"},
                      {"sr": "16000"}),
    "silero-vad-v5": SILERO_V5 + ({"sr": "16000"},),
    "silero-vad-v6": SILERO_V5 + ({"sr": "16000"},),
    "silero-vad-16k-op15": SILERO_V5 + ({"sr": "16000"},),
    "silero-vad-half": SILERO_V5 + ({},),
    "silero-vad-op18-ifless": SILERO_V5 + ({"sr": "16000"},),
}


def compile_program(bin_dir, model, out, shapes, values, backend):
    args = [bin_dir + "/strata-compile", model, "-o", out, "--backend", backend]
    for name, dims in shapes.items():
        args += ["--input-shape", "%s=%s" % (name, dims)]
    for name, value in values.items():
        args += ["--input-value=%s=%s" % (name, value)]
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode == 0, (r.stderr.strip().splitlines() or [""])[0][:200]


def run_program(bin_dir, program, inputs, folder):
    args = [bin_dir + "/strata-run", program, "--output-dir", folder]
    for path in inputs:
        args += ["--input", path]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        return None
    names = sorted(f for f in os.listdir(folder)
                   if f.startswith("output_") and f.endswith(".npy"))
    return [np.load(os.path.join(folder, f)) for f in names]


def rel_l2(got, want):
    want = want.astype(np.float64)
    return np.linalg.norm(got.astype(np.float64) - want) / max(
        np.linalg.norm(want), 1e-30)


def measure(bin_dir, tmp, model_id, model, case, backend):
    bounded, pinned, values = case
    dynamic = "%s/%s-%s.strata" % (tmp, model_id, backend)
    ok, error = compile_program(bin_dir, model, dynamic, bounded, values, backend)
    if not ok:
        return "refused: " + error
    dtypes = {i.name: i.type.tensor_type.elem_type
              for i in onnx.load(model, load_external_data=False).graph.input}
    largest = int(next(iter(bounded.values())).split("..")[1].split("x")[0])
    rng = np.random.default_rng(0)
    cells = []
    for batch in [1, largest, 3]:
        shapes = {k: v.format(b=batch) for k, v in pinned.items()}
        program = "%s/%s-%s-%d.strata" % (tmp, model_id, backend, batch)
        ok, error = compile_program(bin_dir, model, program, shapes, values,
                                    backend)
        if not ok:
            cells.append("batch %d: pinned program refused" % batch)
            continue
        inputs = []
        for name, dims in shapes.items():
            extents = [int(x) for x in dims.split("x")]
            dtype = (np.float16 if dtypes[name] == onnx.TensorProto.FLOAT16
                     else np.float32)
            # Images and features in [0, 1); recurrent states small.
            if name in ("x", "input_1"):
                data = rng.uniform(0, 1, extents)
            else:
                data = rng.standard_normal(extents) * (
                    0.1 if name == "input" else 0.05)
            path = "%s/%s-%s-%d.npy" % (tmp, model_id, name, batch)
            np.save(path, data.astype(dtype))
            inputs.append(path)
        got = run_program(bin_dir, dynamic, inputs, tmp + "/dynamic-out")
        want = run_program(bin_dir, program, inputs, tmp + "/pinned-out")
        if got is None or want is None:
            cells.append("batch %d: run failed" % batch)
        elif all(g.shape == w.shape and np.array_equal(g, w)
                 for g, w in zip(got, want)):
            cells.append("batch %d bit-equal" % batch)
        else:
            worst = max(rel_l2(g, w) if g.shape == w.shape else float("inf")
                        for g, w in zip(got, want))
            cells.append("batch %d rel-L2 %.1e" % (batch, worst))
    return ", ".join(cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=ROOT + "/build")
    parser.add_argument("--wild", default=None,
                        help="the fetched models (default BUILD/wild)")
    parser.add_argument("backends", nargs="*", default=["portable"])
    args = parser.parse_args()
    wild = args.wild or args.build + "/wild"
    print("| model | backend | dynamic program against pinned ones |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for model_id, case in CASES.items():
            model = "%s/%s/model.onnx" % (wild, model_id)
            if not os.path.exists(model):
                continue
            for backend in args.backends:
                print("| %s | %s | %s |" % (model_id, backend, measure(
                    args.build + "/bin", tmp, model_id, model, case, backend)),
                    flush=True)


if __name__ == "__main__":
    main()
