"""Fixtures of the strata Python tests: the build's package and tools, and
small ONNX models made here with onnx.helper (expected values come from
numpy, never from Strata)."""
import math
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


# strata-compile's flags for models/decoder.py's step export (context 64)
# as a program of a prefill and a decode method sharing the KV cache.
GPT_METHODS = [
    "--state", "past-present", "--dim", "past_sequence=0..63",
    "--method", "prefill", "--dim", "sequence=1..64",
    "--dim", "total_sequence=1..127",
    "--method", "decode", "--dim", "total_sequence=1..64",
    "--input-shape", "input_ids=1x1", "--input-shape", "position_ids=1x1"]


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


def conv2d(x, w, b):
    """Float64 NCHW convolution, stride 1, padding 1."""
    n, c, h, wd = x.shape
    k = w.shape[2]
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    patches = np.stack([p[:, :, i:i + h, j:j + wd]
                        for i in range(k) for j in range(k)], axis=2)
    return np.einsum("ncphw,ocp->nohw", patches,
                     w.reshape(w.shape[0], c, k * k)) + b[None, :, None, None]


class ResidualCNN:
    """conv-bn-relu, conv-bn, + residual, relu, global pool, flatten, gemm
    over x[N, 4, 6, 6], as an ONNX model (node names conv1, bn1, relu1,
    conv2, bn2, add, relu2, pool, flatten, fc) and its float64 reference."""

    def __init__(self, seed=1):
        rng = np.random.default_rng(seed)
        self.params = {}
        for i in (1, 2):
            self.params["w%d" % i] = rng.standard_normal((4, 4, 3, 3)) * 0.3
            self.params["b%d" % i] = rng.standard_normal(4) * 0.1
            self.params["s%d" % i] = rng.uniform(0.5, 1.5, 4)
            self.params["o%d" % i] = rng.standard_normal(4) * 0.1
            self.params["m%d" % i] = rng.standard_normal(4) * 0.1
            self.params["v%d" % i] = rng.uniform(0.5, 1.5, 4)
        self.params["fw"] = rng.standard_normal((3, 4))
        self.params["fb"] = rng.standard_normal(3)
        self.params = {k: v.astype(np.float32) for k, v in self.params.items()}

    def model(self):
        bn = lambda i, x, y: helper.make_node(  # noqa: E731
            "BatchNormalization", [x, "s%d" % i, "o%d" % i, "m%d" % i,
                                   "v%d" % i], [y], name="bn%d" % i)
        nodes = [
            helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                             pads=[1, 1, 1, 1]),
            bn(1, "c1", "n1"),
            helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
            helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2",
                             pads=[1, 1, 1, 1]),
            bn(2, "c2", "n2"),
            helper.make_node("Add", ["n2", "x"], ["a"], name="add"),
            helper.make_node("Relu", ["a"], ["r2"], name="relu2"),
            helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="pool"),
            helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
            helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc",
                             transB=1),
        ]
        graph = helper.make_graph(
            nodes, "residual_cnn",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                           ["n", 4, 6, 6])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
            [numpy_helper.from_array(v, k) for k, v in self.params.items()])
        model = helper.make_model(graph,
                                  opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        return model

    def reference(self, x):
        p = {k: v.astype(np.float64) for k, v in self.params.items()}
        x = x.astype(np.float64)

        def bn(i, y):
            scale = p["s%d" % i] / np.sqrt(p["v%d" % i] + 1e-5)
            return ((y - p["m%d" % i][None, :, None, None])
                    * scale[None, :, None, None]
                    + p["o%d" % i][None, :, None, None])

        r1 = np.maximum(bn(1, conv2d(x, p["w1"], p["b1"])), 0)
        r2 = np.maximum(bn(2, conv2d(r1, p["w2"], p["b2"])) + x, 0)
        return r2.mean(axis=(2, 3)) @ p["fw"].T + p["fb"]


@pytest.fixture(scope="session")
def cnn():
    return ResidualCNN()


@pytest.fixture(scope="session")
def cnn_onnx(tmp_path_factory, cnn):
    path = tmp_path_factory.mktemp("models") / "residual_cnn.onnx"
    onnx.save(cnn.model(), str(path))
    return path


# Output SQNR figures as the compiler judges a target (OutputSQNR.h).
def sqnr_db(want, got):
    """10 log10(sum want^2 / sum (want - got)^2)."""
    want = np.asarray(want, np.float64)
    noise = np.sum((want - np.asarray(got, np.float64)) ** 2)
    return np.inf if noise == 0 else 10 * np.log10(np.sum(want ** 2) / noise)


def low_decile_rank(n):
    """The largest k with P(Binomial(n, 0.1) >= k) >= 0.9 (at least 1): the
    k-th worst of n samples bounds their 10th percentile from below at 90%
    confidence."""
    rank = 1
    for k in range(1, n + 1):
        below = sum(math.comb(n, i) * 0.1 ** i * 0.9 ** (n - i)
                    for i in range(k))
        if 1 - below < 0.9:
            break
        rank = k
    return rank


def figures(want, got):
    """The pooled SQNR over every window, and the 10th-percentile window's
    own as a 90% lower bound, as the compiler judges a target."""
    pooled = sqnr_db(np.stack(want), np.stack(got))
    each = sorted(sqnr_db(w, g) for w, g in zip(want, got))
    return pooled, each[low_decile_rank(len(each)) - 1]
