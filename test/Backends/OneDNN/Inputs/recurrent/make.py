#!/usr/bin/env python3
"""Writes the ONNX node tests' unidirectional GRU, RNN and LSTM models with
W, R and B made initializers (the oneDNN delegate takes recurrent layers
with constant weights only): model.onnx and test_data_set_0 with X and the
test's own expected outputs. Usage: /usr/bin/python3 make.py OUT_DIR
(run as make.py test/Backends/OneDNN/Inputs/recurrent)."""
import os, sys, shutil, onnx
from onnx import numpy_helper
src = "/usr/share/libonnx-testdata/data/node"
out = sys.argv[1]
for name in ["test_gru_defaults", "test_gru_with_initial_bias", "test_gru_batchwise",
             "test_simple_rnn_defaults", "test_simple_rnn_with_initial_bias", "test_simple_rnn_batchwise",
             "test_lstm_defaults", "test_lstm_with_initial_bias", "test_lstm_batchwise"]:
    m = onnx.load(os.path.join(src, name, "model.onnx"))
    data = os.path.join(src, name, "test_data_set_0")
    inputs = list(m.graph.input)
    keep = [inputs[0]]
    for i, inp in enumerate(inputs[1:], 1):
        t = onnx.TensorProto(); t.ParseFromString(open(os.path.join(data, "input_%d.pb" % i), "rb").read())
        t.name = inp.name
        m.graph.initializer.append(t)
    del m.graph.input[:]
    m.graph.input.extend(keep)
    onnx.checker.check_model(m)
    d = os.path.join(out, name[5:])
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    shutil.copy(os.path.join(data, "input_0.pb"), os.path.join(d, "test_data_set_0"))
    for f in os.listdir(data):
        if f.startswith("output_"):
            shutil.copy(os.path.join(data, f), os.path.join(d, "test_data_set_0"))
