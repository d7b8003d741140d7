#!/usr/bin/env python3
"""Trains Strata's quantization test networks on real data and exports them.

Two networks trained with PyTorch on scikit-learn's bundled digits data set
(1,797 8x8 grey images of the digits 0-9, pixel values scaled to [0, 1]):

  digits_mobilenet: a MobileNetV2-shaped CNN on the images upsampled to
      32x32 (bilinear): a 3x3 stem, inverted residual blocks (1x1 expansion
      by 4, depthwise 3x3, ReLU6, BatchNormalization kept in the export,
      linear 1x1 projection, residual Add where shapes match), global
      average pooling and a linear classifier.
  digits_transformer: each image as a sequence of its 8 rows (8 pixels
      each): a linear embedding to 32 wide plus a learned position
      embedding, two post-norm encoder layers (4 heads, feed-forward 64,
      GELU), mean over the sequence and a linear classifier.

The split is fixed: a seeded permutation of the 1,797 images, the first 450
the test set, the next 100 the calibration set (drawn from the training
images), all 1,347 non-test images the training set. Training is seeded and
single-threaded, so that the same command writes the same files.

Each model folder gets model.onnx (opset 13, graph input `input`, output
`output` with the 10 logits, batch 1), test_data_set_0/{input_0.pb,
output_0.pb} (the first test image and PyTorch's float output for it),
test_images.npy and test_labels.npy (the 450 test images in the model's
input layout, int64 labels), calib_images.npy (100 training images) and
accuracy.txt (PyTorch's float32 test accuracy, from the exported module in
eval mode, batch 1 image by image as Strata runs it).

Needs Debian's python3-torch, python3-onnx, python3-numpy and
python3-sklearn (the digits data ship inside scikit-learn).

Usage: train_digits.py [--out DIR] [model ...]
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn
import torch.nn.functional as F

SEED = 20261127
TEST, CALIB = 450, 100


def load_digits_split():
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)  # [1797, 8, 8]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(SEED).permutation(len(labels))
    test, train = order[:TEST], order[TEST:]
    return (images[train], labels[train]), (images[test], labels[test]), \
        images[train[:CALIB]]


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.residual = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden,
                      bias=False),
            nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.block(x)
        return x + y if self.residual else y


class DigitsMobileNet(nn.Module):
    """Input [N, 1, 32, 32]."""

    def __init__(self):
        super().__init__()
        blocks = [(16, 16, 1), (16, 24, 2), (24, 24, 1), (24, 32, 2),
                  (32, 32, 1), (32, 48, 2), (48, 48, 1)]
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(
            *[InvertedResidual(i, o, s, 4) for i, o, s in blocks])
        self.head = nn.Sequential(nn.Conv2d(48, 96, 1, bias=False),
                                  nn.BatchNorm2d(96), nn.ReLU6())
        self.classifier = nn.Linear(96, 10)

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class DigitsTransformer(nn.Module):
    """Input [N, 8, 8]: 8 rows of 8 pixels."""

    def __init__(self, d=32):
        super().__init__()
        self.embed = nn.Linear(8, d)
        self.position = nn.Parameter(torch.randn(1, 8, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.classifier = nn.Linear(d, 10)

    def forward(self, x):
        h = self.encoder(self.embed(x) + self.position)
        return self.classifier(h.mean(dim=1))


def to_input(name, images):
    """Images [N, 8, 8] in the model's input layout."""
    x = torch.from_numpy(images)
    if name == "digits_mobilenet":
        return F.interpolate(x[:, None], size=(32, 32), mode="bilinear",
                             align_corners=False)
    return x


MODELS = {
    # name: (constructor, epochs, learning rate)
    "digits_mobilenet": (DigitsMobileNet, 30, 3e-3),
    "digits_transformer": (DigitsTransformer, 60, 2e-3),
}


def write_tensor(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array)).
                SerializeToString())


def train(name, out_dir):
    build, epochs, lr = MODELS[name]
    torch.manual_seed(SEED)
    (train_x, train_y), (test_x, test_y), calib = load_digits_split()
    xs, ys = to_input(name, train_x), torch.from_numpy(train_y)
    model = build()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr,
                                  weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=lr, total_steps=epochs * ((len(ys) + 63) // 64))
    generator = torch.Generator().manual_seed(SEED)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(ys), generator=generator)
        total = 0.0
        for start in range(0, len(ys), 64):
            batch = order[start:start + 64]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xs[batch]), ys[batch])
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(batch)
        if epoch % 10 == 9 or epoch == epochs - 1:
            print(f"{name}: epoch {epoch + 1}, loss {total / len(ys):.4f}",
                  flush=True)
    model.eval()

    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    test_inputs = to_input(name, test_x)
    with torch.no_grad():
        # Batch 1, image by image, as the exported model runs.
        logits = torch.cat([model(test_inputs[i:i + 1])
                            for i in range(len(test_y))])
    correct = int((logits.argmax(1).numpy() == test_y).sum())
    x = test_inputs[:1]
    onnx_path = os.path.join(folder, "model.onnx")
    torch.onnx.export(model, x, onnx_path, opset_version=13,
                      input_names=["input"], output_names=["output"],
                      training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path), full_check=True)
    write_tensor(x.numpy(), os.path.join(data, "input_0.pb"))
    write_tensor(logits[:1].numpy(), os.path.join(data, "output_0.pb"))
    np.save(os.path.join(folder, "test_images.npy"), test_inputs.numpy())
    np.save(os.path.join(folder, "test_labels.npy"), test_y)
    np.save(os.path.join(folder, "calib_images.npy"),
            to_input(name, calib).numpy())
    with open(os.path.join(folder, "accuracy.txt"), "w") as f:
        f.write(f"{correct / len(test_y):.5f} {correct}/{len(test_y)}\n")
    print(f"{name}: {os.path.getsize(onnx_path)} bytes, test accuracy "
          f"{correct}/{len(test_y)} = {correct / len(test_y):.5f}",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(
        os.path.abspath(__file__)))
    parser.add_argument("models", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    torch.set_num_threads(1)  # bit-stable training and references
    for name in args.models:
        if name not in MODELS:
            sys.exit(f"train_digits.py: unknown model '{name}' "
                     f"(known: {', '.join(MODELS)})")
        train(name, args.out)


if __name__ == "__main__":
    main()
