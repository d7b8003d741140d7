#!/usr/bin/python3
# ===- vad-state.py - a VAD model's stream with its state in the program --===#
#
# Usage: /usr/bin/python3 benchmarks/wild/vad-state.py MODEL_DIR [--chunks N]
#        [--backend NAME]
# Compiles a Silero VAD model of the wild corpus (models.json: its pinned
# shapes and frozen sample rate) with --state state=stateN, so that the
# program carries the recurrent state from chunk to chunk, streams N chunks
# of a seeded tone-and-noise signal through it from Python, and compares the
# speech probabilities with ONNX Runtime's stream (ort-stream-state.mjs,
# the state fed back by hand as its users do). Prints the largest
# difference; exits 1 above 1e-5.
# ===----------------------------------------------------------------------===#
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("STRATA_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))
import strata  # noqa: E402


def main():
    args = sys.argv[1:]
    chunks, backend = 40, "onednn"
    if "--chunks" in args:
        i = args.index("--chunks"); chunks = int(args[i + 1]); del args[i:i + 2]
    if "--backend" in args:
        i = args.index("--backend"); backend = args[i + 1]; del args[i:i + 2]
    model_dir = args[0]
    entry = next(m for m in json.load(open(os.path.join(HERE, "models.json")))
                 if m["id"] == os.path.basename(os.path.normpath(model_dir)))
    samples = entry["recipe"]["samples"] + entry["recipe"].get("context", 0)
    step = entry["recipe"]["samples"]
    rng = np.random.default_rng(0)
    t = np.arange(step * chunks + samples) / 16000
    signal = (0.3 * np.sin(2 * np.pi * 220 * t) * (np.sin(2 * np.pi * 1.5 * t) > 0)
              + 0.01 * rng.standard_normal(t.size)).astype(np.float32)
    pieces = [signal[i * step:i * step + samples] for i in range(chunks)]
    tmp = tempfile.mkdtemp()
    program_path = os.path.join(tmp, "vad.strata")
    flags = [f"--input-shape={k}={v}" for k, v in entry["input_shapes"].items()]
    flags += [f"--input-value={k}={v}" for k, v in entry.get("input_values", {}).items()]
    subprocess.run([os.path.join(BUILD, "bin", "strata-compile"),
                    os.path.join(model_dir, "model.onnx"), "-o", program_path,
                    "--state", "state=stateN"] + flags
                   + ([] if backend == "portable" else ["--backend", backend]),
                   check=True)
    with open(os.path.join(tmp, "chunks.json"), "w") as f:
        json.dump([p.tolist() for p in pieces], f)
    subprocess.run(["node", os.path.join(HERE, "ort-stream-state.mjs"),
                    os.path.join(BUILD, "peer", "npm"),
                    os.path.join(model_dir, "model.onnx"),
                    os.path.join(tmp, "chunks.json"),
                    os.path.join(tmp, "ort.json")], check=True)
    want = np.array(json.load(open(os.path.join(tmp, "ort.json"))))
    program = strata.load(program_path)
    method = program.method(program.methods[0])
    got = np.array([float(method(p[None])[0].ravel()[0]) for p in pieces])
    diff = float(np.abs(got - want).max())
    print(f"{entry['id']} ({backend}): {chunks} chunks, the state in the "
          f"program; largest difference from ONNX Runtime's stream {diff:.2e} "
          f"(probabilities {want.min():.3f} to {want.max():.3f})")
    sys.exit(0 if diff <= 1e-5 else 1)


if __name__ == "__main__":
    main()
