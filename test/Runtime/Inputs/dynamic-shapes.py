"""Runs the dynamic-shapes.mlir program at its bounds and between them and
checks each output against numpy in float64 (computed here, not by Strata):
relu(concat(x, y)) @ W and relu(x), at the shapes the inputs give.

usage: dynamic-shapes.py PROGRAM WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

W = np.array([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0], [2.0, 0.0, 1.0],
              [-0.5, 0.75, 3.0]])


def main():
    program, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    # The lower bounds, the upper bounds, and odd shapes between them.
    for batch, rows in [(1, 1), (8, 6), (3, 5), (7, 2), (1, 6), (8, 1)]:
        x = rng.standard_normal((batch, 4)).astype(np.float32)
        y = rng.standard_normal((rows, 4)).astype(np.float32)
        xs, ys = os.path.join(work, "x.npy"), os.path.join(work, "y.npy")
        np.save(xs, x)
        np.save(ys, y)
        out = os.path.join(work, "out-%d-%d" % (batch, rows))
        subprocess.run(["strata-run", program, "--input", xs, "--input", ys,
                        "--output-dir", out], check=True,
                       stdout=subprocess.DEVNULL)
        got0 = np.load(os.path.join(out, "output_0.npy"))
        got1 = np.load(os.path.join(out, "output_1.npy"))
        want0 = np.maximum(np.concatenate([x, y]), 0).astype(np.float64) @ W
        want1 = np.maximum(x, 0)
        assert got0.shape == want0.shape, (batch, rows, got0.shape)
        assert got1.shape == want1.shape, (batch, rows, got1.shape)
        np.testing.assert_allclose(got0, want0, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(got1, want1)
        print("batch %d rows %d: outputs %s %s match" %
              (batch, rows, got0.shape, got1.shape))


if __name__ == "__main__":
    main()
