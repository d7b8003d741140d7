#!/usr/bin/env python3
"""Exports small PyTorch recurrent networks and their reference outputs.

Writes models/lstm_bidir and models/gru_bidir: torch.nn.LSTM / torch.nn.GRU
with input size 8, hidden size 16, two layers, bidirectional, batch_first,
over 6 steps, the LSTM at batch 1 (the oneDNN delegate takes it), the GRU
at batch 2 (a bidirectional layer the delegate leaves to the portable
kernel), exported at opset 13 the way PyTorch exports them (ONNX LSTM /
GRU nodes, GRU with linear_before_reset = 1, Transposes and Slices around
them). Outputs: the sequence output [N, 6, 32], then h_n (and the LSTM's
c_n) [4, N, 16]. models/gru_unidir is the GRU with one direction at
batch 2 (the delegate takes it: lbr_gru_forward), outputs [2, 6, 16] and
[2, 2, 16]. Each folder gets
model.onnx and test_data_set_0/{input_0.pb, output_N.pb}, the outputs
computed by PyTorch in eval mode (float32). Seeded: the same command
writes the same files.

With --bench it writes instead the two benchmark networks (never
committed; into build/models by default):
  lstm_text: a text classifier, int64 token ids [1, 100] -> embedding 128
      (vocabulary 5000) -> 2-layer bidirectional LSTM, hidden 256 -> the
      last step's features -> linear to 2 classes;
  gru_speech: an acoustic model, 80 mel features [1, 200, 80] -> 2-layer
      GRU, hidden 256 -> linear to 40 classes per frame.

Usage: /usr/bin/python3 models/recurrent.py [--bench] [--out DIR]
"""

import argparse
import os

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn


class Sequence(nn.Module):
    """Returns every output of the recurrent layer as a flat tuple."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        y, state = self.layer(x)
        if isinstance(state, tuple):
            return (y,) + state
        return y, state


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(5000, 128)
        self.lstm = nn.LSTM(128, 256, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.head = nn.Linear(512, 2)

    def forward(self, ids):
        y, _ = self.lstm(self.embedding(ids))
        return (self.head(y[:, -1]),)


class SpeechModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(80, 256, num_layers=2, batch_first=True)
        self.head = nn.Linear(256, 40)

    def forward(self, mel):
        y, _ = self.gru(mel)
        return (self.head(y),)


def export(name, layer, out_dir, x=None, wrap=True, batch=2):
    torch.manual_seed(0)
    model = (Sequence(layer) if wrap else layer).eval()
    if x is None:
        x = torch.randn(batch, 6, 8)
    outputs = [o.detach().numpy() for o in model(x)]
    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    names = ["output", "h_n", "c_n"][: len(outputs)]
    path = os.path.join(folder, "model.onnx")
    torch.onnx.export(model, (x,), path, input_names=["input"],
                      output_names=names, opset_version=13)
    onnx.checker.check_model(onnx.load(path))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "input").SerializeToString())
    for i, (n, value) in enumerate(zip(names, outputs)):
        with open(os.path.join(data, "output_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(value, n).SerializeToString())
    print(name, [o.shape for o in outputs])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--bench", action="store_true")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    torch.set_num_threads(1)
    if args.bench:
        out = args.out or os.path.join(here, "..", "build", "models")
        torch.manual_seed(3)
        ids = torch.randint(0, 5000, (1, 100))
        export("lstm_text", TextClassifier(), out, ids, wrap=False)
        torch.manual_seed(4)
        export("gru_speech", SpeechModel(), out, torch.randn(1, 200, 80),
               wrap=False)
        return
    args.out = args.out or here
    torch.manual_seed(1)
    export("lstm_bidir", nn.LSTM(8, 16, num_layers=2, bidirectional=True,
                                 batch_first=True), args.out, batch=1)
    torch.manual_seed(2)
    export("gru_bidir", nn.GRU(8, 16, num_layers=2, bidirectional=True,
                               batch_first=True), args.out)
    torch.manual_seed(5)
    export("gru_unidir", nn.GRU(8, 16, num_layers=2, batch_first=True),
           args.out)


if __name__ == "__main__":
    np.random.seed(0)
    main()
