#!/usr/bin/env python3
"""Writes the integer and quantized linear cases of onednn-integer-linear.test:
per case model.onnx (weights, scales and zero points as initializers, the
form the oneDNN delegate takes) and test_data_set_0 with the input and the
expected output computed here in numpy int64 (MatMulInteger, ConvInteger:
the exact int32 sums) or float64 (QLinearMatMul, QLinearConv: ONNX's
round half to even of acc * x_scale * w_scale / y_scale plus the zero
point; the scales are picked so that no value lies within 2e-4 of a
rounding tie, where an f32 computation could round the other way). Also
the ONNX node test test_matmulinteger with B and the zero points made
initializers, and its own expected output. Usage: /usr/bin/python3 make.py
OUT_DIR (run as make.py test/Backends/OneDNN/Inputs/integer-linear)."""
import os, shutil, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

out = sys.argv[1]
rng = np.random.default_rng(7)
T = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8, np.int32: TensorProto.INT32,
     np.float32: TensorProto.FLOAT}


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def save(name, node, x, inits, y):
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info("x", T[x.dtype.type], x.shape)],
        [helper.make_tensor_value_info("y", T[y.dtype.type], y.shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for file, value, tname in [("input_0.pb", x, "x"), ("output_0.pb", y, "y")]:
        with open(os.path.join(d, "test_data_set_0", file), "wb") as f:
            f.write(numpy_helper.from_array(value, tname).SerializeToString())


def conv_sums(x, w, pad):
    """int64 convolution, stride 1, x [1,C,H,W] and w [M,C,KH,KW] already
    zero-point corrected, `pad` zeros around."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    m, c, kh, kw = w.shape
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    y = np.zeros((1, m, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("mc,chw->mhw", w[:, :, i, j], x[0, :, i:i + oh, j:j + ow])[None]
    return y


def requantize(acc, multiplier, zero_point):
    """None where a value lies within 2e-4 of a rounding tie."""
    real = acc.astype(np.float64) * multiplier
    if np.abs(real - np.floor(real) - 0.5).min() < 2e-4:
        return None
    return np.clip(np.round(real) + zero_point, 0, 255).astype(np.uint8)


def first_clear(make):
    """The first y scale from 0.0419 up in steps of 0.0001 whose results
    keep clear of rounding ties, and those results."""
    for i in range(100):
        ys = np.float32(0.0419 + 0.0001 * i)
        y = make(ys)
        if y is not None:
            return ys, y
    sys.exit("no y scale keeps clear of rounding ties")


# MatMulInteger: u8 rows (zero point 128) by s8 weights (zero point 0).
a = rng.integers(0, 256, (2, 8, 64), dtype=np.uint8)
b = rng.integers(-127, 128, (64, 48), dtype=np.int8)
acc = (a.astype(np.int64) - 128) @ b.astype(np.int64)
save("matmulinteger_s8", helper.make_node("MatMulInteger", ["x", "b", "az", "bz"], ["y"]), a,
     [init("b", b), init("az", np.uint8(128)), init("bz", np.int8(0))], acc.astype(np.int32))

# MatMulInteger: u8 weights with a zero point (oneDNN's s8 weights hold them
# less 128); then sums that may pass 2^24 (K = 640; one reaches 40 million),
# which oneDNN's f32 conversion would round: left to the portable kernels.
for name, k in [("matmulinteger_u8", 64), ("matmulinteger_wide", 640)]:
    a = rng.integers(0, 256, (16, k), dtype=np.uint8)
    b = rng.integers(0, 256, (k, 40), dtype=np.uint8)
    b[:, 0] = 255
    a[0, :] = 0
    acc = (a.astype(np.int64) - 3) @ (b.astype(np.int64) - 7)
    save(name, helper.make_node("MatMulInteger", ["x", "b", "az", "bz"], ["y"]), a,
         [init("b", b), init("az", np.uint8(3)), init("bz", np.uint8(7))], acc.astype(np.int32))

# ConvInteger 3x3, padding 1: u8 input and weights, zero points 128 and 120
# (weight - zero point in [-120, 135]: two s8 parts where it passes 127).
x = rng.integers(0, 256, (1, 16, 10, 10), dtype=np.uint8)
w = rng.integers(0, 256, (24, 16, 3, 3), dtype=np.uint8)
acc = conv_sums(x.astype(np.int64) - 128, w.astype(np.int64) - 120, 1)
save("convinteger_3x3", helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 1, 1, 1]),
     x, [init("w", w), init("xz", np.uint8(128)), init("wz", np.uint8(120))], acc.astype(np.int32))

# QLinearMatMul: u8 rows, s8 weights, u8 result.
xs, ws = 0.0173, 0.0061
a = rng.integers(0, 256, (1, 8, 64), dtype=np.uint8)
b = rng.integers(-127, 128, (64, 48), dtype=np.int8)
acc = (a.astype(np.int64) - 128) @ b.astype(np.int64)
ys, y = first_clear(lambda ys: requantize(
    acc, np.float64(np.float32(xs)) * np.float64(np.float32(ws)) / np.float64(ys), 131))
save("qlinearmatmul", helper.make_node("QLinearMatMul", ["x", "xs", "xz", "b", "bs", "bz", "ys", "yz"], ["y"]),
     a, [init("xs", np.float32(xs)), init("xz", np.uint8(128)), init("b", b), init("bs", np.float32(ws)),
         init("bz", np.int8(0)), init("ys", np.float32(ys)), init("yz", np.uint8(131))], y)

# QLinearConv 3x3, padding 1, with an int32 bias and per-channel weight scales.
x = rng.integers(0, 256, (1, 16, 10, 10), dtype=np.uint8)
w = rng.integers(-127, 128, (24, 16, 3, 3), dtype=np.int8)
bias = rng.integers(-2000, 2000, (24,), dtype=np.int32)
wss = (0.004 + 0.0003 * np.arange(24)).astype(np.float32)
acc = conv_sums(x.astype(np.int64) - 128, w.astype(np.int64), 1) + bias[None, :, None, None]
ys, y = first_clear(lambda ys: requantize(
    acc, np.float64(np.float32(xs)) * wss.astype(np.float64)[None, :, None, None] / np.float64(ys), 120))
save("qlinearconv_3x3",
     helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], pads=[1, 1, 1, 1]),
     x, [init("xs", np.float32(xs)), init("xz", np.uint8(128)), init("w", w), init("ws", wss),
         init("wz", np.zeros(24, np.int8)), init("ys", np.float32(ys)), init("yz", np.uint8(120)),
         init("b", bias)], y)

# The node test, its operands after the first made initializers.
src = "/usr/share/libonnx-testdata/data/node/test_matmulinteger"
m = onnx.load(os.path.join(src, "model.onnx"))
data = os.path.join(src, "test_data_set_0")
for i, inp in enumerate(list(m.graph.input)[1:], 1):
    t = onnx.TensorProto()
    t.ParseFromString(open(os.path.join(data, "input_%d.pb" % i), "rb").read())
    t.name = inp.name
    m.graph.initializer.append(t)
keep = m.graph.input[0]
del m.graph.input[1:]
d = os.path.join(out, "node_matmulinteger")
os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
onnx.save(m, os.path.join(d, "model.onnx"))
for f in ["input_0.pb", "output_0.pb"]:
    shutil.copy(os.path.join(data, f), os.path.join(d, "test_data_set_0"))
