"""Fixtures of the strata Python tests: the build's package and tools, and
small ONNX models made here with onnx.helper (expected values come from
numpy, never from Strata)."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("STRATA_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))

import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def tool(name):
    return os.path.join(BUILD, "bin", name)


def compile_model(model_path, out, *flags):
    """strata-compile MODEL -o OUT FLAGS...; returns OUT."""
    subprocess.run([tool("strata-compile"), str(model_path), "-o", str(out)]
                   + list(flags), check=True, capture_output=True, text=True)
    return str(out)


class MLP:
    """y = relu(x W1 + b1) W2 + b2 over x[batch, 8], as an ONNX model with a
    symbolic batch, and its float64 reference."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.w1 = rng.standard_normal((8, 16)).astype(np.float32)
        self.b1 = rng.standard_normal(16).astype(np.float32)
        self.w2 = rng.standard_normal((16, 4)).astype(np.float32)
        self.b2 = rng.standard_normal(4).astype(np.float32)

    def model(self):
        nodes = [
            helper.make_node("MatMul", ["x", "w1"], ["h0"], name="fc1"),
            helper.make_node("Add", ["h0", "b1"], ["h1"], name="bias1"),
            helper.make_node("Relu", ["h1"], ["h"], name="relu"),
            helper.make_node("MatMul", ["h", "w2"], ["y0"], name="fc2"),
            helper.make_node("Add", ["y0", "b2"], ["y"], name="bias2"),
        ]
        weights = [numpy_helper.from_array(v, n) for n, v in
                   [("w1", self.w1), ("b1", self.b1), ("w2", self.w2),
                    ("b2", self.b2)]]
        graph = helper.make_graph(
            nodes, "mlp",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
            weights)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        return model

    def reference(self, x):
        x = x.astype(np.float64)
        h = np.maximum(x @ self.w1 + self.b1, 0)
        return h @ self.w2 + self.b2


def rel_l2(got, want):
    return np.linalg.norm(got - want) / np.linalg.norm(want)


@pytest.fixture(scope="session")
def mlp():
    return MLP()


@pytest.fixture(scope="session")
def mlp_onnx(tmp_path_factory, mlp):
    path = tmp_path_factory.mktemp("models") / "mlp.onnx"
    onnx.save(mlp.model(), str(path))
    return path


@pytest.fixture(scope="session")
def mlp_program(tmp_path_factory, mlp_onnx):
    """The MLP pinned at batch 2, portable kernels."""
    out = tmp_path_factory.mktemp("programs") / "mlp.strata"
    return compile_model(mlp_onnx, out, "--input-shape", "x=2x8")


@pytest.fixture(scope="session")
def mlp_dynamic(tmp_path_factory, mlp_onnx):
    """The MLP for batches 1..4."""
    out = tmp_path_factory.mktemp("programs") / "mlp-dynamic.strata"
    return compile_model(mlp_onnx, out, "--input-shape", "x=batch:1..4x8")
