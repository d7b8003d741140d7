#!/usr/bin/env python3
"""Generates Strata's ONNX models and their PyTorch reference outputs.

Two sizes of the same architectures, exported the same way (PyTorch
torch.onnx.export, batch 1, static shapes, graph input `input`, graph output
`output`):

  --size narrow (default): the bundled test models committed in models/,
      narrower (fewer channels) and at a smaller input resolution, so that the
      whole set stays a few MB and the test suite runs in minutes; they
      exercise the same ops, patterns and delegates as the full-size nets.
  --size full: the full-size torchvision networks (224x224) and the 256-wide
      transformer encoder, for benchmarks; written into the build tree by
      scripts/make-benchmark-models.sh, never committed.

Weights are seeded random (no pretrained weights can be downloaded), with
BatchNorm affine parameters and running statistics made non-trivial: random
affine parameters, then a few train-mode passes on random data. Each model
folder gets model.onnx and test_data_set_0/{input_0.pb, output_0.pb}, the
output computed by PyTorch in eval mode (float32). Every exported model is
checked with the ONNX checker. The same seed gives the same files.

Needs Debian's python3-torch, python3-torchvision, python3-onnx and
python3-numpy (scripts/make-benchmark-models.sh installs them).

Usage: generate.py [--size narrow|full] [--out DIR] [model ...]
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn
import torchvision
from torchvision.models import resnet, squeezenet

SEED = 20240601


class Sizes:
    """Architecture scaling of one size class."""

    def __init__(self, size):
        narrow = size == "narrow"
        self.image = 64 if narrow else 224
        self.classes = 100 if narrow else 1000
        self.resnet_width = 8 if narrow else 64  # torchvision: 64
        self.mobilenet_width = 0.25 if narrow else 1.0
        self.mobilenet_last = 256 if narrow else 1280
        self.squeeze_scale = 0.25 if narrow else 1.0
        self.d_model = 64 if narrow else 256
        self.ff = 128 if narrow else 1024
        self.layers = 2 if narrow else 4
        self.seq = 16 if narrow else 64


class NarrowResNet(resnet.ResNet):
    """torchvision's ResNet with the stage widths scaled: base width w gives
    stages of w, 2w, 4w and 8w channels (torchvision's resnet18: w = 64)."""

    def __init__(self, block, layers, width, num_classes):
        nn.Module.__init__(self)
        norm = nn.BatchNorm2d
        self._norm_layer = norm
        self.inplanes = width
        self.dilation = 1
        self.groups = 1
        self.base_width = 64
        self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn1 = norm(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, width, layers[0])
        self.layer2 = self._make_layer(block, 2 * width, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 4 * width, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 8 * width, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8 * width * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out",
                                        nonlinearity="relu")


class ScaledSqueezeNet(squeezenet.SqueezeNet):
    """torchvision's SqueezeNet 1.1 with every Fire module's channel counts
    scaled by `scale` (1.0 is torchvision's network)."""

    def __init__(self, scale, num_classes):
        super().__init__(version="1_1", num_classes=num_classes)
        c = lambda n: max(4, int(n * scale))
        fire = squeezenet.Fire
        self.features = nn.Sequential(
            nn.Conv2d(3, c(64), kernel_size=3, stride=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            fire(c(64), c(16), c(64), c(64)),
            fire(c(128), c(16), c(64), c(64)),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            fire(c(128), c(32), c(128), c(128)),
            fire(c(256), c(32), c(128), c(128)),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            fire(c(256), c(48), c(192), c(192)),
            fire(c(384), c(48), c(192), c(192)),
            fire(c(384), c(64), c(256), c(256)),
            fire(c(512), c(64), c(256), c(256)),
        )
        final = nn.Conv2d(c(512), num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=0.5), final,
                                        nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                nn.init.constant_(m.bias, 0)


def mobilenet_v2(sz):
    """torchvision's MobileNetV2 at the size's width; the narrow one also has
    a narrower last 1x1 convolution (torchvision keeps it at 1280)."""
    m = torchvision.models.mobilenet_v2(width_mult=sz.mobilenet_width,
                                        num_classes=sz.classes)
    if sz.mobilenet_last != m.last_channel:
        last = m.features[-1]
        conv = last[0]
        last[0] = nn.Conv2d(conv.in_channels, sz.mobilenet_last, 1, bias=False)
        last[1] = nn.BatchNorm2d(sz.mobilenet_last)
        m.classifier[-1] = nn.Linear(sz.mobilenet_last, sz.classes)
    return m


class Encoder(nn.Module):
    """nn.TransformerEncoder, batch first, ReLU feed-forward, no dropout."""

    def __init__(self, sz):
        super().__init__()
        layer = nn.TransformerEncoderLayer(sz.d_model, nhead=4,
                                           dim_feedforward=sz.ff, dropout=0.0,
                                           batch_first=True)
        self.enc = nn.TransformerEncoder(layer, sz.layers,
                                         enable_nested_tensor=False)
        # nn.TransformerEncoder deep-copies one layer: give each its own
        # weights, and LayerNorms non-trivial affine parameters.
        for layer in self.enc.layers:
            layer.self_attn._reset_parameters()
            layer.linear1.reset_parameters()
            layer.linear2.reset_parameters()
            with torch.no_grad():  # PyTorch zeroes the attention biases
                layer.self_attn.in_proj_bias.normal_(0.0, 0.02)
                layer.self_attn.out_proj.bias.normal_(0.0, 0.02)
            for norm in (layer.norm1, layer.norm2):
                with torch.no_grad():
                    norm.weight.uniform_(0.5, 1.5)
                    norm.bias.normal_(0.0, 0.1)

    def forward(self, x):
        return self.enc(x)


def regnet_y(sz):
    """torchvision's RegNetY (grouped convolutions, squeeze-excite): the
    narrow one four stages of one block each from 16 channels, the full one
    regnet_y_400mf's parameters."""
    from torchvision.models import regnet
    if sz.image == 224:
        params = regnet.BlockParams.from_init_params(
            depth=16, w_0=48, w_a=27.89, w_m=2.09, group_width=8,
            se_ratio=0.25)
    else:
        params = regnet.BlockParams.from_init_params(
            depth=4, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
    return regnet.RegNet(params, num_classes=sz.classes)


def convnext(sz):
    """torchvision's ConvNeXt (7x7 depthwise convolutions, LayerNorm over
    channels, layer scale): the narrow one three stages of 24, 48 and 96
    channels with one block each, the full one convnext_tiny's."""
    from torchvision.models import convnext as cn
    if sz.image == 224:
        return torchvision.models.convnext_tiny(num_classes=sz.classes)
    setting = [cn.CNBlockConfig(24, 48, 1), cn.CNBlockConfig(48, 96, 1),
               cn.CNBlockConfig(96, None, 1)]
    return cn.ConvNeXt(setting, num_classes=sz.classes)


def mobilenet_v3_small(sz):
    """torchvision's MobileNetV3-Small (hardswish, hardsigmoid,
    squeeze-excite) at a quarter width for the narrow size."""
    width = 0.25 if sz.image != 224 else 1.0
    return torchvision.models.mobilenet_v3_small(width_mult=width,
                                                 num_classes=sz.classes)


def randomize_layer_norm(model, generator):
    """Random LayerNorm affine parameters (PyTorch starts them at 1 and 0)."""
    for m in model.modules():
        if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5, generator=generator)
                m.bias.normal_(0.0, 0.1, generator=generator)


def randomize_batch_norm(model, shape, generator):
    """Random BatchNorm affine parameters, then running statistics from a few
    train-mode passes on random data."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5, generator=generator)
                m.bias.normal_(0.0, 0.1, generator=generator)
            m.momentum = 0.5
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(4, *shape[1:], generator=generator))
    model.eval()


# name -> (builder, input kind, opset, keep BatchNormalization in the export)
MODELS = {
    "resnet18_bn": (lambda sz: NarrowResNet(resnet.BasicBlock, [2, 2, 2, 2],
                                            sz.resnet_width, sz.classes),
                    "image01", 13, True),
    "mobilenet_v2": (mobilenet_v2, "image01", 13, False),
    "mobilenet_v2_bn": (mobilenet_v2, "image01", 13, True),
    "squeezenet1_1": (lambda sz: ScaledSqueezeNet(sz.squeeze_scale,
                                                  sz.classes),
                      "normal", 13, False),
    "regnet_y": (regnet_y, "image01", 13, True),
    "convnext": (convnext, "image01", 13, False),
    "mobilenet_v3_small": (mobilenet_v3_small, "image01", 13, True),
    "transformer_encoder": (Encoder, "sequence", 13, False),
    "transformer_encoder_opset17": (Encoder, "sequence", 17, False),
}


def input_shape(kind, sz):
    if kind == "sequence":
        return (1, sz.seq, sz.d_model)
    return (1, 3, sz.image, sz.image)


def make_input(kind, shape, generator):
    if kind == "image01":  # pixels uniform in [0, 1)
        return torch.rand(*shape, generator=generator)
    return torch.randn(*shape, generator=generator)


def write_tensor(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array)).
                SerializeToString())


def export(name, model, x, out_dir, opset, keep_bn):
    """Exports `model` (in eval mode) on input `x` into out_dir/name with
    its PyTorch output as the reference, and checks the file."""
    with torch.no_grad():
        y = model(x)
    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx_path = os.path.join(folder, "model.onnx")
    # PRESERVE keeps BatchNormalization nodes (the model is in eval mode, so
    # they are exported with inference semantics); EVAL lets the exporter
    # fold them into the convolutions.
    training = (torch.onnx.TrainingMode.PRESERVE if keep_bn
                else torch.onnx.TrainingMode.EVAL)
    torch.onnx.export(model, x, onnx_path, opset_version=opset,
                      input_names=["input"], output_names=["output"],
                      training=training, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path), full_check=True)
    write_tensor(x.numpy(), os.path.join(data, "input_0.pb"))
    write_tensor(y.numpy(), os.path.join(data, "output_0.pb"))
    print(f"{name}: {os.path.getsize(onnx_path)} bytes, input "
          f"{list(x.shape)}, output {list(y.shape)}", flush=True)


def generate(name, sz, out_dir):
    build, kind, opset, keep_bn = MODELS[name]
    # One seed per model, so that each model's files do not depend on which
    # other models were generated before it.
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = build(sz)
    shape = input_shape(kind, sz)
    if name in ("convnext",):
        randomize_layer_norm(model, generator)
    randomize_batch_norm(model, shape, generator)
    x = make_input(kind, shape, generator)
    export(name, model, x, out_dir, opset, keep_bn)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=["narrow", "full"], default="narrow")
    parser.add_argument("--out", default=os.path.dirname(
        os.path.abspath(__file__)))
    parser.add_argument("models", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    torch.set_num_threads(1)  # bit-stable references across machines
    sz = Sizes(args.size)
    for name in args.models:
        if name not in MODELS:
            sys.exit(f"generate.py: unknown model '{name}' "
                     f"(known: {', '.join(MODELS)})")
        generate(name, sz, args.out)


if __name__ == "__main__":
    main()
