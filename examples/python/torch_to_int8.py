#!/usr/bin/python3
"""From a torch.nn.Module to an int8, delegated Strata program, and its
accuracy (docs/python.md).

A small CNN is trained here, in seconds, to tell four kinds of 16x16 images
apart (a horizontal bar, a vertical bar, a diagonal, a square; noisy, at
random places). It is then compiled from Python twice: in float32 (its
outputs against the module's) and in int8 (calibrated on a DataLoader of
training images), both for the backend given (oneDNN by default: the
convolutions run in its delegate). The accuracy of the module and of both
programs is measured on held-out images the calibration never saw.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/torch_to_int8.py \\
        [--backend onednn|xnnpack|portable] [--epochs 4] [--json]
"""
import argparse
import json

import numpy as np
import torch
from torch import nn

import strata

CLASSES = ["horizontal bar", "vertical bar", "diagonal", "square"]


def images(count, seed):
    """`count` noisy 1x16x16 images and their labels."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 0.3, (count, 1, 16, 16)).astype(np.float32)
    labels = rng.integers(0, len(CLASSES), count)
    for image, label in zip(x[:, 0], labels):
        r, c = rng.integers(2, 12, 2)
        length = rng.integers(4, 8)
        if label == 0:
            image[r, c - 2:c - 2 + length] += 1.5
        elif label == 1:
            image[r - 2:r - 2 + length, c] += 1.5
        elif label == 2:
            for k in range(length):
                image[min(r - 2 + k, 15), min(c - 2 + k, 15)] += 1.5
        else:
            image[r - 1:r + 2, c - 1:c + 2] += 1.0
    return x, labels


class BarNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, len(CLASSES))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def train(epochs, seed):
    torch.manual_seed(seed)
    x, labels = images(4000, seed)
    data = torch.utils.data.TensorDataset(torch.from_numpy(x),
                                          torch.from_numpy(labels))
    loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    model = BarNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(epochs):
        for batch, target in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(batch), target).backward()
            optimizer.step()
    return model.eval(), loader


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default="onednn")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true",
                        help="print the figures as one JSON object")
    args = parser.parse_args()

    model, train_loader = train(args.epochs, args.seed)
    test_x, test_labels = images(1000, args.seed + 1)
    with torch.no_grad():
        want = model(torch.from_numpy(test_x)).numpy()
    example = torch.from_numpy(test_x[:1])
    backend = None if args.backend == "portable" else args.backend

    # float32: the module's outputs.
    fp32 = strata.compile(model, backend=backend, example_inputs=example,
                          threads=1)
    # int8: calibrated on training images (the DataLoader's first elements
    # are the inputs), one image per sample, as the program takes them.
    calibration = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(train_loader.dataset.tensors[0][:256]
                                       .unsqueeze(1)), batch_size=32)
    int8 = strata.compile(model, backend=backend, example_inputs=example,
                          quantize=True, calibration=calibration, threads=1)

    def run(program):
        return np.concatenate([program.run(test_x[i:i + 1])[0]
                               for i in range(len(test_x))])

    got32, got8 = run(fp32), run(int8)
    delegation = int8.report.get("delegation") or {}
    figures = {
        "backend": args.backend,
        "accuracy_torch": float((want.argmax(1) == test_labels).mean()),
        "accuracy_fp32": float((got32.argmax(1) == test_labels).mean()),
        "accuracy_int8": float((got8.argmax(1) == test_labels).mean()),
        "int8_agrees_with_torch": float((got8.argmax(1) == want.argmax(1))
                                        .mean()),
        "fp32_rel_l2": float(np.linalg.norm(got32 - want)
                             / np.linalg.norm(want)),
        "int8_sqnr_db": float(20 * np.log10(np.linalg.norm(want)
                                            / np.linalg.norm(got8 - want))),
        "int8_delegated_ops": delegation.get("delegated_ops", 0),
        "int8_portable_ops": delegation.get("portable_ops", 0),
    }
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print("%-24s %s" % (key, "%.6g" % value if isinstance(value, float)
                            else value))


if __name__ == "__main__":
    main()
